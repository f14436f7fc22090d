"""benchmarks/robustness.py's drop intervals: the point is raw minus edited accuracy, and the
interval comes from redrawing whole topics, the same ones for both."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from robustness import drop_intervals  # noqa: E402


class _Lookup:
    """A model whose prediction is column 0 of X (0 = A, 1 = B)."""

    classes_ = np.array(["A", "B"], dtype=object)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        p = X[:, 0].astype(float)
        return np.stack([1 - p, p], axis=1)


def test_drop_is_raw_minus_edited_with_a_topic_interval() -> None:
    y = np.array(["A", "B"] * 20, dtype=object)
    topics = np.repeat(np.arange(10), 4)
    raw = np.array([[0], [1]] * 20)  # all right
    edited = raw.copy()
    edited[:8] = 1 - edited[:8]  # topics 0 and 1 wrong after the edit: 8 of 40 texts
    same = raw.copy()
    model = _Lookup()
    Pe = {e: model.predict_proba(X) for e, X in {"raw": raw, "edit": edited, "same": same}.items()}
    d = drop_intervals(model.classes_, Pe, y, topics, seed=0, n_boot=500)
    assert set(d) == {"edit", "same"}
    assert d["edit"]["diff"] == 20.0 and d["same"] == {"diff": 0.0, "lo": 0.0, "hi": 0.0, "sd": 0.0}
    # two of ten topics carry the whole drop: redrawing topics moves it widely, never below 0
    assert 0.0 <= d["edit"]["lo"] < 20.0 < d["edit"]["hi"] and d["edit"]["sd"] > 5
