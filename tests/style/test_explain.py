"""Tells, highlight spans and input checks."""

from __future__ import annotations

import re

import numpy as np
import pytest

from whowrote.style import highlight_patterns, load_model, tell_spans
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
    from whowrote.style.decision import decision_attributions

    model = load_model()
    names = model.feature_names_
    claude, gpt = list(model.classes_).index("CLAUDE"), list(model.classes_).index("CHATGPT")
    x = model.norms_[claude].copy()
    j = names.index("double_hyphen")  # in canonical form: every dash, em-dash or "--"
    x[j] = 40.0  # an extreme dash rate must be a CLAUDE tell
    D = decision_attributions(model, x[None, :])[0]
    tells = make_tells(model, x, D, claude, gpt, 6)
    dash = [t for t in tells if t.cue == "dashes"]
    assert dash and dash[0].favours == "CLAUDE" and dash[0].versus == "CHATGPT"
    assert dash[0].sentence.startswith("dashes (\u2014 or --): 40.0 per 1,000 characters, ")
    assert all(t.contribution > 0 for t in tells)


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
