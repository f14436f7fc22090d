"""Linear probes (spec §5.2–5.3) and their metrics.

- the stylometric probe: ``StandardScaler`` + ``LogisticRegression(max_iter=2000, C=1.0)`` on a
  feature matrix (the research 41, or whowrote's full feature set);
- the content probe: the same logistic regression on raw (unscaled, L2-normalised) embeddings;
- whowrote's default model, used as it is (no refit).

Metrics: accuracy, macro-F1 over the gold labels present, confusion (rows gold, columns predicted,
both in ``LABELS`` order restricted to the labels seen), per-class recall.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from whowrote.types import LABELS


@dataclass
class Probe:
    """A fitted linear probe; ``scaled`` adds a StandardScaler fitted on the training rows."""

    scaled: bool = True
    C: float = 1.0
    model: object = None
    scaler: object = None
    classes: list[str] = field(default_factory=list)

    def fit(self, X: np.ndarray, y: Sequence[str]) -> Probe:
        from sklearn.linear_model import LogisticRegression
        from sklearn.preprocessing import StandardScaler

        if self.scaled:
            self.scaler = StandardScaler().fit(X)
            X = self.scaler.transform(X)
        self.model = LogisticRegression(max_iter=2000, C=self.C).fit(X, np.asarray(y))
        self.classes = [str(c) for c in self.model.classes_]
        return self

    def _x(self, X: np.ndarray) -> np.ndarray:
        return self.scaler.transform(X) if self.scaler is not None else X

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.model.predict(self._x(X))

    def coef(self) -> np.ndarray:
        """(n_classes, n_features) coefficients, rows in ``self.classes`` order (binary -> 2 rows)."""
        c = self.model.coef_
        return np.vstack([-c[0], c[0]]) if c.shape[0] == 1 else c


def ordered_labels(*label_lists: Sequence[str]) -> list[str]:
    seen = {str(x) for labels in label_lists for x in labels}
    return [lab for lab in LABELS if lab in seen] + sorted(seen - set(LABELS))


def metrics(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str] | None = None) -> dict:
    """accuracy, macro_f1 (over gold labels present), confusion, per-class recall, n."""
    from sklearn.metrics import confusion_matrix, f1_score

    gold, pred = np.asarray(gold, dtype=object), np.asarray(pred, dtype=object)
    labels = list(labels) if labels is not None else ordered_labels(gold, pred)
    present = [lab for lab in labels if lab in set(gold)]
    cm = confusion_matrix(gold, pred, labels=labels) if len(gold) else np.zeros((len(labels),) * 2, int)
    recall = {lab: round(float(np.mean(pred[gold == lab] == lab)), 4) for lab in present}
    return {
        "n": int(len(gold)),
        "accuracy": round(float(np.mean(gold == pred)), 4) if len(gold) else 0.0,
        "macro_f1": round(float(f1_score(gold, pred, labels=present, average="macro", zero_division=0)), 4)
        if len(gold) else 0.0,
        "labels": labels,
        "confusion": cm.astype(int).tolist(),
        "recall": recall,
        "chance": round(1.0 / max(len(present), 1), 4),
    }


def evaluate_probe(
    X: np.ndarray, y: np.ndarray, splits: dict[str, dict], scaled: bool
) -> tuple[dict[str, dict], dict[str, Probe]]:
    """Fit one probe per split on its train rows; metrics on its test rows."""
    results, probes = {}, {}
    for name, s in splits.items():
        probe = Probe(scaled=scaled).fit(X[s["train"]], y[s["train"]])
        pred = probe.predict(X[s["test"]])
        labels = ordered_labels(y[s["train"]], y[s["test"]])
        results[name] = {**metrics(y[s["test"]], pred, labels), "n_train": int(len(s["train"]))}
        probes[name] = probe
    return results, probes


def evaluate_style_model(
    X: np.ndarray, y: np.ndarray, splits: dict[str, dict], genres: np.ndarray, seed: int = 0
) -> tuple[dict[str, dict], dict[str, object]]:
    """whowrote's own classifier recipe (``StyleModel`` with its defaults, on the full feature
    matrix ``X``) refitted on each split's train rows; uncalibrated, as argmax does not need it
    (so no topic groups either: they only shape the calibration folds)."""
    from threadpoolctl import threadpool_limits

    from whowrote.style import StyleModel

    results, models = {}, {}
    for name, s in splits.items():
        tr, te = s["train"], s["test"]
        # one OpenMP thread: the trees' many short parallel regions crawl on a busy, shared CPU
        with threadpool_limits(limits=1, user_api="openmp"):
            model = StyleModel(seed=seed, calibrate=False).fit(X[tr], y[tr], genres=genres[tr])
        pred = np.asarray(model.predict(X[te]), dtype=object)
        results[name] = {**metrics(y[te], pred, ordered_labels(y[tr], y[te])), "n_train": int(len(tr))}
        models[name] = model
    return results, models


def evaluate_fixed(pred: np.ndarray, y: np.ndarray, splits: dict[str, dict]) -> dict[str, dict]:
    """Metrics of fixed predictions (e.g. the default model's) on each split's test rows."""
    out = {}
    for name, s in splits.items():
        labels = ordered_labels(y[s["test"]], pred[s["test"]])
        out[name] = {**metrics(y[s["test"]], pred[s["test"]], labels), "n_train": 0}
    return out


def load_default_model():
    """whowrote's default style model, or (None, reason) when it is not available."""
    try:
        from whowrote.style import load_model

        return load_model(), ""
    except Exception as e:  # noqa: BLE001 — report why, keep going
        return None, f"{type(e).__name__}: {e}"


def default_model_note(model) -> str:
    """What the shipped model's numbers mean, from what it says it was trained on."""
    training = getattr(model, "training_", None) or {}
    files = [f.get("name", "?") for f in training.get("files", []) if isinstance(f, dict)]
    if files:
        return (f"The default model is scored as shipped (not refitted per split). It was trained on "
                f"{training.get('n_texts', '?')} texts of {', '.join(files)}: on those files its numbers are "
                f"in-sample, a fit check rather than a held-out accuracy.")
    return ("The default model is scored as shipped (not refitted per split); if it was trained on these "
            "texts its numbers are not held-out numbers.")
