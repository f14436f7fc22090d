"""StyleModel: fit / predict_proba, save/load round trip without pickle, the bundled model."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from whowrote.style import StyleModel, load_model, save_model
from whowrote.style.calibration import brier, expected_calibration_error, fit_temperature, softmax
from whowrote.types import LABELS, WhowroteError


@pytest.fixture(scope="module")
def small(corpus):
    """A small real sample: topic-disjoint train / test from debates (all four labels)."""
    d = corpus[corpus["genre"] == "debate"]
    topics = sorted(d["topic"].unique())
    rng = np.random.default_rng(0)
    rng.shuffle(topics)
    test_topics = set(topics[: len(topics) // 5])
    tr = d[~d["topic"].isin(test_topics)].sample(600, random_state=0)
    te = d[d["topic"].isin(test_topics)].sample(200, random_state=0)
    featurise = StyleModel().features  # the canonical form, as the model reads texts
    return (featurise(tr["text"].tolist()), tr["provider"].to_numpy(), tr["topic"].to_numpy(),
            featurise(te["text"].tolist()), te["provider"].to_numpy())


@pytest.fixture(scope="module")
def fitted(small):
    Xtr, ytr, groups, _, _ = small
    return StyleModel(tree_iter=30).fit(Xtr, ytr, groups=groups)


def test_fit_predict_proba_shapes(fitted, small):
    _, _, _, Xte, yte = small
    assert list(fitted.classes_) == list(LABELS)
    P = fitted.predict_proba(Xte)
    assert P.shape == (len(Xte), 4)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert set(fitted.predict(Xte)) <= set(LABELS)
    assert (fitted.predict(Xte) == yte).mean() > 0.8  # topic-held-out debates


def test_texts_and_matrix_inputs_agree(fitted, corpus):
    texts = corpus["text"].iloc[:5].tolist()
    np.testing.assert_allclose(fitted.predict_proba(texts), fitted.predict_proba(fitted.features(texts)))


def test_save_load_round_trip_is_exact_and_pickle_free(fitted, small, tmp_path):
    Xte = small[3]
    save_model(fitted, tmp_path / "m")
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == ["model.json", "model.npz"]
    with zipfile.ZipFile(tmp_path / "m" / "model.npz") as z:
        for name in z.namelist():  # every member is a plain .npy array, never an object array
            header = z.read(name)[:200]
            assert b"'descr': '|O'" not in header
        # stored, not deflated: inflating was most of the model's load time (session 34)
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_STORED}
    np.load(tmp_path / "m" / "model.npz", allow_pickle=False)
    json.loads((tmp_path / "m" / "model.json").read_text())
    loaded = load_model(tmp_path / "m")
    np.testing.assert_array_equal(loaded.predict_proba(Xte), fitted.predict_proba(Xte))


def test_tree_export_matches_sklearn(small):
    from sklearn.ensemble import HistGradientBoostingClassifier

    from whowrote.style.trees import TreeEnsemble

    Xtr, ytr, _, Xte, _ = small
    h = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(Xtr, ytr)
    # the same additions in the same order as scikit-learn's (baseline, then tree by tree): equal bits
    assert TreeEnsemble.from_sklearn(h).raw_predict(Xte).tobytes() == h._raw_predict(Xte).tobytes()


def test_calibration_helpers():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(4000, 4)) * 3
    y = np.array([rng.choice(4, p=p) for p in softmax(logits, 2.0)])  # truth is "temperature 2"
    assert fit_temperature(logits, y) == pytest.approx(2.0, rel=0.15)
    onehot = np.eye(4)[y]
    assert brier(onehot, y) == 0 and expected_calibration_error(onehot, y) == 0


def test_bundled_model_loads_and_attributes(corpus):
    model = load_model()
    assert list(model.classes_) == list(LABELS)
    sample = corpus.groupby("genre").sample(10, random_state=1)
    pred = model.predict(sample["text"].tolist())
    # Training rows (the bundled model saw every row): a check that the shipped weights and this
    # version's features agree, not a generalisation estimate (that is test_fit_predict_proba_shapes).
    assert (pred == sample["provider"].to_numpy()).mean() >= 0.9
    att = model.attribute(sample["text"].tolist()[:3], n_tells=4)
    for a in att:
        d = a.to_dict()
        assert set(d["probabilities"]) == set(LABELS)
        assert sum(d["probabilities"].values()) == pytest.approx(1.0, abs=1e-9)
        assert d["provider"] in LABELS and isinstance(d["uncertain"], bool) and d["n_words"] > 100
        assert 1 <= len(d["tells"]) <= 4
        t = d["tells"][0]
        assert {"feature", "label", "value", "unit", "norms", "favours", "contribution", "sentence", "cue", "versus",
                "fragile"} <= set(t)
        assert t["favours"] == d["provider"] and ("typical of" in t["sentence"] or " than " in t["sentence"])
        assert isinstance(t["fragile"], bool) and t["versus"] != t["favours"]


def _corrupt_copy(tmp_path, meta_edit=None, array_edit=None, npz_bytes=None):
    from whowrote.style.io import DEFAULT_DIR

    d = tmp_path / "bad"
    d.mkdir()
    meta = json.loads((DEFAULT_DIR / "model.json").read_text())
    if meta_edit:
        meta_edit(meta)
    (d / "model.json").write_text(json.dumps(meta))
    if npz_bytes is not None:
        (d / "model.npz").write_bytes(npz_bytes)
    else:
        with np.load(DEFAULT_DIR / "model.npz") as z:
            arrays = {k: z[k] for k in z.files}
        if array_edit:
            array_edit(arrays)
        np.savez(d / "model.npz", **arrays)
    return d


def _truncated_npz() -> bytes:
    from whowrote.style.io import DEFAULT_DIR

    raw = (DEFAULT_DIR / "model.npz").read_bytes()
    return raw[: len(raw) // 2]


@pytest.mark.parametrize("kw", [
    {"meta_edit": lambda m: m.pop("params")},
    {"meta_edit": lambda m: m["params"].update(evil=1)},
    {"meta_edit": lambda m: m["params"].update(min_words="100")},
    {"meta_edit": lambda m: m.update(temperature=-1)},
    {"meta_edit": lambda m: m["params"].update(tree_weight=1.5)},
    {"meta_edit": lambda m: m["params"].update(weighting="bogus")},
    {"array_edit": lambda a: a.pop("mean")},
    {"array_edit": lambda a: a.update(coef=a["coef"][:2])},
    {"array_edit": lambda a: a["tree_left"].__setitem__(slice(None), 10**8)},
    {"array_edit": lambda a: a["tree_feature"].__setitem__(slice(None), 10**4)},
    {"array_edit": lambda a: a.update(tree_roots=a["tree_roots"].astype(float))},
    {"npz_bytes": b"not an archive at all"},
    {"npz_bytes": _truncated_npz()},
])
def test_malformed_model_files_fail_with_a_clear_error(tmp_path, kw):
    d = _corrupt_copy(tmp_path, **kw)
    with pytest.raises(WhowroteError) as err:
        load_model(d)
    assert str(d) in str(err.value) and "allow_pickle" not in str(err.value)


def test_model_files_without_the_newer_settings_load_as_before(tmp_path):
    """Models saved before ``tree_weight`` / ``weighting`` existed averaged 50/50 with cell weights."""
    d = _corrupt_copy(tmp_path, meta_edit=lambda m: [m["params"].pop(k, None) for k in ("tree_weight", "weighting")])
    model = load_model(d)
    assert (model.tree_weight, model.weighting) == (0.5, "cell")


def test_sqrt_weighting_is_the_geometric_mean_of_genre_and_cell_balancing():
    from whowrote.style.model import balanced_weights

    genres = np.array(["a"] * 6 + ["b"] * 2)
    yi = np.array([0, 0, 0, 0, 1, 1, 0, 1])
    cell = balanced_weights(yi, genres)
    assert cell[:4].sum() == pytest.approx(cell[4:6].sum()) == pytest.approx(cell[6:].sum() / 2)
    w = balanced_weights(yi, genres, sqrt=True)
    want = 1 / np.sqrt(np.array([6] * 6 + [2] * 2) * np.array([4, 4, 4, 4, 2, 2, 1, 1]))
    np.testing.assert_allclose(w, want * len(w) / want.sum())
    with pytest.raises(ValueError, match="weighting"):
        StyleModel(weighting="nope").fit(np.ones((4, 197)), ["CLAUDE", "GEMINI"] * 2)


def test_model_json_that_is_not_an_object(tmp_path):
    d = _corrupt_copy(tmp_path)
    (d / "model.json").write_text("[1, 2]")
    with pytest.raises(WhowroteError, match="unknown model format"):
        load_model(d)


def test_one_string_is_refused_not_split_into_characters():
    model = load_model()
    with pytest.raises(TypeError, match="not one string"):
        model.predict_proba("A single text passed by mistake.")
    with pytest.raises(TypeError):
        model.attribute("A single text passed by mistake.")


def test_fit_with_genres_and_topics_makes_the_temperature_grow_with_distance(corpus):
    """Four real genres: the calibration folds give out-of-genre and in-genre predictions, and the
    fitted temperature is T0 * (1 + d) ** slope with slope > 0 (shifted texts get softer probabilities)."""
    from whowrote.style.calibration import scaled_softmax, temperatures

    rows = corpus.groupby(["genre", "provider"]).head(25)
    X = StyleModel().features(rows["text"].tolist())
    m = StyleModel(use_trees=False).fit(X, rows["provider"], genres=rows["genre"],
                                     groups=(rows["genre"] + "/" + rows["topic"].astype(str)).to_numpy())
    assert m.temperature_slope_ > 0 and m.temperature_ > 0
    np.testing.assert_allclose(m.predict_proba(X), scaled_softmax(m.logits(X), temperatures(m.distance(X), m.temperature_,
                                                                                             m.temperature_slope_)))
    flat = StyleModel(use_trees=False).fit(X, rows["provider"], genres=rows["genre"])  # no topics: no in-genre folds
    assert flat.temperature_slope_ == 0.0


def test_blend_iter_averages_a_large_leaf_ensemble_into_the_tree_scores(fitted, small, tmp_path):
    # issue 17's blend (docs/predict-trials.md "Tree settings", rounds 11-12), off in the bundled model
    from whowrote.style.model_card import model_card

    Xtr, ytr, groups, Xte, _ = small
    blended = StyleModel(tree_iter=30, blend_iter=10, blend_min_samples_leaf=100).fit(Xtr, ytr, groups=groups)
    n_plain = len(fitted.trees_.roots)
    assert len(blended.trees_.roots) == n_plain + 10 * len(LABELS)
    np.testing.assert_array_equal(blended.coef_, fitted.coef_)  # the linear member is untouched
    # the first trees are the plain model's at half weight: the scores split exactly into the two parts
    n_nodes = len(fitted.trees_.feature)
    np.testing.assert_array_equal(blended.trees_.value[:n_nodes], 0.5 * fitted.trees_.value)
    np.testing.assert_array_equal(blended.trees_.threshold[:n_nodes], fitted.trees_.threshold)
    # the added trees have large leaves: fewer leaves per tree than the bundled setting's
    wide_leaves = blended.trees_.is_leaf[n_nodes:].sum() / (10 * len(LABELS))
    plain_leaves = fitted.trees_.is_leaf.sum() / n_plain
    assert wide_leaves < 0.8 * plain_leaves
    # both ensembles start from the class priors, so a 0.5 / 0.5 sum keeps the baseline (another weight would not)
    np.testing.assert_allclose(blended.trees_.baseline, fitted.trees_.baseline, rtol=1e-12)
    save_model(blended, tmp_path / "b")
    assert json.loads((tmp_path / "b" / "model.json").read_text())["params"]["blend_iter"] == 10
    np.testing.assert_array_equal(load_model(tmp_path / "b").predict_proba(Xte), blended.predict_proba(Xte))
    assert "10 rounds of trees with at least 100 training rows a leaf" in model_card(blended)
    # the card claims only the edits the model's reading makes harmless (list markers: only with canonical_lists)
    assert "so a typography, case or line-ending edit cannot" in model_card(blended)
    assert "list-marker" not in model_card(blended)
    assert "case, line-ending or list-marker edit" in model_card(blended.set_params(canonical_lists=True))
    with pytest.raises(ValueError, match="blend_iter must be >= 0"):
        StyleModel(blend_iter=-1).check_settings()
    # without a blend the file records no blend settings: older versions, which refuse unknown ones, read it
    save_model(fitted, tmp_path / "plain")
    assert not {"blend_iter", "blend_min_samples_leaf"} & set(json.loads((tmp_path / "plain" / "model.json").read_text())["params"])
    assert load_model(tmp_path / "plain").blend_iter == 0
