"""Tree-settings trial (benchmarks/tree_settings.py): the setting reaches the style model's
trees, is undone after the fit, and the decision rule."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import sklearn.ensemble as ens

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from tree_settings import decide, long_rows, with_tree_settings  # noqa: E402

from whowrote.style import StyleModel  # noqa: E402
from whowrote.style.train import fit_augmented  # noqa: E402


def _toy(seed: int, marked: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """120 rows of random feature values (the style model's full feature count), the ``marked``
    provider's shifted, and two genres: enough for a quick real fit."""
    rng = np.random.default_rng(seed)
    n_feat = StyleModel(feature_set="full").features(["A short text of a few words."]).shape[1]
    y = np.array(["CLAUDE", "CHATGPT", "GEMINI", "OTHER"] * 30, dtype=object)
    X = rng.gamma(2.0, 1.0, (len(y), n_feat)) + (y == marked)[:, None] * rng.random(n_feat) * 2
    return X, y, np.array(["blog", "debate"] * 60, dtype=object)


def test_tree_settings_apply_for_the_fit_only() -> None:
    def fit() -> float:
        from sklearn.ensemble import HistGradientBoostingClassifier

        clf = HistGradientBoostingClassifier(max_iter=3)
        return clf.max_features, clf.min_samples_leaf

    original = ens.HistGradientBoostingClassifier
    assert with_tree_settings(fit, max_features=0.25, min_samples_leaf=400)() == (0.25, 400)
    assert ens.HistGradientBoostingClassifier is original and fit() == (1.0, 20)


def test_tree_settings_change_the_style_models_trees() -> None:
    X, y, genres = _toy(0, "CLAUDE")

    def fit(**settings: float) -> np.ndarray:
        m = with_tree_settings(fit_augmented, **settings)(X, X * 1.01, y, genres, seed=0, feature_set="full",
                                                         calibrate=False, tree_iter=20)
        return m.predict_proba(X)

    full = fit()
    assert np.allclose(full, fit(max_features=1.0))  # deterministic at a fixed seed; 1.0 is the default
    assert not np.allclose(full, fit(max_features=0.25))  # so a difference is the setting's
    assert not np.allclose(full, fit(min_samples_leaf=60))
    # a keyword the style model passes itself (l2_regularization=1.0) is replaced too (round 19)
    assert np.allclose(full, fit(l2_regularization=1.0))
    assert not np.allclose(full, fit(l2_regularization=100.0))


def test_round_17s_additive_trees_split_each_on_one_feature() -> None:
    from tree_settings import ROUNDS, split_settings

    X, y, genres = _toy(1, "GEMINI")
    trees, own = split_settings(ROUNDS[17]["gam"])
    assert own == {}

    def features_per_tree(**settings: float | str) -> np.ndarray:
        m = with_tree_settings(fit_augmented, **settings)(X, X * 1.01, y, genres, seed=0, feature_set="full",
                                                         calibrate=False, tree_iter=10)
        t = m.trees_
        tree_of = np.searchsorted(t.roots, np.arange(len(t.feature)), side="right") - 1
        split = ~t.is_leaf
        return np.array([len(set(t.feature[split & (tree_of == i)].tolist())) for i in range(len(t.roots))])

    additive, bundled = features_per_tree(**trees), features_per_tree()
    assert additive.max() == 1 and (additive == 1).mean() > 0.9  # a tree may be a lone leaf
    assert bundled.max() > 1  # the bundled recipe's trees combine features


def _res(raw: float, drops: dict[str, float], logo: dict[str, float]) -> tuple[dict, dict]:
    inner = {"edits": {"raw": {"accuracy": raw}}, "drops": drops, "worst_drop": max(drops.values())}
    return inner, {g: {"accuracy_3way": a} for g, a in logo.items()}


def test_decide_needs_a_gain_and_no_loss() -> None:
    base_i, base_l = _res(0.90, {"strip_markdown": 0.04, "first_800_chars": 0.10}, {"chat": 0.50, "debate": 0.70})
    cases = {
        "gain": _res(0.90, {"strip_markdown": 0.04, "first_800_chars": 0.10}, {"chat": 0.53, "debate": 0.70}),
        "robust": _res(0.896, {"strip_markdown": 0.043, "first_800_chars": 0.085}, {"chat": 0.50, "debate": 0.70}),
        "no_gain": _res(0.90, {"strip_markdown": 0.04, "first_800_chars": 0.095}, {"chat": 0.505, "debate": 0.70}),
        "genre_loss": _res(0.90, {"strip_markdown": 0.04, "first_800_chars": 0.10}, {"chat": 0.58, "debate": 0.67}),
        "edit_loss": _res(0.90, {"strip_markdown": 0.05, "first_800_chars": 0.08}, {"chat": 0.50, "debate": 0.70}),
        "raw_loss": _res(0.89, {"strip_markdown": 0.04, "first_800_chars": 0.08}, {"chat": 0.52, "debate": 0.70}),
    }
    inner = {"current": base_i, **{v: c[0] for v, c in cases.items()}}
    logo = {g: {"current": base_l[g], **{v: c[1][g] for v, c in cases.items()}} for g in base_l}
    logo["mean"] = {v: {"accuracy_3way": float(np.mean([logo[g][v]["accuracy_3way"] for g in base_l]))}
                    for v in inner}
    d = decide(inner, logo)
    assert {v for v in cases if d[v]["adopt"]} == {"gain", "robust"}
    assert not d["no_gain"]["checks"]["logo_up_1pt_or_worst_drop_down_1pt"]
    assert not d["genre_loss"]["checks"]["no_logo_genre_3way_down_2pt"]
    assert not d["edit_loss"]["checks"]["no_drop_up_0.5pt"]
    assert not d["raw_loss"]["checks"]["raw_not_down_0.5pt"]
    assert d["pick"] == "gain"  # the higher LOGO mean of the two passing



def test_long_rows_count_the_words_of_each_edited_text() -> None:
    long_text = " ".join(["Word"] * 301)  # 301 words, no sentence ends: the shuffle keeps it whole
    texts = [long_text, " ".join(["word"] * 300), "short text"]
    rows = long_rows(texts, seed=0, above=300)
    assert rows["raw"].tolist() == [True, False, False]  # more than 300, not 300 or more
    assert not rows["first_300_words"].any() and not rows["first_800_chars"].any()  # cut texts: short
    assert rows["lower"].tolist() == [True, False, False]


def test_inner_folds_score_every_text_once_with_its_topic_unseen(tmp_path: Path) -> None:
    """Round 5's protocol: k topic-grouped folds of the outer train part; without k, the one inner split."""
    import pandas as pd
    from plain_route import Cache, Inner
    from tree_settings import inner_folds

    genres = ["blog", "chat", "debate"]
    outer = pd.DataFrame({"text": [f"text {i} " + "word " * (i % 7) for i in range(60)],
                          "genre": [genres[i % 3] for i in range(60)],
                          "topic": [f"t{i % 10}" for i in range(60)],  # t0..t9 recur in every genre
                          "provider": ["CLAUDE", "CHATGPT", "GEMINI", "OTHER"] * 15})
    outer["row"] = range(len(outer))
    tr, va = outer.iloc[:45], outer.iloc[45:]

    def feat(texts: list[str]) -> np.ndarray:
        return np.array([[len(t), t.count("word")] for t in texts], dtype=float)

    inn = Inner(outer, tr, va, feat, Cache(tmp_path, print), feat(outer["text"].tolist()), feat(outer["text"].tolist()),
                {"raw": feat(va["text"].tolist())}, seed=0)
    evalset, edited, folds = inner_folds(inn, None, print)
    assert evalset is va and list(edited) == ["raw"] and len(folds) == 1
    assert (folds[0][1] == tr["row"].to_numpy()).all() and (folds[0][3] == np.arange(15)).all()

    evalset, edited, folds = inner_folds(inn, (3, None), print)
    assert evalset is outer and len(folds) == 3
    assert set(edited) >= {"raw", "strip_markdown", "first_800_chars"} and edited["raw"].shape == (60, 2)
    scored = np.sort(np.concatenate([f[3] for f in folds]))
    assert (scored == np.arange(60)).all()  # every text scored exactly once
    key = (outer["genre"] + "/" + outer["topic"]).to_numpy()
    for _, fit_rows, frame, test, _ in folds:
        assert not set(key[fit_rows]) & set(key[test])  # no genre's topic on both sides
        assert len(fit_rows) + len(test) == 60 and (frame["row"].to_numpy() == fit_rows).all()
    # a seeded deal of the topics: another assignment, the same guarantees
    _, _, dealt = inner_folds(inn, (3, 1), print)
    assert (np.sort(np.concatenate([f[3] for f in dealt])) == np.arange(60)).all()
    assert all(not set(key[f[1]]) & set(key[f[3]]) for f in dealt)
    assert any(set(f[3]) != set(g[3]) for f, g in zip(folds, dealt, strict=True))


def test_logit_blend_averages_tree_scores_before_the_softmax() -> None:
    from tree_settings import logit_blend

    from whowrote.style.calibration import softmax
    from whowrote.style.trees import log_transform

    X, y, genres = _toy(1, "GEMINI")

    def fit(**settings: float) -> StyleModel:
        return with_tree_settings(fit_augmented, **settings)(X, X * 1.01, y, genres, seed=0, feature_set="full",
                                                            calibrate=False, tree_iter=20)

    base, wide = fit(), fit(min_samples_leaf=60)
    assert np.allclose(logit_blend(wide, base, X, 0.0), base.predict_proba(X))  # weight 0: the base model
    half = logit_blend(wide, base, X, 0.5)
    Z = log_transform(X)
    trees = softmax(0.5 * wide.trees_.raw_predict(Z) + 0.5 * base.trees_.raw_predict(Z))
    assert np.allclose(half.sum(axis=1), 1.0)
    # the tree member's share is the softmax of the averaged scores, not the average of two softmaxes
    lr = (half - base.tree_weight * trees) / (1 - base.tree_weight)
    assert np.allclose(lr, (base.predict_proba(X) - base.tree_weight * softmax(base.trees_.raw_predict(Z)))
                       / (1 - base.tree_weight))
    prob_avg = 0.5 * wide.predict_proba(X) + 0.5 * base.predict_proba(X)
    assert not np.allclose(half, prob_avg)


def test_tree_cost_size_counts_trees_leaves_and_depth() -> None:
    from tree_cost import size

    X, y, genres = _toy(2, "CHATGPT")
    m = fit_augmented(X, X * 1.01, y, genres, seed=0,
                      feature_set="full", calibrate=False, tree_iter=5)
    got = size(m.trees_)
    assert got["trees"] == len(m.trees_.roots) == 5 * 4  # one tree per class per round
    assert got["leaves"] == int(m.trees_.is_leaf.sum()) and got["nodes"] == 2 * got["leaves"] - got["trees"]
    assert 1.0 <= got["mean_leaf_depth"] <= m.trees_.max_depth


def test_tree_cost_walk_steps_count_each_pairs_splits_and_add_up_over_a_weighted_sum() -> None:
    from tree_cost import walk_steps

    from whowrote.style.trees import TreeEnsemble, log_transform

    X, y, genres = _toy(2, "CHATGPT")
    a = fit_augmented(X, X * 1.01, y, genres, seed=0, feature_set="full", calibrate=False, tree_iter=5).trees_
    b = fit_augmented(X, X * 1.01, y, genres, seed=1, feature_set="full", calibrate=False, tree_iter=3).trees_
    Z = log_transform(X[:40])

    def plain(t) -> int:  # each (row, tree) pair's own path length, walked one by one
        total = 0
        for z in Z:
            for r in t.roots:
                node = int(r)
                while not t.is_leaf[node]:
                    node = int(t.right[node] if z[t.feature[node]] > t.threshold[node] else t.left[node])
                    total += 1
        return total

    assert walk_steps(a, Z) == plain(a) / len(Z)
    both = walk_steps(TreeEnsemble.weighted_sum([(a, 0.5), (b, 0.5)]), Z)
    assert both == (plain(a) + plain(b)) / len(Z)  # the merged ensemble's paths are its parts' paths


def test_split_settings_gives_the_style_models_own_settings_to_the_model() -> None:
    # round 13's tree_leaves is StyleModel's (it sets max_leaf_nodes itself, so a classifier keyword
    # would be overridden by the model's own call and silently ignored)
    from tree_settings import ROUNDS, split_settings

    assert split_settings(ROUNDS[13]["leaves7_450"]) == ({}, {"tree_leaves": 7, "tree_iter": 450})
    assert split_settings({"min_samples_leaf": 1000, "tree_iter": 75}) == ({"min_samples_leaf": 1000}, {"tree_iter": 75})
    X, y, genres = _toy(0, "GEMINI")
    per_tree = {}
    for n in (7, 15):
        t = fit_augmented(X, X * 1.01, y, genres, seed=0, feature_set="full", tree_leaves=n, tree_iter=5,
                          calibrate=False).trees_
        bounds = np.r_[t.roots, len(t.is_leaf)]
        per_tree[n] = [int(t.is_leaf[a:b].sum()) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    assert max(per_tree[7]) == 7 and max(per_tree[15]) > 7


def test_the_distilled_student_has_the_bundled_shape_and_follows_its_teacher() -> None:
    import pandas as pd
    from distill_trees import distilled, training_rows

    from whowrote.style.model import balanced_weights
    from whowrote.style.trees import log_transform

    X, y, genres = _toy(3, "GEMINI")
    frame = pd.DataFrame({"provider": y, "genre": genres})
    teacher = fit_augmented(X, X * 1.01, y, genres, seed=0, feature_set="full", calibrate=False,
                            tree_iter=8, blend_iter=8)
    assert len(teacher.trees_.roots) == 2 * 8 * 4  # both ensembles, a tree per class per round
    Z, w = training_rows(teacher, X, X * 1.01, frame)
    assert Z.shape == (2 * len(X), X.shape[1]) and np.allclose(Z[:len(X)], log_transform(X))
    # the weights StyleModel.fit gives the rows and their copies at 0.5: cells balanced, copies halved
    yi = np.array([list(teacher.classes_).index(v) for v in np.tile(y, 2)])
    want = balanced_weights(yi, np.tile(genres, 2), sqrt=True) * np.r_[np.ones(len(X)), np.full(len(X), 0.5)]
    assert np.allclose(w, want * len(want) / want.sum())
    student = distilled(teacher, X, X * 1.01, frame)
    assert len(student.trees_.roots) == 8 * 4 and student.blend_iter == 0  # the bundled shape
    assert teacher.trees_ is not student.trees_ and len(teacher.trees_.roots) == 64  # the teacher kept
    a, b = teacher.trees_.raw_predict(Z), student.trees_.raw_predict(Z)
    assert np.corrcoef(a.ravel(), b.ravel())[0, 1] > 0.9  # it learned the teacher's scores
    assert (student.predict(X) == teacher.predict(X)).mean() > 0.9


def test_write_round_writes_the_results_and_rows_and_logs_the_tables(tmp_path: Path) -> None:
    import json

    from tree_settings import write_round

    res = json.loads((Path(__file__).resolve().parents[2] / "results/tree_settings/round17.json").read_text())
    rows = {"inner|current|raw": np.array([True, False]), "inner_topic": np.array(["a", "b"])}
    logged: list[str] = []
    write_round(tmp_path / "out", 17, res, rows, logged.append)
    assert json.loads((tmp_path / "out/round17.json").read_text()) == res
    with np.load(tmp_path / "out/round17_rows.npz") as got:
        assert got["inner|current|raw"].tolist() == [True, False] and got["inner_topic"].tolist() == ["a", "b"]
    assert "| blend_logit_gam |" in logged[0] and logged[1] == f"decision: {res['decision']}"
    assert not list((tmp_path / "out").glob(".*tmp*"))  # written through temporary names, none left
