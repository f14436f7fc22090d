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


def test_tells_are_the_strongest_supporting_cues_that_read_true(corpus):
    """Recomputed here from the attributions: group features by cue, keep cues with a true sentence,
    rank by summed support (predicted class vs runner-up); the tells must be exactly those, in order."""
    from whowrote.style.decision import decision_attributions
    from whowrote.style.explain import CUES, UNIT_SHORT, sentence

    model = load_model()
    texts = corpus[corpus["provider"] == "CLAUDE"].groupby("genre").head(2)["text"].tolist()
    X = model.features(texts)
    D = decision_attributions(model, X)
    P = model.predict_proba(X)
    names = model.feature_names_
    for i in range(len(texts)):
        target, versus = (int(k) for k in np.argsort(-P[i])[:2])
        support = D[i, target] - D[i, versus]
        cues: dict[str, list[int]] = {}
        for j in np.flatnonzero(support > 0):
            cues.setdefault(CUES.get(names[j], names[j]), []).append(int(j))
        true_cues = [c for c, js in sorted(cues.items(), key=lambda kv: -support[kv[1]].sum())
                     if any(sentence("x", X[i, j], UNIT_SHORT.get(FEATURES[names[j]].unit, ""), "A",
                                     model.norms_[target, j], "B", model.norms_[versus, j]) for j in js)]
        tells = make_tells(model, X[i], D[i], target, versus, 5)
        assert [t.cue for t in tells] == true_cues[:5]
        assert all(t.contribution > 0 and t.favours == model.classes_[target] for t in tells)


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
