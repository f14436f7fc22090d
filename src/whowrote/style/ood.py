"""Knowing when a text is unlike anything seen: a distance to the training data, and the abstain rule.

:class:`FeatureDensity` keeps one diagonal Gaussian per training (genre, label) cell in the
model's standardised feature space; a text's *distance* is its mean squared z-score to the nearest
cell (each dimension capped, so one wild feature cannot decide alone). A text from a genre or
model generation the model never saw sits far from every cell, which the top probability alone
does not show: classifiers are confidently wrong off their training distribution.

:func:`choose_abstain` picks the probability threshold on *out-of-genre* predictions, so that the
texts a user gets a verdict for are right at the target rate even when they are unlike the
training data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

VAR_FLOOR = 0.05  # in standardised units: a cell never looks sharper than 1/20 of the global spread
Z_CAP = 25.0  # a feature contributes at most 5 standard deviations squared
MIN_CELL = 5


@dataclass
class FeatureDensity:
    centers: np.ndarray  # (cells, d)
    inv_var: np.ndarray  # (cells, d)

    @classmethod
    def fit(cls, Z: np.ndarray, yi: np.ndarray, genres: np.ndarray) -> FeatureDensity:
        cells = sorted({(str(g), int(k)) for g, k in zip(genres.tolist(), yi.tolist(), strict=True)})
        centers, inv_var = [], []
        gs = np.array([str(g) for g in genres.tolist()])
        for g, k in cells:
            rows = Z[(gs == g) & (yi == k)]
            if len(rows) < MIN_CELL:
                continue
            centers.append(rows.mean(axis=0))
            inv_var.append(1.0 / (rows.var(axis=0) + VAR_FLOOR))
        if not centers:  # tiny data: one cell for everything
            centers, inv_var = [Z.mean(axis=0)], [1.0 / (Z.var(axis=0) + VAR_FLOOR)]
        return cls(np.array(centers), np.array(inv_var))

    def distance(self, Z: np.ndarray) -> np.ndarray:
        """Mean capped squared z-score to the nearest cell, one value per row."""
        out = np.full(len(Z), np.inf)
        for c, iv in zip(self.centers, self.inv_var, strict=True):  # cells x (n, d): bounded memory
            out = np.minimum(out, np.minimum((Z - c) ** 2 * iv, Z_CAP).mean(axis=1))
        return out

    def to_arrays(self, prefix: str = "ood_") -> dict[str, np.ndarray]:
        return {prefix + "centers": self.centers, prefix + "inv_var": self.inv_var}

    @classmethod
    def from_arrays(cls, arrays, prefix: str = "ood_") -> FeatureDensity:
        return cls(np.asarray(arrays[prefix + "centers"], dtype=np.float64),
                   np.asarray(arrays[prefix + "inv_var"], dtype=np.float64))


THRESHOLDS = np.round(np.arange(0.30, 0.951, 0.025), 3)


def selective(P: np.ndarray, yi: np.ndarray, accepted: np.ndarray) -> tuple[float, float]:
    """(accuracy on the accepted rows, share of rows accepted)."""
    if not accepted.any():
        return float("nan"), 0.0
    return float((P[accepted].argmax(axis=1) == yi[accepted]).mean()), float(accepted.mean())


def choose_abstain(P: np.ndarray, yi: np.ndarray, in_range: np.ndarray, target: float) -> float:
    """The lowest top-probability threshold whose accepted rows (also ``in_range``) reach ``target``
    accuracy; if none does, the threshold with the best accuracy at >= 30 % coverage."""
    top = P.max(axis=1)
    best, best_acc = 0.5, -1.0
    for t in THRESHOLDS:
        acc, cov = selective(P, yi, in_range & (top >= t))
        if cov > 0 and acc >= target:
            return float(t)
        if cov >= 0.3 and acc > best_acc:
            best, best_acc = float(t), acc
    return best
