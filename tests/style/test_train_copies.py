"""The training copies: one per group of a mix, each edit drawn from its group; the default mix
is the bundled model's; ``fit_augmented`` weighs every copy of a row as the mix says (real texts)."""

from __future__ import annotations

import numpy as np
import pytest

from whowrote.style import StyleModel, load_model
from whowrote.style.edits import combined, markdown_html_roundtrip, strip_markdown
from whowrote.style.train import (
    AUG_LENGTHS,
    AUG_WEIGHT,
    AUGMENTATIONS,
    copy_features,
    edited_copies,
    fit_augmented,
)

TWO = (("truncated", "first_chars"), ("plain_text", "markdown_html", "combined"))  # the mix tried in #17


@pytest.fixture(scope="module")
def rows(corpus) -> list[dict]:
    """30 real texts of each genre (text, provider, genre)."""
    return (corpus.groupby("genre", group_keys=False).sample(30, random_state=0)[["text", "provider", "genre"]]
            .to_dict("records"))


def test_the_default_mix_is_the_bundled_models():
    aug = load_model().training_["augmentation"]
    assert [list(g) for g in AUGMENTATIONS] == (aug.get("copies") or [aug["edits"]])
    assert aug["weight"] == AUG_WEIGHT


def test_each_text_gets_one_copy_per_group(rows):
    texts = [r["text"] for r in rows]
    short, formatted = edited_copies(texts, seed=0, groups=TWO)
    assert len(short) == len(formatted) == len(texts)
    for t, s in zip(texts, short, strict=True):
        assert t.startswith(s) and (len(s.split()) <= max(AUG_LENGTHS) or len(s) <= 5 * max(AUG_LENGTHS))
    assert sum(len(s) < len(t) for s, t in zip(short, texts, strict=True)) > len(texts) // 2
    kinds = []
    for t, f in zip(texts, formatted, strict=True):
        options = {"plain_text": strip_markdown(t), "markdown_html": markdown_html_roundtrip(t)}
        hit = [k for k, v in options.items() if v == f]
        if not hit:  # all edits combined (shuffled with a seed drawn from AUG_LENGTHS)
            hit = ["combined"] if any(combined(t, seed=n) == f for n in AUG_LENGTHS) else []
        assert hit, t[:80]
        kinds.append(hit[0])
    assert {"markdown_html", "combined"} <= set(kinds)  # both drawn in 120 texts
    assert edited_copies(texts, 0, TWO) == [short, formatted] and edited_copies(texts, 1, TWO) != [short, formatted]
    (one,) = edited_copies(texts, seed=0)  # the default: one group
    assert len(one) == len(texts)


def test_fit_augmented_takes_one_or_several_copies_per_row(rows):
    texts, y = [r["text"] for r in rows], [r["provider"] for r in rows]
    genres = [r["genre"] for r in rows]
    feat = StyleModel().features
    X, Xa = feat(texts), copy_features(feat, texts, 0, TWO)
    assert Xa.shape == (len(texts), 2, X.shape[1])
    assert np.array_equal(Xa[:, 1], feat(edited_copies(texts, 0, TWO)[1]))
    params = {"use_trees": False, "calibrate": False}
    one = fit_augmented(X, Xa[:, 0], y, genres, **params)
    same = fit_augmented(X, Xa[:, :1], y, genres, **params)
    assert np.array_equal(one.coef_, same.coef_)
    both = fit_augmented(X, Xa, y, genres, aug_weight=0.25, **params)
    # two copies at weight w each fit what one stacked matrix with those weights fits
    ref = StyleModel(**params).fit(np.vstack([X, Xa[:, 0], Xa[:, 1]]), y * 3, genres=genres * 3,
                                   sample_weight=np.r_[np.ones(len(X)), np.full(2 * len(X), 0.25)])
    np.testing.assert_allclose(both.coef_, ref.coef_, rtol=1e-6, atol=1e-9)
    assert not np.allclose(both.coef_, one.coef_)
    with pytest.raises(ValueError):
        fit_augmented(X, Xa[:-1], y, genres, **params)


def test_layout_copy_edits_are_their_base_edit_with_single_line_breaks():
    # session 32's trial (benchmarks/layout_copies.py): "X+single_newlines" is copy edit X, then one
    # line break between paragraphs; the words and their order are X's
    from whowrote.style.edits import first_words, single_newlines
    from whowrote.style.train import COPY_EDITS

    text = "# Title\n\nFirst paragraph with *some* words.\n\n- a point\n- another\n\nLast one, done."
    for name in ("truncated", "plain_text", "combined"):
        plain, layout = COPY_EDITS[name](text, 60), COPY_EDITS[f"{name}+single_newlines"](text, 60)
        assert "\n\n" in plain and "\n\n" not in layout and "\n" in layout
        assert layout.split() == plain.split()
    # a cut that bites (5 words): cut first, then the layout
    cut = COPY_EDITS["truncated+single_newlines"](text, 5)
    assert cut == single_newlines(first_words(text, 5)) and len(cut.split()) < len(text.split())
