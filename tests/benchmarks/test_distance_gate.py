"""Distance-gate trial (benchmarks/distance_gate.py): which fit reads which row, and the decision rule."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from distance_gate import decide, gated_proba, no_copies  # noqa: E402

from whowrote.style.train import fit_augmented  # noqa: E402

CLASSES = np.array(["CHATGPT", "CLAUDE", "GEMINI", "OTHER"], dtype=object)


class Fit:
    """A fitted model's stand-in: one class for every row, and a given distance per row."""

    def __init__(self, k: int, dist: np.ndarray | None = None) -> None:
        self.classes_, self.k, self.dist = CLASSES, k, dist

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        P = np.zeros((len(X), len(CLASSES)))
        P[:, self.k] = 1.0
        return P

    def distance(self, X: np.ndarray) -> np.ndarray:
        return self.dist


def test_far_rows_go_to_the_fit_with_copies_near_ones_to_the_other() -> None:
    X = np.zeros((4, 3))
    P, far = gated_proba(Fit(0, np.array([0.1, 2.0, 0.5, 3.0])), Fit(1), X, tau=1.0)
    assert far.tolist() == [False, True, False, True]
    assert CLASSES[P.argmax(axis=1)].tolist() == ["CLAUDE", "CHATGPT", "CLAUDE", "CHATGPT"]
    with pytest.raises(ValueError, match="share their classes"):
        other = Fit(1)
        other.classes_ = CLASSES[::-1]
        gated_proba(Fit(0, np.zeros(4)), other, X, tau=1.0)


def test_no_copies_fits_the_unedited_rows_only(corpus_sample) -> None:
    from whowrote.style import StyleModel

    texts = corpus_sample([("chat", 16), ("longform", 8)])
    X = StyleModel().features(texts)
    y = np.array(["CLAUDE", "CHATGPT", "GEMINI", "OTHER"] * (len(texts) // 4), dtype=object)
    genres = np.array(["chat"] * 16 + ["longform"] * 8, dtype=object)
    plain = fit_augmented(X, no_copies(X), y, genres, feature_set="full", calibrate=False)
    same = StyleModel(feature_set="full", calibrate=False).fit(X, y, genres=genres)
    assert np.allclose(plain.predict_proba(X), same.predict_proba(X))


def test_decision_needs_every_check() -> None:
    def inner(raw, dg, md, worst):
        return {"edits": {"raw": {"accuracy": raw, "in_genre": dg}}, "md_drop": md, "worst_drop": worst}

    def logo(gated_blog):
        return {"blog": {"current": {"accuracy_3way": 0.84}, "gated": {"accuracy_3way": gated_blog}},
                "mean_3way": {"current": 0.74, "gated": 0.74}}

    base = inner(0.79, 0.90, 0.05, 0.12)
    assert decide({"current": base, "gated": inner(0.80, 0.92, 0.05, 0.12)}, logo(0.84))["adopt"]
    small = decide({"current": base, "gated": inner(0.80, 0.905, 0.05, 0.12)}, logo(0.84))
    assert not small["adopt"] and not small["checks"]["debate_fiction_up_1pt"]
    blog = decide({"current": base, "gated": inner(0.80, 0.92, 0.05, 0.12)}, logo(0.80))
    assert not blog["adopt"] and not blog["checks"]["no_logo_genre_down_2pt"]
