"""Length routing (benchmarks/length_route.py): the crops, the routing weights and the decision rule."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from length_route import CROP_WORDS, crops, decide, general_weight, routed_proba, words  # noqa: E402
from test_plain_route import Member  # noqa: E402


def test_crops_cut_real_texts_to_60_400_words_and_keep_short_ones_whole(corpus_sample):
    texts = corpus_sample([("blogs", 3), ("chat", 6), ("longform", 3)])
    cut = crops(texts, seed=0)
    assert cut == crops(texts, seed=0) and cut != crops(texts, seed=1)  # seeded
    for t, c in zip(texts, cut, strict=True):
        assert t.startswith(c)
        n, whole = len(c.split()), len(t.split())
        assert min(whole, CROP_WORDS[0]) <= n <= min(whole, CROP_WORDS[1])
    assert any(len(c.split()) < len(t.split()) for t, c in zip(texts, cut, strict=True))


def test_routing_weights_by_word_count():
    n = np.array([10, 149, 150, 249, 250, 275, 400, 5000])
    np.testing.assert_array_equal(general_weight(n, "current"), 1.0)
    np.testing.assert_array_equal(general_weight(n, "hard"), [0, 0, 0, 0, 1, 1, 1, 1])
    np.testing.assert_allclose(general_weight(n, "soft"), [0, 0, 0, 99 / 250, 0.4, 0.5, 1, 1])
    with pytest.raises(ValueError):
        general_weight(n, "nope")
    P = routed_proba(Member(0), Member(1), np.zeros((len(n), 3)), n, "soft")
    np.testing.assert_allclose(P[:, 0], general_weight(n, "soft"))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert list(words(["a b  c\nd", ""])) == [4, 0]


def _inner(raw: float, drops: dict[str, float]) -> dict:
    return {"edits": {"raw": {"accuracy": raw}}, "drops": drops}


def test_the_rule_needs_two_points_on_the_first_800_and_no_loss_elsewhere():
    base = {"first_800_chars": 0.115, "strip_markdown": 0.042}
    results = {"inner": {"current": _inner(0.800, base),
                         "hard": _inner(0.798, {"first_800_chars": 0.090, "strip_markdown": 0.045}),  # passes
                         "soft": _inner(0.800, {"first_800_chars": 0.100, "strip_markdown": 0.042})}}  # 1.5 pts: fails
    got = decide(results)
    assert got["hard"]["adopt"] and not got["soft"]["adopt"]
    assert got["soft"]["checks"] == {"first_800_drop_shrinks_2pt": False, "other_worst_drop_not_up_0.5pt": True,
                                     "raw_not_down_0.5pt": True}
    results["inner"]["hard"] = _inner(0.790, {"first_800_chars": 0.050, "strip_markdown": 0.042})  # raw -1 point
    assert not decide(results)["hard"]["adopt"]
    results["inner"]["hard"] = _inner(0.800, {"first_800_chars": 0.050, "strip_markdown": 0.060})  # other edit worse
    assert not decide(results)["hard"]["adopt"]
    results["inner"]["hard"] = _inner(0.800, {"first_800_chars": 0.050, "strip_markdown": 0.042})
    results["logo"] = {"mean_3way": {"current": 0.726, "hard": 0.715, "soft": 0.726}}  # LOGO -1.1 points
    assert decide(results)["hard"]["checks"]["logo_3way_not_down_0.5pt"] is False
