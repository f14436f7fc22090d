"""Calibration weightings (benchmarks/calibration_weights.py): the three fits and the decision rule."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from calibration_weights import decide, fit, group_nll, score  # noqa: E402


def _group(n: int, sharpness: float, accuracy: float, seed: int) -> dict[str, np.ndarray]:
    """``n`` rows of 4-way logits, right with probability ``accuracy``, as sure as ``sharpness``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    top = np.where(rng.random(n) < accuracy, y, (y + 1) % 4)
    L = rng.normal(0, 0.1, (n, 4))
    L[np.arange(n), top] += sharpness
    return {"L": L, "d": np.zeros(n), "y": y}


def test_the_big_group_decides_the_pooled_fit_and_not_the_genre_equal_one():
    big = _group(4000, 3.0, 0.9, 0)  # sure and mostly right: wants a low temperature
    small = _group(200, 3.0, 0.3, 1)  # sure and mostly wrong: wants a high temperature
    ins = _group(400, 3.0, 0.9, 2)
    t_pooled, _ = fit("pooled", [big, small], ins)
    t_equal, _ = fit("genre-equal", [big, small], ins)
    assert t_equal > t_pooled  # the small group's pull counts as much as the big one's
    t_worst, s_worst = fit("worst-genre", [big, small], ins)
    worst = {c: max(group_nll(g["L"], g["d"], g["y"], *fit(c, [big, small], ins)) for g in (big, small))
             for c in ("pooled", "genre-equal")}
    assert max(group_nll(g["L"], g["d"], g["y"], t_worst, s_worst) for g in (big, small)) <= worst["pooled"]
    with pytest.raises(ValueError):
        fit("nope", [big], ins)


def test_score_reads_ece_and_confidence():
    g = _group(500, 5.0, 0.5, 3)
    sharp, flat = score(g["L"], g["d"], g["y"], 1.0, 0.0), score(g["L"], g["d"], g["y"], 20.0, 0.0)
    assert sharp["mean_confidence"] > 0.9 and flat["mean_confidence"] < 0.3
    assert sharp["ece"] > 0.35 and flat["ece"] > 0.2  # the right temperature lies between
    middle = score(g["L"], g["d"], g["y"], *fit("pooled", [g], g))
    assert middle["ece"] < 0.05 and sharp["accuracy"] == middle["accuracy"]


def _cand(mean: float, worst: float, topic: float) -> dict:
    return {"mean_ece": mean, "worst_ece": worst, "topic_holdout": {"ece": topic}}


def test_the_rule_needs_a_lower_mean_no_worse_worst_genre_and_in_genre_kept():
    res = {"candidates": {"pooled": _cand(0.19, 0.46, 0.043), "genre-equal": _cand(0.16, 0.45, 0.05),
                          "worst-genre": _cand(0.16, 0.47, 0.04)}}
    got = decide(res)
    assert got["genre-equal"]["adopt"]
    assert got["worst-genre"]["checks"] == {"mean_ece_down_0.02": True, "worst_genre_ece_not_up": False,
                                            "topic_holdout_ece_up_at_most_0.01": True}
    res["candidates"]["genre-equal"] = _cand(0.175, 0.45, 0.05)  # only 0.015 lower
    assert not decide(res)["genre-equal"]["adopt"]
