"""Node-level passes over a tree's arrays, apart from :class:`whowrote.style.trees.TreeEnsemble`'s
walks and masks.

At export, each node's count-weighted mean leaf value (:func:`expected_values`), where the path
attributions of :mod:`whowrote.style.decision` start; the model file keeps it (``tree_expected``)
and no node counts. On load, the depth of a file's trees (:func:`checked_depth`), recomputed with
their shape checked (every node reached once, from one root, within :data:`MAX_DEPTH` levels), so
that damaged arrays raise ``ValueError`` before any walk.
"""

from __future__ import annotations

import numpy as np

MAX_DEPTH = 64  # scikit-learn's trees of 15 leaves are at most 14 deep; anything deeper is damage


def expected_values(nodes: np.ndarray) -> np.ndarray:
    """Each node's count-weighted mean leaf value (children have higher indices in sklearn's trees)."""
    value = nodes["value"].astype(np.float64).copy()
    count = nodes["count"].astype(np.float64)
    for i in range(len(nodes) - 1, -1, -1):
        if not nodes["is_leaf"][i]:
            lo, hi = int(nodes["left"][i]), int(nodes["right"][i])
            total = count[lo] + count[hi]
            value[i] = (value[lo] * count[lo] + value[hi] * count[hi]) / total if total else 0.0
    return value


def checked_depth(left: np.ndarray, right: np.ndarray, is_leaf: np.ndarray, roots: np.ndarray) -> int:
    """Levels needed to reach every leaf (recomputed on load rather than trusted from the file).

    Indices must already be in range. Each node must be reached exactly once: a cycle or a node
    shared by two parents raises ``ValueError`` after at most ``len(is_leaf)`` visits in all, instead
    of a frontier that doubles at every level, and so does a node that no root reaches."""
    seen = np.zeros(len(is_leaf), dtype=bool)
    frontier = np.asarray(roots)
    depth = 0
    while len(frontier):
        ordered = np.sort(frontier)  # (np.unique would import numpy.ma: 30 ms of start-up)
        if seen[frontier].any() or (ordered[1:] == ordered[:-1]).any():
            raise ValueError("tree arrays are malformed (a node is reached twice: a cycle or a shared node)")
        seen[frontier] = True
        depth += 1
        if depth > MAX_DEPTH:
            raise ValueError(f"tree arrays are malformed (depth > {MAX_DEPTH})")
        inner = frontier[~is_leaf[frontier]]
        frontier = np.concatenate([left[inner], right[inner]])
    if not seen.all():  # (the leaves' masks give every node a tree: one outside all trees would corrupt them)
        raise ValueError("tree arrays are malformed (a node no root reaches)")
    return depth
