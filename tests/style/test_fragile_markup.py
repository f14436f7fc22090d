"""The ``fragile`` flag follows the text: on a text with block markup (headings, lists, tables), the
plain-text features that the Markdown edits move (``MARKUP_SENSITIVE``) are fragile; on a text without
it they are not, because those edits leave such a text (nearly) unchanged (measured on the corpus by
benchmarks/fragile_cues.py)."""

from __future__ import annotations

import numpy as np

from whowrote.style import load_model
from whowrote.style.decision import decision_support
from whowrote.style.edits import markdown_html_roundtrip, star_bullets, strip_markdown
from whowrote.style.explain import MARKUP_FEATURES, MARKUP_SENSITIVE, has_markup, is_fragile, tells_of_rows
from whowrote.style.features import FEATURES

MARKDOWN = """## Why the plan works

The plan has three steps, and each one matters for the outcome we want to reach this year.

1. Measure the baseline in 2024 and record 12 numbers per team.
2. Change one thing at a time - never two - and wait 30 days.
3. Compare the results (with care) against the 2024 baseline.

Things to avoid:

- rushing the first step
- changing the metric halfway
- reporting only the good news

**In short:** slow and steady wins. The teams that followed it reported 40% fewer surprises.
"""

PLAIN = ("The plan has three steps, and each one matters for the outcome we want to reach this year. "
         "First we measure the baseline and record the numbers for every team. Then we change one thing "
         "at a time and wait a month before looking again. Finally we compare the results with care "
         "against the baseline, and we report the bad news along with the good. ") * 3


INLINE = ("The plan has *three* steps, and each one **matters** for the outcome we want to reach this year. "
          "First we measure the baseline and record the numbers for every team. ") * 6


def test_markup_gate_reads_the_text():
    model = load_model()
    X = model.features([MARKDOWN, PLAIN, INLINE])
    assert has_markup(model, X[0]) and not has_markup(model, X[1])
    # emphasis and bold are markup, but not block markup: the gate stays shut
    assert has_markup(model, X[2], block=False) and not has_markup(model, X[2])
    assert not has_markup(model, X[1], block=False)


def test_markdown_edits_move_the_sensitive_features_of_a_markdown_text_and_none_of_a_plain_one():
    model = load_model()
    names = list(model.feature_names_)
    cols = [names.index(n) for n in sorted(MARKUP_SENSITIVE)]
    x0 = model.features([MARKDOWN])[0, cols]
    edited = model.features([strip_markdown(MARKDOWN), markdown_html_roundtrip(MARKDOWN), star_bullets(MARKDOWN)])
    moved = (np.abs(edited[:, cols] - x0) > 0.1 * np.maximum(np.abs(x0), 1e-9)).any(axis=0)
    moved_names = {n for n, m in zip(sorted(MARKUP_SENSITIVE), moved, strict=True) if m}
    # list numbers are digits, "- " bullets hyphens, and list items without a full stop join sentences
    # once their markers go (a paragraph feature moves only where a list's items are paragraphs apart)
    assert {"avg_sent_len_words", "digit_ratio", "hyphen", "period"} <= moved_names
    p0 = model.features([PLAIN])[0, cols]
    for edit in (strip_markdown, markdown_html_roundtrip, star_bullets):
        np.testing.assert_allclose(model.features([edit(PLAIN)])[0, cols], p0, rtol=0.1, atol=1e-9)


def test_fragile_depends_on_markup_only_for_the_sensitive_features():
    model = load_model()
    assert is_fragile(model, "digit_ratio", markup=True) and not is_fragile(model, "digit_ratio", markup=False)
    assert is_fragile(model, "md_bullet", markup=False)  # Markdown itself is always fragile
    assert not is_fragile(model, "fw_the", markup=True)  # word choice survives every Markdown edit
    assert not MARKUP_SENSITIVE & {"fw_the", "fw_and", "punc_comma", "lex_hedges"}


def test_tells_flag_the_sensitive_features_only_on_the_row_with_markup():
    # the same row twice, the second with its markup counts zeroed: same support, same sentences,
    # so the only difference in the tells is the flag the gate sets
    model = load_model()
    names = list(model.feature_names_)
    X = model.features([MARKDOWN, MARKDOWN])
    markup_cols = [j for j, n in enumerate(names) if FEATURES[n].family == "markdown" or n in MARKUP_FEATURES]
    X[1, markup_cols] = 0.0
    assert has_markup(model, X[0]) and not has_markup(model, X[1], block=False)
    P = model.predict_proba(X[:1])
    order = np.argsort(-P, axis=1)
    S = decision_support(model, X[:1], order[:, 0], order[:, 1])
    S = np.repeat(S, 2, axis=0)
    S[:, markup_cols] = 0.0  # the markup cues themselves out of both rows' ranking
    md, plain = tells_of_rows(model, X, S, [order[0, 0]] * 2, [order[0, 1]] * 2, 12)
    assert [t.feature for t in md] == [t.feature for t in plain]
    sensitive = [k for k, t in enumerate(md) if t.feature in MARKUP_SENSITIVE]
    assert sensitive, [t.feature for t in md]
    assert all(md[k].fragile and not plain[k].fragile for k in sensitive)
    others = [k for k, t in enumerate(md) if t.feature not in MARKUP_SENSITIVE]
    assert all(md[k].fragile == plain[k].fragile for k in others)
