"""Benchmark caches are keyed by the corpus texts in their order: a cache built from other files,
or the same files given in another order, is never read as this corpus's rows."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from accuracy import char_matrix  # noqa: E402
from neural_logo_data import style_logits_path  # noqa: E402


def test_char_ngram_cache_follows_the_texts(tmp_path: Path) -> None:
    a, b = ["an apple a day", "the quick brown fox"], ["the quick brown fox", "an apple a day"]
    Ma = char_matrix(a, tmp_path)
    Mb = char_matrix(b, tmp_path)  # another order: its own file, its own rows
    assert len(list(tmp_path.glob("char14-*.npz"))) == 2
    assert (Ma[0] != Mb[1]).nnz == 0 and (Ma[0] != Mb[0]).nnz > 0
    assert (char_matrix(a, tmp_path) != Ma).nnz == 0  # read back from its cache


def test_style_logits_path_follows_the_corpus_order(tmp_path: Path) -> None:
    c = pd.DataFrame({"text": ["one", "two", "three"]})
    assert style_logits_path(tmp_path, c) == style_logits_path(tmp_path, c.copy())
    assert style_logits_path(tmp_path, c) != style_logits_path(tmp_path, c.iloc[::-1])


def test_robustness_features_follow_the_recipe_settings_and_the_corpus(tmp_path: Path, monkeypatch) -> None:
    # Session 22: a recipe whose settings changed under the same name was read from its old cache file.
    import numpy as np
    import robustness

    corpus = pd.DataFrame({"text": ["- one\n- two\n\nDone.", "* three\n* four\n\nDone."]})
    rows = np.arange(2)
    monkeypatch.setitem(robustness.RECIPES, "trial", {"canonical": True, "canonical_lists": False})
    feats = robustness.Features(corpus, tmp_path, lambda msg: None)
    literal = feats.get("trial", rows, "raw")
    monkeypatch.setitem(robustness.RECIPES, "trial", {"canonical": True, "canonical_lists": True})
    same = feats.get("trial", rows, "raw")
    assert not np.array_equal(literal, same) and len(list(tmp_path.glob("trial-raw-*.npy"))) == 2
    other = robustness.Features(corpus.iloc[::-1].reset_index(drop=True), tmp_path, lambda msg: None)
    assert np.array_equal(other.get("trial", rows, "raw"), same[::-1])  # its own file, its own rows


def test_a_blend_recipe_reads_its_base_recipes_features(tmp_path: Path) -> None:
    # blend75 fits a second tree ensemble on the same features: no second matrix of each edit
    import numpy as np
    import robustness

    corpus = pd.DataFrame({"text": ["- one\n- two\n\nDone.", "* three\n* four\n\nDone."]})
    feats = robustness.Features(corpus, tmp_path, lambda msg: None)
    base = feats.get("default", np.arange(2), "raw")
    blend = feats.get("blend75", np.arange(2), "raw")
    assert np.array_equal(base, blend)
    assert [f.name.split("-")[0] for f in tmp_path.glob("*.npy")] == ["default"]
    assert robustness.RECIPES["blend75"]["blend_iter"] == 75


def test_caches_follow_the_feature_code(tmp_path: Path, monkeypatch) -> None:
    # Session 31: features cached before the model read the plain layout were read as that reading's.
    from genre_jackknife import texts_key
    from robustness import code_key

    import whowrote.typography

    key, tkey = code_key(), texts_key(["a text"])
    assert code_key() == key  # stable
    changed = tmp_path / "typography.py"
    changed.write_text(Path(whowrote.typography.__file__).read_text() + "\n# another reading\n")
    monkeypatch.setattr(whowrote.typography, "__file__", str(changed))
    assert code_key() != key and texts_key(["a text"]) != tkey


def test_a_layout_recipe_reads_the_bundled_features_but_its_own_copies(tmp_path: Path) -> None:
    # session 32: layout_copies / layout_half / layout_extra differ from the bundled recipe only in
    # their training copies, so they share its edited features and keep their own copy matrices
    import numpy as np
    import robustness

    from whowrote.style import StyleModel
    from whowrote.style.train import edited_copies

    texts = ["# A title\n\nOne paragraph here.\n\nAnother one, longer than the first.",
             "- one\n- two\n\nDone and dusted.\n\nThe end."]
    feats = robustness.Features(pd.DataFrame({"text": texts}), tmp_path, lambda msg: None)
    rows = np.arange(2)
    assert np.array_equal(feats.get("default", rows, "raw"), feats.get("layout_extra", rows, "raw"))
    bundled, extra = feats.get("default", rows, "train_copy"), feats.get("layout_extra", rows, "train_copy")
    assert bundled.shape[1] == 1 and extra.shape[1] == 2  # the bundled copy plus a single-newline copy
    assert np.array_equal(extra[:, 0], bundled[:, 0])  # the bundled copy is the same draw
    (layout,) = edited_copies(texts, 0, (("single_newlines",),))
    assert "\n\n" not in layout[0] and np.array_equal(extra[:, 1], StyleModel(canonical=True).features(layout))
    for recipe in ("layout_copies", "layout_half"):
        feats.get(recipe, rows, "train_copy")
    assert len(list(tmp_path.glob("default-train_copy-*.npy"))) == 4  # one matrix per copy mix, no collision


def test_every_copy_group_names_known_copy_edits() -> None:
    import robustness

    from whowrote.style.train import check_copies

    for groups in robustness.COPY_GROUPS.values():
        assert check_copies(groups) == groups
