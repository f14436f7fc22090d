"""Probability calibration (temperature scaling) and its measures (ECE, Brier, reliability bins).

Temperature scaling divides the classifier's logits by one scalar ``T`` fitted on out-of-fold
predictions: it keeps the ranking (so accuracy is unchanged) and fixes over-confidence, which a
regularised logistic regression on well-separated training genres shows on new genres.
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
