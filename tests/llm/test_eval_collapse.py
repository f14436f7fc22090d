"""The two collapse signatures (spec §4.5) on synthetic eval histories."""

from __future__ import annotations

from whowrote.llm.collapse import Thresholds, detect_collapse


def summ(acc, trunc, dist, recalls=None, median_words=60):
    return {"accuracy": acc, "truncation_rate": trunc, "pred_dist": dist,
            "per_provider": {k: {"recall": v} for k, v in (recalls or {}).items()},
            "reason_words": {"median": median_words}}


HEALTHY = summ(0.40, 0.02, {"CLAUDE": 30, "CHATGPT": 35, "GEMINI": 33, "<none>": 2},
               {"CLAUDE": 0.4, "CHATGPT": 0.4, "GEMINI": 0.4})


def test_healthy_history_has_no_findings():
    assert detect_collapse([HEALTHY, HEALTHY, HEALTHY]) == []
    assert detect_collapse([]) == []


def test_truncation_collapse_and_rising_warning():
    late = summ(0.02, 0.88, {"CLAUDE": 3, "CHATGPT": 4, "GEMINI": 3, "<none>": 90},
                {"CLAUDE": 0.03, "CHATGPT": 0.03, "GEMINI": 0.03}, median_words=2400)
    f = detect_collapse([HEALTHY, HEALTHY, late])
    assert [(x.kind, x.severity) for x in f] == [("truncation", "collapse")]
    rising = summ(0.35, 0.30, {"CLAUDE": 25, "CHATGPT": 22, "GEMINI": 23, "<none>": 30},
                  {"CLAUDE": 0.35, "CHATGPT": 0.35, "GEMINI": 0.35})
    f = detect_collapse([HEALTHY, rising])
    assert [(x.kind, x.severity) for x in f] == [("truncation", "warning")]
    # high truncation alone, with accuracy intact, is not a collapse
    ok = summ(0.40, 0.55, {"CLAUDE": 15, "CHATGPT": 15, "GEMINI": 15, "<none>": 55})
    assert all(x.severity != "collapse" for x in detect_collapse([ok, ok]))


def test_class_collapse():
    g = summ(0.33, 0.05, {"CLAUDE": 5, "CHATGPT": 10, "GEMINI": 85, "<none>": 0},
             {"CLAUDE": 0.05, "CHATGPT": 0.1, "GEMINI": 0.97})
    f = detect_collapse([HEALTHY, g])
    assert ("class", "collapse") in [(x.kind, x.severity) for x in f]
    assert "GEMINI" in f[0].message
    # two-class collapse: the third class gets nothing, absorbing once its recall stays 0
    two = summ(0.6, 0.0, {"CLAUDE": 50, "CHATGPT": 0, "GEMINI": 50, "<none>": 0},
               {"CLAUDE": 0.9, "CHATGPT": 0.0, "GEMINI": 0.9})
    kinds = [(x.kind, x.severity, x.message) for x in detect_collapse([two, two])]
    assert any("CHATGPT recall" in m for *_, m in kinds)
    assert any("CLAUDE+GEMINI" in m or "GEMINI+CLAUDE" in m for *_, m in kinds)
    # parse failures do not count toward a class's share (they are the format rule's)
    mostly_none = summ(0.2, 0.0, {"CLAUDE": 10, "CHATGPT": 9, "GEMINI": 11, "<none>": 70})
    assert [x.kind for x in detect_collapse([mostly_none])] == ["format"]


def test_answers_that_finish_but_do_not_parse_are_a_format_collapse():
    # session 28, seed 10 at step 10: CHATGPT written as "CHATG", 45 of 120 answers unparsed,
    # 1 cut off; the class rule alone had called it "GEMINI+CLAUDE take 100% of predictions"
    s10 = summ(0.49, 1 / 120, {"CLAUDE": 33, "CHATGPT": 0, "GEMINI": 42, "<none>": 45})
    f = detect_collapse([HEALTHY, s10])
    assert [(x.kind, x.severity) for x in f] == [("format", "collapse"), ("class", "collapse")]
    assert f[0].message == "37% of answers finished but did not parse"
    assert f[1].message == "GEMINI+CLAUDE take 100% of parsed predictions (38% unparsed)"
    # the summary's own parse_fail_rate wins over the marginal; a few failures only warn
    few = {**summ(0.4, 0.0, {"CLAUDE": 40, "CHATGPT": 40, "GEMINI": 40}), "parse_fail_rate": 0.15}
    assert [(x.kind, x.severity) for x in detect_collapse([few])] == [("format", "warning")]
    # failures that are cut-off completions are truncation's, not format's
    cut = {**few, "truncation_rate": 0.15}
    assert detect_collapse([cut]) == []
    # the summary's own count of finished-but-unparsed answers wins over the subtraction: cut-off
    # answers that still parse (verdict first) must not hide 30 % of broken ones
    parsed_cut = {**summ(0.5, 0.25, {"CLAUDE": 40, "CHATGPT": 20, "GEMINI": 24, "<none>": 36}),
                  "parse_fail_rate": 0.3, "unparsed_finished_rate": 0.3}
    assert [(x.kind, x.severity) for x in detect_collapse([parsed_cut])] == [("format", "collapse")]
    # summaries with pred_share only (no counts, no rates) read the failures off the shares
    shares = {"accuracy": 0.4, "truncation_rate": 0.0, "pred_share": {"CLAUDE": 0.3, "CHATGPT": 0.0,
                                                                     "GEMINI": 0.35, "<none>": 0.35}}
    f = detect_collapse([shares])
    assert [(x.kind, x.severity) for x in f] == [("format", "collapse"), ("class", "collapse")]
    assert f[1].message == "GEMINI+CLAUDE take 100% of parsed predictions (35% unparsed)"


def test_thresholds_are_configurable():
    g = summ(0.4, 0.0, {"CLAUDE": 70, "CHATGPT": 15, "GEMINI": 15, "<none>": 0})
    assert [x.severity for x in detect_collapse([g])] == ["warning"]
    assert [x.severity for x in detect_collapse([g], Thresholds(class_share=0.7))] == ["collapse"]
    broken = summ(0.4, 0.0, {"CLAUDE": 30, "CHATGPT": 30, "GEMINI": 35, "<none>": 5})
    assert detect_collapse([broken]) == []  # 5 % finished but unparsed: under the warning
    assert [(x.kind, x.severity) for x in detect_collapse([broken], Thresholds(format_warn=0.02, format_collapse=0.05))] \
        == [("format", "collapse")]


def test_a_vanishing_class_is_a_warning():
    # session 7's lr-5e-6 run on the inner val: CLAUDE 0.325 -> 0.20 -> 0.10 while the others rose
    start = summ(0.30, 0.0, {"CLAUDE": 45, "CHATGPT": 38, "GEMINI": 37}, {"CLAUDE": 0.325, "CHATGPT": 0.25, "GEMINI": 0.325})
    mid = summ(0.45, 0.0, {"CLAUDE": 13, "CHATGPT": 24, "GEMINI": 83}, {"CLAUDE": 0.2, "CHATGPT": 0.3, "GEMINI": 0.85})
    late = summ(0.40, 0.0, {"CLAUDE": 13, "CHATGPT": 71, "GEMINI": 36}, {"CLAUDE": 0.1, "CHATGPT": 0.675, "GEMINI": 0.425})
    assert not [x for x in detect_collapse([start, mid]) if "vanishing" in x.message]
    f = detect_collapse([start, mid, late])
    assert [(x.kind, x.severity, x.message) for x in f] == [("class", "warning", "CLAUDE recall 0.33 -> 0.10 (vanishing)")]
    # a class that never had recall is not vanishing; one at ~0 is the (absorbing) collapse rule's
    assert not detect_collapse([summ(0.3, 0.0, {"CLAUDE": 40, "CHATGPT": 40, "GEMINI": 40},
                                     {"CLAUDE": 0.05, "CHATGPT": 0.5, "GEMINI": 0.5})] * 2)
