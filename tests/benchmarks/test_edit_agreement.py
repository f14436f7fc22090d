"""Edit agreement as an error signal (benchmarks/edit_agreement.py): the signals, the selective
accuracy and the decision rule."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from edit_agreement import decide, evaluate, selective_accuracy, signals  # noqa: E402


def test_instability_is_the_mean_total_variation_to_the_views():
    P = np.array([[0.7, 0.2, 0.1, 0.0], [0.25, 0.25, 0.25, 0.25]])
    same = P.copy()
    flipped = np.array([[0.1, 0.2, 0.7, 0.0], [0.25, 0.25, 0.25, 0.25]])
    s = signals(P, [same, flipped])
    np.testing.assert_allclose(s["confidence"], [0.3, 0.75])
    np.testing.assert_allclose(s["instability"], [0.3, 0.0])  # (0 + 0.6) / 2 for the first row
    np.testing.assert_allclose(s["both"], s["confidence"] + s["instability"])


def test_selective_accuracy_keeps_the_lowest_signals():
    right = np.array([True, True, False, False, True])
    s = np.array([0.1, 0.2, 0.9, 0.8, 0.3])
    assert selective_accuracy(right, s, 0.6) == 1.0  # rows 0, 1, 4
    assert selective_accuracy(right, -s, 0.6) == 1 / 3  # the worst three
    assert selective_accuracy(right, s, 0.01) == 1.0  # at least one row


class Flip:
    """Predicts CLAUDE where the first feature is positive, else CHATGPT, with confidence 0.9."""

    classes_ = np.array(["CHATGPT", "CLAUDE", "GEMINI", "OTHER"], dtype=object)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        P = np.full((len(X), 4), 0.1 / 3)
        P[np.arange(len(X)), np.where(X[:, 0] > 0, 1, 0)] = 0.9
        return P


def test_an_edit_that_flips_the_wrong_verdicts_ranks_them_first():
    y = np.array(["CLAUDE"] * 4 + ["CHATGPT"] * 4, dtype=object)
    X = np.array([[1.0]] * 6 + [[-1.0]] * 2)  # rows 4 and 5 are wrong (CLAUDE for CHATGPT texts)
    view = X.copy()
    view[4:6] *= -1  # the edit flips exactly the wrong verdicts
    got = evaluate(Flip(), X, [view], y)
    assert got["accuracy"] == 0.75
    assert got["error_auroc"]["confidence"] == 0.5  # every verdict equally sure: no ranking
    assert got["error_auroc"]["instability"] == 1.0 and got["error_auroc"]["both"] == 1.0
    assert got["selective_accuracy"]["instability"] > got["selective_accuracy"]["confidence"]


def _res(logo_auroc, logo_sel, in_genre_auroc) -> dict:
    return {"logo_mean": {"error_auroc": dict(zip(("confidence", "instability", "both"), logo_auroc, strict=True)),
                          "selective_accuracy": dict(zip(("confidence", "instability", "both"), logo_sel, strict=True))},
            "in_genre": {"error_auroc": dict(zip(("confidence", "instability", "both"), in_genre_auroc, strict=True))}}


def test_the_rule_needs_all_three_checks():
    got = decide(_res((0.60, 0.66, 0.64), (0.50, 0.53, 0.515), (0.80, 0.79, 0.77)))
    assert got["instability"]["adopt_if_fast_enough"]  # +0.06, +3 pts, -0.01
    assert got["both"]["checks"] == {"logo_auroc_up_0.05": False, "logo_selective_up_2pt": False,
                                     "in_genre_auroc_not_down_0.02": False}
    assert not decide(_res((0.60, 0.70, 0.6), (0.50, 0.519, 0.5), (0.8, 0.8, 0.8)))["instability"]["adopt_if_fast_enough"]
