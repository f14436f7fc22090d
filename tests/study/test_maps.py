"""2-D map separation on tiny inputs: a number, never a scikit-learn error."""

from __future__ import annotations

import numpy as np

from whowrote.study.maps import knn_separation


def test_knn_separation_on_few_points():
    rng = np.random.default_rng(0)
    for n in range(6, 20):
        y = np.array((["CLAUDE", "CHATGPT", "GEMINI"] * 10)[:n], dtype=object)
        acc = knn_separation(rng.random((n, 2)), y)
        assert 0.0 <= acc <= 1.0


def test_knn_separation_separates_clusters():
    Z = np.r_[np.zeros((20, 2)), np.ones((20, 2)) * 10] + np.random.default_rng(0).random((40, 2))
    assert knn_separation(Z, np.array(["A"] * 20 + ["B"] * 20, dtype=object)) == 1.0
