"""The self-training trial (benchmarks/self_train_genre.py): which texts it pseudo-labels, and its rule."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from self_train_genre import OTHER_I, confident_draw, decide, pseudo_labels  # noqa: E402


def test_confident_draw_takes_the_most_confident_per_label_and_fills_up():
    pred = np.array([0, 0, 0, 1, 1, 2, 0, 1])
    conf = np.array([0.9, 0.5, 0.7, 0.6, 0.8, 0.4, 0.95, 0.3])
    pool = np.arange(len(pred))
    got = confident_draw(pool, pred, conf, 3)
    # one per label, each its label's most confident: 6 (0.95), 4 (0.8), 5 (the only 2)
    assert got.tolist() == [4, 5, 6]
    # label 2 runs out after one: the others fill up, most confident first
    assert confident_draw(pool, pred, conf, 6).tolist() == [0, 2, 3, 4, 5, 6]
    assert len(confident_draw(pool, pred, conf, 100)) == len(pred)  # never more than there are
    assert confident_draw(pool[:0], pred[:0], conf[:0], 5).tolist() == []


def test_pseudo_labels_three_drops_other_verdicts():
    P = np.array([[0.6, 0.2, 0.1, 0.1], [0.1, 0.1, 0.1, 0.7], [0.2, 0.5, 0.2, 0.1]])
    eligible, label, conf = pseudo_labels(P, "four")
    assert eligible.tolist() == [True, True, True] and label.tolist() == [0, OTHER_I, 1]
    assert conf.tolist() == [0.6, 0.7, 0.5]
    eligible, label, _ = pseudo_labels(P, "three")
    assert eligible.tolist() == [True, False, True]


def test_decide_needs_a_mean_gain_and_no_genre_hurt():
    def fold(logo: float, run: float) -> dict:
        return {"logo": {"accuracy_3way": logo}, "runs": {"four100": {"accuracy_3way": run}}}

    good = {"a": fold(0.70, 0.78), "b": fold(0.80, 0.80)}  # +0.04 mean, none lower
    assert decide(good)["four100"]["adopt"]
    hurt = {"a": fold(0.70, 0.85), "b": fold(0.80, 0.78)}  # +0.065 mean, but b drops 0.02
    assert not decide(hurt)["four100"]["adopt"]
    small = {"a": fold(0.70, 0.72), "b": fold(0.80, 0.81)}  # +0.015 mean
    assert not decide(small)["four100"]["adopt"]
