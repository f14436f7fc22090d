"""Genre routing (benchmarks/genre_route.py): which member answers which row, and the decision rule."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from genre_route import HARD_P, decide, fit_router, routed_proba  # noqa: E402
from test_plain_route import CLASSES, Member  # noqa: E402


class Router:
    """A router's stand-in: fixed genre probabilities per row."""

    def __init__(self, G: np.ndarray) -> None:
        self.classes_, self.G = np.array(["debate", "fiction"], dtype=object), G

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return self.G


class ThreeLabels(Member):
    """A specialist fitted on a genre without one label (no GEMINI): its columns are aligned by name."""

    def __init__(self) -> None:
        self.classes_ = np.array(["CHATGPT", "CLAUDE", "OTHER"], dtype=object)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return np.tile([0.0, 0.0, 1.0], (len(X), 1))


def test_hard_and_soft_routing_send_rows_to_the_top_genres_specialist():
    G = np.array([[0.95, 0.05], [0.6, 0.4], [0.02, 0.98]])
    X = np.zeros((3, 2))
    specialists = {"debate": Member(1), "fiction": ThreeLabels()}
    hard = routed_proba(Member(0), specialists, Router(G), X, "hard")
    assert list(CLASSES[hard.argmax(axis=1)]) == ["CLAUDE", "CHATGPT", "OTHER"]  # row 2: P 0.6 < 0.9 -> general
    soft = routed_proba(Member(0), specialists, Router(G), X, "soft")
    np.testing.assert_allclose(soft[:, 0], [0.05, 0.4, 0.02])  # the general model's share: 1 - p(top genre)
    np.testing.assert_allclose(soft.sum(axis=1), 1.0)
    np.testing.assert_array_equal(routed_proba(Member(0), specialists, Router(G), X, "current")[:, 0], 1.0)
    with pytest.raises(ValueError):
        routed_proba(Member(0), specialists, Router(G), X, "nope")
    assert HARD_P == 0.9


def test_the_router_learns_genres_from_features():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (40, 5)), rng.normal(3, 1, (40, 5))])
    genres = np.array(["debate"] * 40 + ["fiction"] * 40, dtype=object)
    router = fit_router(X, genres)
    G = router.predict_proba(X)
    assert (router.classes_[G.argmax(axis=1)] == genres).mean() > 0.95


def test_the_rule_needs_debates_and_fiction_up_and_no_genre_down():
    def inner(raw: float, per: dict[str, float], worst: float = 0.10) -> dict:
        return {"edits": {"raw": {"accuracy": raw}}, "worst_drop": worst, "per_genre": per}

    base = {"chat": 0.65, "debate": 0.946, "fiction": 0.884}
    results = {"inner": {"current": inner(0.80, base),
                         "hard": inner(0.81, {"chat": 0.66, "debate": 0.97, "fiction": 0.91}),  # passes
                         "soft": inner(0.81, {"chat": 0.60, "debate": 0.97, "fiction": 0.91})}}  # chat -5: fails
    got = decide(results)
    assert got["hard"]["adopt"] and not got["soft"]["adopt"]
    assert got["soft"]["checks"]["no_genre_down_0.5pt"] is False
    results["inner"]["hard"] = inner(0.81, {"chat": 0.66, "debate": 0.97, "fiction": 0.89})  # fiction +0.6 only
    assert decide(results)["hard"]["checks"]["debate_and_fiction_up_2pt"] is False
    results["inner"]["hard"] = inner(0.81, {"chat": 0.66, "debate": 0.97, "fiction": 0.91}, worst=0.12)  # edits worse
    assert decide(results)["hard"]["checks"]["worst_drop_not_up_0.5pt"] is False
