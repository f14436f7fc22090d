"""Spans of the tells: the style package's patterns, the fallback table, overlaps, limits."""

from __future__ import annotations

import pytest

from whowrote.serve.highlight import fallback_pattern, model_pattern_source, spans_for

TEXT = "Hello — world 😀. **Bold** and *it* here; isn't it?\n## Head\nPerhaps very clear.\n"


def test_style_patterns_are_used():
    pytest.importorskip("whowrote.style.highlight", reason="the classifier's highlight module is not installed")
    source = model_pattern_source(None)
    spans = spans_for(TEXT, [{"feature": "punc_emdash"}, {"feature": "md_h2_h3"}, {"feature": "lex_hedges"},
                             {"feature": "avg_sent_len_words"}], source)
    got = {(s["feature"], TEXT[s["start"]:s["end"]]) for s in spans}
    assert got == {("punc_emdash", "—"), ("md_h2_h3", "## Head"), ("lex_hedges", "Perhaps")}


@pytest.mark.parametrize(("feature", "label", "expect"), [
    ("em_dash_rate", "", "—"), ("x", "Em-dashes", "—"), ("hedges_per_1k", "", "Perhaps"),
    ("intensifier_rate", "", "very"), ("emoji", "", "😀"), ("italic_asterisk", "", "*it*"),
    ("contraction_rate", "", "isn't"), ("markdown_headings", "", "## Head"),
])
def test_fallback_patterns(feature, label, expect):
    pattern = fallback_pattern(feature, label)
    assert pattern is not None and pattern.search(TEXT).group(0) == expect


@pytest.mark.parametrize("feature", ["layout_score", "avg_sent_len_words", "type_token_ratio", "sent_len_std"])
def test_no_fallback_for_whole_text_measures(feature):
    assert fallback_pattern(feature) is None


def test_overlaps_resolved_and_spans_given_by_tell_win():
    tells = [{"feature": "bold", "spans": [[17, 25], {"start": 0, "end": 5}]},
             {"feature": "hedges"},  # no pattern in any source but the fallback table
             {"feature": "md_bold_markers", "spans": [[17, 19]]}]  # inside the first: dropped
    spans = spans_for(TEXT, tells, source=lambda f: None)
    assert [(s["feature"], s["start"], s["end"]) for s in spans][:2] == [("bold", 0, 5), ("bold", 17, 25)]
    assert all(s["feature"] != "md_bold_markers" for s in spans)
    assert any(TEXT[s["start"]:s["end"]] == "Perhaps" for s in spans)
    ends = [(s["start"], s["end"]) for s in spans]
    assert all(a[1] <= b[0] for a, b in zip(ends, ends[1:], strict=False))


def test_span_limit_and_bad_spans_ignored():
    text = "—" * 10_000
    assert len(spans_for(text, [{"feature": "em_dash"}], limit=50)) == 50
    assert spans_for("abc", [{"feature": "x", "spans": [[2, 1], [0, 99], [-1, 2]]}]) == []
