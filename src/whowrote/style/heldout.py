"""Scoring fitted models on held-out texts: accuracy, accuracy under the everyday edits, and —
under leave-one-genre-out — calibration, OTHER AUROC and selective accuracy, each fitted for the
held-out genre on the *other* genres' out-of-genre predictions only.

Used by ``whowrote train-probe``'s check (numbers in the model card) and by
``benchmarks/robustness.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from whowrote.style.calibration import (
    brier,
    conditioned,
    expected_calibration_error,
    fit_shift_temperature,
    scaled_softmax,
    temperatures,
)
from whowrote.style.edits import edits
from whowrote.style.ood import THRESHOLDS, choose_abstain, selective
from whowrote.types import OTHER, PROVIDERS

# A held-out genre's scores in logo_report, in the model card's column order (each also as mean_<key>).
LOGO_SCORES = ("accuracy", "accuracy_3way", "other_auroc", "ece", "coverage", "selective_accuracy", "among3_ece",
               "among3_coverage", "among3_selective_accuracy")


def three_way(model, P: np.ndarray) -> np.ndarray:
    """The most probable of the three providers (what "3-way accuracy" scores on their texts)."""
    return most_probable_provider(model.classes_, P)


def most_probable_provider(classes, P: np.ndarray) -> np.ndarray:
    """Per row of ``P`` (columns ``classes``), the most probable of the three providers among them."""
    classes = np.asarray(classes)
    cols = [list(classes).index(c) for c in PROVIDERS if c in classes]
    return classes[np.asarray(cols)[P[:, cols].argmax(axis=1)]]


def accuracies(model, X: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """4-way accuracy and 3-way accuracy (on the providers' texts) of a fitted model."""
    return proba_accuracies(model, model.predict_proba(X), y)


def proba_accuracies(model, P: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """:func:`accuracies` of probabilities ``P`` the model has already given."""
    three = y != OTHER
    return {"n": int(len(y)), "accuracy": float((model.classes_[P.argmax(axis=1)] == y).mean()),
            "accuracy_3way": float((three_way(model, P)[three] == y[three]).mean()) if three.any() else None}


def capped(frame, cap: int, seed: int = 0):
    """At most ``cap`` rows of ``frame``, the same share of every provider (seeded)."""
    if len(frame) <= cap:
        return frame
    return frame.groupby("provider", group_keys=False).sample(frac=cap / len(frame), random_state=seed)


def edit_scores(model, texts: Sequence[str], y: Sequence[str], seed: int = 0) -> dict[str, dict[str, Any]]:
    """``{edit: accuracies}`` for every edit of the suite (``whowrote.style.edits``)."""
    y = np.asarray(y, dtype=object)
    return {name: accuracies(model, model.features([edit(t) for t in texts]), y) for name, edit in edits(seed).items()}


def evaluate(model, X: np.ndarray, y: Sequence[str], genres: Sequence[str]) -> dict[str, Any]:
    """Accuracy (overall, per genre), macro-F1, ECE, Brier and OTHER AUROC on labelled rows."""
    return evaluate_proba(model.classes_, model.predict_proba(X), y, genres)


def evaluate_proba(classes: np.ndarray, P: np.ndarray, y: Sequence[str], genres: Sequence[str]) -> dict[str, Any]:
    """:func:`evaluate` from probabilities ``P`` (columns in ``classes`` order) already computed."""
    from sklearn.metrics import f1_score, roc_auc_score

    y = np.asarray(y, dtype=object)
    genres = np.asarray(genres, dtype=object)
    classes = np.asarray(classes, dtype=object)
    pred = classes[P.argmax(axis=1)]
    known = np.isin(y, classes)
    yi = np.array([list(classes).index(v) if v in classes else -1 for v in y])
    out: dict[str, Any] = {
        "n": int(len(y)),
        "accuracy": float((pred == y).mean()),
        "macro_f1": float(f1_score(y, pred, average="macro")),
        "per_genre": {str(g): {"n": int((genres == g).sum()), "accuracy": float((pred[genres == g] == y[genres == g]).mean())}
                      for g in sorted(set(genres.tolist()))},
        "ece": expected_calibration_error(P[known], yi[known]),
        "brier": brier(P[known], yi[known]),
    }
    if OTHER in classes and 0 < (y == OTHER).sum() < len(y):
        out["other_auroc"] = float(roc_auc_score(y == OTHER, P[:, list(classes).index(OTHER)]))
    return out


def logo_report(folds: Sequence[tuple[str, Any, np.ndarray, np.ndarray, np.ndarray]],
                in_genre: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None) -> dict[str, Any]:
    """Per held-out genre, from ``(genre, model, logits, labels, distances)`` folds: accuracies,
    ECE, OTHER AUROC, and the default abstain rule's coverage and selective accuracy — the
    temperature, distance threshold and abstain threshold fitted on the other folds only. Plus the
    pooled accuracy-coverage curve (``curve``) and the means over genres.

    ``in_genre``: ``(logits, distances, labels, genres)`` of in-genre held-out rows (unseen topics
    of seen genres, e.g. the topic hold-out's val); those of the other genres join the fit of the
    distance-dependent temperature, as in :meth:`StyleModel.calibrate_out_of_genre`."""
    from sklearn.metrics import roc_auc_score

    out: dict[str, Any] = {}
    curve_hits, curve_kept, n_total = np.zeros(len(THRESHOLDS)), np.zeros(len(THRESHOLDS)), 0
    for genre, model, logits, y, dist in folds:
        cls = list(model.classes_)
        others = [(lg, yy, dd) for g, m, lg, yy, dd in folds if g != genre and list(m.classes_) == cls]
        yo = np.concatenate([[cls.index(v) for v in yy] for _, yy, _ in others])
        lo, do = np.vstack([lg for lg, _, _ in others]), np.concatenate([dd for _, _, dd in others])
        ins = (None, None, None)
        if in_genre is not None:
            keep = (np.asarray(in_genre[3], dtype=object) != genre) & np.isin(in_genre[2], cls)
            ins = (in_genre[0][keep], np.asarray(in_genre[1])[keep], np.array([cls.index(v) for v in in_genre[2][keep]]))
        T, slope = fit_shift_temperature(lo, do, yo, *ins)
        far = float(np.quantile(do, model.ood_quantile)) if model.ood_quantile < 1 else float("inf")
        cut = choose_abstain(scaled_softmax(lo, temperatures(do, T, slope)), yo, do <= far, model.target_accuracy)
        P = scaled_softmax(logits, temperatures(dist, T, slope))
        known = np.isin(y, cls)
        yi = np.array([cls.index(v) if v in cls else -1 for v in y])
        three = y != OTHER
        acc, cov = selective(P, yi, (P.max(axis=1) >= cut) & (dist <= far))
        row = {"n": int(len(y)), "accuracy": float((model.classes_[P.argmax(axis=1)] == y).mean()),
               "accuracy_3way": float((three_way(model, P)[three] == y[three]).mean()) if three.any() else None,
               "ece": expected_calibration_error(P[known], yi[known]), "temperature": T, "temperature_slope": slope,
               "abstain_below": cut, "coverage": cov, "selective_accuracy": acc}
        if OTHER in cls and 0 < (y == OTHER).sum() < len(y):
            row["other_auroc"] = float(roc_auc_score(y == OTHER, P[:, cls.index(OTHER)]))
        if three.any():  # `--among` the three assistants, on their texts: P conditioned, the same rule
            P3 = conditioned(P[three], cls, PROVIDERS)
            acc3, cov3 = selective(P3, yi[three], (P3.max(axis=1) >= cut) & (dist[three] <= far))
            row.update({"among3_ece": expected_calibration_error(P3, yi[three]), "among3_coverage": cov3,
                        "among3_selective_accuracy": acc3})
        out[genre] = row
        for i, t in enumerate(THRESHOLDS):
            kept = P.max(axis=1) >= t
            curve_kept[i] += kept.sum()
            curve_hits[i] += (P[kept].argmax(axis=1) == yi[kept]).sum()
        n_total += len(y)
    for key in LOGO_SCORES:
        vals = [v[key] for v in out.values() if isinstance(v, dict) and v.get(key) is not None]
        if vals:
            out[f"mean_{key}"] = float(np.mean(vals))
    out["curve"] = {"thresholds": THRESHOLDS.tolist(), "coverage": (curve_kept / max(n_total, 1)).tolist(),
                    "accuracy": np.where(curve_kept > 0, curve_hits / np.maximum(curve_kept, 1), np.nan).tolist()}
    return out
