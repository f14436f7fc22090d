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


GARDEN = ("Gardening rewards patience. Soil takes years to build, and the best beds are the ones left alone.\n\n"
          "Water in the morning. Mulch in the autumn. Plant what grows well where you live.")
THANKS = "In summary, let me know if you'd like more tips: I'm happy to help!"


def test_a_cue_carried_by_the_closing_paragraph_is_fragile_and_the_same_cue_inside_is_not():
    """The phrases of a closing "let me know" paragraph are erased by cutting the first and last
    paragraphs (edits.drop_ends): fragile. The same sentence inside the middle paragraph survives the
    cut (its rate only rises as the text shrinks): the same tells, not fragile."""
    model = load_model()
    at_end = "Sure! Here's a short piece on gardening:\n\n" + GARDEN + "\n\n" + THANKS
    first, middle = GARDEN.split("\n\n")
    inside = first + "\n\n" + middle.replace("Mulch", THANKS + " Mulch") + "\n\nPlant it, and the beds reward you."
    ends = {t.cue: t.fragile for t in model.attribute([at_end])[0].tells}
    mid = {t.cue: t.fragile for t in model.attribute([inside])[0].tells}
    assert ends["ph_let_me"] and ends["ph_in_summary"]
    assert mid["ph_let_me"] is False and mid["ph_in_summary"] is False
    # without the cut's evidence the phrases are not fragile cues of any kind
    from whowrote.style.explain import is_fragile

    assert not is_fragile(model, "ph_let_me", True) and not is_fragile(model, "ph_in_summary", True)


def test_ends_carry_counts_the_pattern_in_the_first_and_last_paragraphs():
    from whowrote.style.explain import ends_carry
    from whowrote.typography import paragraph_ends

    parts = paragraph_ends("Let me start.\n\nlet me say, let me add.\n\nLet me know! Let me go.".lower())
    assert parts == ("let me start.", "let me say, let me add.", "let me know! let me go.")
    assert ends_carry(parts, "ph_let_me")                        # 3 at the ends, 2 inside
    assert not ends_carry(("x", "let me, let me", "let me"), "ph_let_me")  # 1 at the ends, 2 inside
    assert not ends_carry(("x", "", "y"), "ph_let_me")            # none anywhere
    assert not ends_carry(("Let me.", "", ""), "avg_sent_len_words")  # not a counted pattern


def test_no_feature_pattern_matches_an_empty_string():
    """ends_carry counts matches with findall, which would count empty ones too."""
    import re as regex

    from whowrote.style import FEATURES

    text = "Sure! Here's a **bold** list:\n\n- one, two; three: (four) \u2014 'five' \"six\"...\n\n# Head\n\nLet me know.\n"
    for name, spec in FEATURES.items():
        if spec.pattern:
            assert all(m.end() > m.start() for m in regex.finditer(spec.pattern, text)), name
            assert regex.search(spec.pattern, "") is None, name


def test_the_ends_patterns_match_lower_cased_text_as_the_features_match_any_case(corpus):
    """ends_carry matches the checked families' patterns without "(?i)" against lower-cased text."""
    import re as regex

    from whowrote.style import FEATURES
    from whowrote.style.explain import ENDS_FAMILIES, _ends_pattern

    texts = corpus.groupby("genre").head(15)["text"].tolist() + ["HERE'S THE KEY: Let Me Know. In Summary, However!"]
    checked = [n for n, s in FEATURES.items() if s.family in ENDS_FAMILIES and s.pattern]
    assert len(checked) >= 25
    for name in checked:
        pattern = FEATURES[name].pattern
        assert pattern.startswith("(?i)") and not any(c.isupper() for c in pattern[4:]), name
        for text in texts:
            assert len(_ends_pattern(name).findall(text.lower())) == len(regex.findall(pattern, text)), name
