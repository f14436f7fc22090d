"""Spans of the tells: each feature's own pattern (its FeatureSpec), overlaps, one cap, no guesses."""

from __future__ import annotations

import re

from whowrote.style.features import FEATURES, feature_specs
from whowrote.style.highlight import MAX_SPANS, highlight_spans

TEXT = "Hello — world 😀. **Bold** and *it* here; isn't it?\n## Head\nPerhaps very clear.\n"


def _marked(spans):
    return {(s["feature"], TEXT[s["start"]:s["end"]]) for s in spans}


def test_each_feature_marks_what_its_spec_counts():
    spans = highlight_spans(TEXT, ["punc_emdash", "md_h2_h3", "lex_hedges", "emoji", "italic_asterisk",
                                   "contraction_rate", "avg_sent_len_words"])
    assert _marked(spans) == {("punc_emdash", "—"), ("md_h2_h3", "## Head"), ("lex_hedges", "Perhaps"),
                              ("emoji", "😀"), ("italic_asterisk", "*"), ("contraction_rate", "isn't")}


def test_only_features_with_a_pattern_are_marked_and_unknown_names_are_skipped():
    no_pattern = [s.name for s in feature_specs("full") if not s.pattern]
    assert "avg_sent_len_words" in no_pattern and "type_token_ratio" in no_pattern
    assert highlight_spans(TEXT, [*no_pattern, "em_dash_rate", "hedges", "bold"]) == []


def test_countable_features_have_a_pattern_that_finds_what_they_count():
    """A feature counted from characters in the text has a pattern, and on a text holding each
    pattern's own example it finds a match exactly when the feature is non-zero."""
    from whowrote.style.features import extract, feature_names

    names = feature_names("full")
    row = dict(zip(names, extract([TEXT], "full")[0], strict=True))
    for name in ("punc_emdash", "md_bold", "emoji", "italic_asterisk", "contraction_rate", "lex_hedges"):
        assert FEATURES[name].pattern and row[name] > 0
        assert re.search(FEATURES[name].pattern, TEXT), name


def test_overlaps_resolved_in_text_order_earlier_tell_wins_ties():
    text = "**bold** (perhaps) **x**"
    spans = highlight_spans(text, ["md_bold", "lex_hedges", "punc_paren", "md_bold"])
    assert [(s["feature"], text[s["start"]:s["end"]]) for s in spans] == [
        ("md_bold", "**"), ("md_bold", "**"), ("punc_paren", "("), ("lex_hedges", "perhaps"),
        ("md_bold", "**"), ("md_bold", "**")]
    # the same span from two features ("—" is an em-dash and, canonically, a double hyphen)
    assert [s["feature"] for s in highlight_spans("a — b", ["double_hyphen", "punc_emdash"])] == ["double_hyphen"]
    assert [s["feature"] for s in highlight_spans("a — b", ["punc_emdash", "double_hyphen"])] == ["punc_emdash"]
    ends = [(s["start"], s["end"]) for s in spans]
    assert all(a[1] <= b[0] for a, b in zip(ends, ends[1:], strict=False))


def test_one_span_cap():
    text = "—" * (3 * MAX_SPANS)
    assert len(highlight_spans(text, ["punc_emdash"])) == MAX_SPANS
    assert len(highlight_spans(text, ["punc_emdash"], limit=50)) == 50
