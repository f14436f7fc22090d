"""EM prior re-estimation (benchmarks/prior_shift.py) on posteriors whose true prior shift is known."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import numpy as np  # noqa: E402
from prior_shift import adapt, em_priors, training_prior  # noqa: E402


def _posteriors(prior: list[float], n: int = 20000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Exact posteriors under a uniform prior of three unit Gaussians at -2, 0, 2, for samples drawn
    with ``prior``."""
    rng = np.random.default_rng(seed)
    mu = np.array([-2.0, 0.0, 2.0])
    y = rng.choice(3, n, p=prior)
    like = np.exp(-(rng.normal(mu[y], 1.0)[:, None] - mu) ** 2 / 2)
    return like / like.sum(axis=1, keepdims=True), y


def test_em_recovers_a_shifted_prior_and_the_adapted_verdicts_are_better():
    P, y = _posteriors([0.7, 0.2, 0.1])
    uniform = np.full(3, 1 / 3)
    pi = em_priors(P, uniform)
    np.testing.assert_allclose(pi, [0.7, 0.2, 0.1], atol=0.02)
    assert (adapt(P, uniform, pi).argmax(1) == y).mean() > (P.argmax(1) == y).mean() + 0.02


def test_em_leaves_an_unshifted_prior_alone_and_a_class_without_training_prior_at_zero():
    P, _ = _posteriors([1 / 3, 1 / 3, 1 / 3])
    np.testing.assert_allclose(em_priors(P, np.full(3, 1 / 3)), 1 / 3, atol=0.02)
    pi = em_priors(P, np.array([0.5, 0.5, 0.0]))
    assert pi[2] == 0.0 and abs(pi.sum() - 1) < 1e-9
    q = adapt(P, np.array([0.5, 0.5, 0.0]), pi)
    np.testing.assert_allclose(q.sum(axis=1), 1.0)
    assert (q[:, 2] == 0).all()


def test_training_prior_weighs_cells_as_the_recipe_does():
    # two genres: genre a all class 0 (3 rows), genre b classes 0 and 1 (1 and 4 rows)
    yi = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    genres = np.array(["a", "a", "a", "b", "b", "b", "b", "b"], dtype=object)
    pi = training_prior(yi, genres, np.arange(8))
    # weights 1/sqrt(n_genre * n_cell): a's rows 1/3 each, b's class-0 row 1/sqrt(5), class-1 rows 1/sqrt(20)
    w0, w1 = 3 / 3 + 1 / np.sqrt(5), 4 / np.sqrt(20)
    np.testing.assert_allclose(pi[:2], [w0 / (w0 + w1), w1 / (w0 + w1)])
    assert pi[2:].sum() == 0
