"""Tells, highlight spans and input checks."""

from __future__ import annotations

import re

import numpy as np
import pytest

from whowrote.style import FEATURES, highlight_patterns, load_model, tell_spans
from whowrote.style.explain import fmt, make_tells
from whowrote.style.textcheck import inspect_text


def test_every_highlight_pattern_compiles_and_spans_are_right():
    pats = highlight_patterns("full")
    assert "punc_emdash" in pats and "md_bold" in pats and "w_however" in pats
    for p in pats.values():
        re.compile(p)
    text = "One \u2014 two \u2014 three. **Bold** and However, however."
    assert tell_spans(text, "punc_emdash") == [(4, 5), (10, 11)]
    assert [text[a:b] for a, b in tell_spans(text, "w_however")] == ["However", "however"]
    assert [text[a:b] for a, b in tell_spans(text, "md_bold")] == ["**", "**"]
    assert tell_spans(text, "avg_sent_len_words") == []  # not a local feature
    with pytest.raises(KeyError):
        tell_spans(text, "no_such_feature")


def test_tells_point_at_the_strongest_supporting_feature():
    model = load_model()
    names = model.feature_names_
    x = model.norms_[list(model.classes_).index("CLAUDE")].copy()
    j = names.index("punc_emdash")
    x[j] = 40.0  # an extreme em-dash rate must be the top CLAUDE tell
    contrib = model.contributions(x[None, :])[0]
    tells = make_tells(model, x, contrib, list(model.classes_).index("CLAUDE"), 3)
    assert tells[0].feature == "punc_emdash" and tells[0].favours == "CLAUDE"
    assert tells[0].sentence.startswith("em-dashes: 40.0 per 1,000 characters, typical of CLAUDE (")
    assert all(t.contribution > 0 for t in tells)
    assert tells[0].label == FEATURES["punc_emdash"].label


def test_fmt():
    assert (fmt(6.14), fmt(0.034), fmt(1250.0), fmt(0.0), fmt(0.0004)) == ("6.1", "0.03", "1,250", "0.0", "0.000")


@pytest.mark.parametrize(("text", "skip", "uncertain", "warning"), [
    ("", True, True, "empty"),
    ("\x00\x01binary", True, True, "binary"),
    ("\u8fd9\u662f\u4e2d\u6587\u3002" * 100 + " a b c d e f g h i j k l m n o p q r s t u", False, True, "English"),
    ("<html><body>" + "<p>Some words in a paragraph here.</p>" * 10 + "</body></html>", False, False, "HTML"),
])
def test_inspect_text(text, skip, uncertain, warning):
    chk = inspect_text(text)
    assert chk.skip is skip and chk.force_uncertain is uncertain
    assert any(warning in w for w in chk.warnings)
    if warning == "HTML":
        assert "<p>" not in chk.text and "Some words" in chk.text


def test_attribute_no_attribution_is_uniform():
    att = load_model().attribute([""])[0].to_dict()
    assert att["uncertain"] and att["provider"] == "OTHER" and att["tells"] == []
    assert np.allclose(list(att["probabilities"].values()), 0.25)


def _reads_as_stated(t) -> bool:
    vs = t.sentence.rsplit(" vs ", 1)[1].split(" (")[0]
    return abs(t.value - t.norms[t.favours]) <= abs(t.value - t.norms[vs])


def test_tells_whose_sentence_is_true_come_first(corpus):
    """'value, typical of X (a) vs Y (b)' must not lead with a value that sits nearer Y's norm."""
    model = load_model()
    texts = corpus.groupby("genre").head(15)["text"].tolist()
    n_mixed = 0
    for a in model.attribute(texts, n_tells=200):  # all supporting terms, so both kinds appear
        flags = [_reads_as_stated(t) for t in a.tells]
        assert flags == sorted(flags, reverse=True), [t.sentence for t in a.tells]
        n_mixed += (True in flags) and (False in flags)
        assert all(t.contribution >= 0 for t in a.tells)  # rounded to 4 decimals
    assert n_mixed > 0  # the corpus does produce terms that read wrongly: the ordering is exercised
