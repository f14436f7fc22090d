"""Probability calibration (temperature scaling) and its measures (ECE, Brier, reliability bins).

Temperature scaling divides the classifier's logits by a temperature ``T`` fitted on out-of-fold
predictions: it keeps the ranking (so accuracy is unchanged) and fixes over-confidence. One
scalar cannot serve texts like the training data (sharp, mostly right) and texts unlike it
(often wrong): fitted on shifted texts it makes in-genre verdicts underconfident, fitted in-genre
it makes shifted ones overconfident. So the temperature depends on the text's distance ``d`` to
the training data (``whowrote.style.ood``): ``T(d) = T0 * (1 + d) ** slope`` with ``slope >= 0``,
both fitted by likelihood on in-genre and out-of-genre out-of-fold predictions together
(:func:`fit_distance_temperature`). ``slope = 0`` is plain temperature scaling.
"""

from __future__ import annotations

import numpy as np


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    z = np.asarray(logits, dtype=np.float64) / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def nll(logits: np.ndarray, y: np.ndarray, temperature: float) -> float:
    p = softmax(logits, temperature)
    return float(-np.mean(np.log(np.clip(p[np.arange(len(y)), y], 1e-12, None))))


def fit_temperature(logits: np.ndarray, y: np.ndarray, lo: float = 0.05, hi: float = 20.0) -> float:
    """The ``T`` in [lo, hi] minimising the negative log-likelihood of ``y`` (integer classes),
    searched on log T (the NLL is unimodal in T). scipy comes with scikit-learn, which ``fit`` needs."""
    from scipy.optimize import minimize_scalar

    res = minimize_scalar(lambda log_t: nll(logits, y, float(np.exp(log_t))), bounds=(np.log(lo), np.log(hi)),
                          method="bounded", options={"xatol": 1e-6})
    return float(np.exp(res.x))


def temperatures(distances: np.ndarray, t0: float, slope: float) -> np.ndarray:
    """``T(d) = t0 * (1 + d) ** slope`` per row (distances below 0 count as 0)."""
    return t0 * np.power(1.0 + np.maximum(np.asarray(distances, dtype=np.float64), 0.0), slope)


def conditioned(P: np.ndarray, classes, labels) -> np.ndarray:
    """``P`` (columns ``classes``) conditioned on the label being one of ``labels``: the other
    columns 0, each row renormalised (``P(c | x, c in labels)``; the order within ``labels`` kept)."""
    P = np.where(np.isin([str(c) for c in classes], list(labels)), P, 0.0)
    return P / P.sum(axis=1, keepdims=True)


def scaled_softmax(logits: np.ndarray, temps: np.ndarray) -> np.ndarray:
    """Softmax of each row's logits divided by its own temperature."""
    return softmax(np.asarray(logits, dtype=np.float64) / np.asarray(temps, dtype=np.float64)[:, None])


def fit_distance_temperature(logits: np.ndarray, distances: np.ndarray, y: np.ndarray,
                             weights: np.ndarray | None = None, lo: float = 0.05, hi: float = 20.0,
                             max_slope: float = 5.0) -> tuple[float, float]:
    """``(t0, slope)`` of :func:`temperatures` minimising the (``weights``-weighted) negative
    log-likelihood of ``y``; ``t0`` in [lo, hi], ``slope`` in [0, max_slope] (a text farther from
    the training data never gets sharper probabilities)."""
    from scipy.optimize import minimize

    logits = np.asarray(logits, dtype=np.float64)
    y = np.asarray(y)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    u = np.log1p(np.maximum(np.asarray(distances, dtype=np.float64), 0.0))
    rows = np.arange(len(y))

    def objective(p: np.ndarray) -> float:
        P = softmax(logits * np.exp(-(p[0] + p[1] * u))[:, None])
        return float(-np.sum(w * np.log(np.clip(P[rows, y], 1e-12, None))))

    t_start = fit_temperature(logits, y, lo, hi)
    res = minimize(objective, np.array([np.log(t_start), 0.0]), method="L-BFGS-B",
                   bounds=[(np.log(lo), np.log(hi)), (0.0, max_slope)])
    return float(np.exp(res.x[0])), float(res.x[1])


# Share of the in-genre rows in :func:`fit_shift_temperature` (the out-of-genre rows get the rest);
# 0.75 was chosen over 0.5 by inner leave-one-genre-out on out-of-fold predictions of the corpus.
IN_GENRE_WEIGHT = 0.75


def fit_shift_temperature(out_logits: np.ndarray, out_distances: np.ndarray, out_y: np.ndarray,
                          in_logits: np.ndarray | None = None, in_distances: np.ndarray | None = None,
                          in_y: np.ndarray | None = None) -> tuple[float, float]:
    """``(t0, slope)`` fitted on out-of-genre rows and (if given) in-genre rows, the in-genre rows
    weighing ``IN_GENRE_WEIGHT`` in all; without in-genre rows one temperature (``slope`` 0)."""
    if in_logits is None or not len(in_logits):
        return fit_temperature(out_logits, out_y), 0.0
    n_out, n_in = len(out_y), len(in_y)
    w = np.r_[np.full(n_out, (1 - IN_GENRE_WEIGHT) / n_out), np.full(n_in, IN_GENRE_WEIGHT / n_in)]
    return fit_distance_temperature(np.vstack([out_logits, in_logits]), np.r_[out_distances, in_distances],
                                    np.r_[out_y, in_y], weights=w)


def expected_calibration_error(proba: np.ndarray, y: np.ndarray, n_bins: int = 15) -> float:
    """Top-label ECE: the bin-weighted gap between confidence and accuracy."""
    return float(sum(b["count"] * abs(b["accuracy"] - b["confidence"]) for b in reliability(proba, y, n_bins))
                 / len(y))


def brier(proba: np.ndarray, y: np.ndarray) -> float:
    """Multi-class Brier score: mean squared distance to the one-hot truth (0 best, 2 worst)."""
    onehot = np.zeros_like(proba)
    onehot[np.arange(len(y)), y] = 1.0
    return float(np.mean(np.sum((proba - onehot) ** 2, axis=1)))


def reliability(proba: np.ndarray, y: np.ndarray, n_bins: int = 10) -> list[dict[str, float]]:
    """Per confidence bin: mean confidence, accuracy and count (for a reliability diagram)."""
    conf = proba.max(axis=1)
    correct = proba.argmax(axis=1) == y
    bins = np.minimum((conf * n_bins).astype(int), n_bins - 1)
    return [
        {"lo": b / n_bins, "hi": (b + 1) / n_bins, "confidence": float(conf[bins == b].mean()),
         "accuracy": float(correct[bins == b].mean()), "count": int((bins == b).sum())}
        for b in range(n_bins) if (bins == b).any()
    ]
