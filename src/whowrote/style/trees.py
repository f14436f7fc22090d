"""Gradient-boosted trees as plain arrays: exported from scikit-learn, evaluated with numpy.

Why not keep the scikit-learn object: it can only be saved by pickling (unsafe to load, and
tied to one scikit-learn version), and importing scikit-learn costs ~0.5 s of start-up that
``whowrote predict`` cannot afford. The exported form is six flat arrays (one row per node of
every tree) that go into an ``.npz``; :meth:`TreeEnsemble.walk` walks all trees at once, one
level per step, dropping the (row, tree) pairs that reached a leaf (the scores and the path
attributions both come from it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np


def log_transform(X: np.ndarray) -> np.ndarray:
    """Features as both members of the model (the linear one and these trees) read them."""
    return np.sign(X) * np.log1p(np.abs(X))


# Rows walked together: the walk's arrays (rows x trees pairs) then stay in the CPU caches, which
# makes a batch of short texts' walk about twice as fast as 256 rows at once.
WALK_ROWS = 32
COMPACT = 4  # walk: drop the pairs on leaves once they are 1/COMPACT of the walking ones
ARRAY_FIELDS = ("feature", "threshold", "left", "right", "is_leaf", "value", "missing_left", "roots", "tree_class")


class StepTables(NamedTuple):
    """:meth:`TreeEnsemble.walk`'s node arrays as ``intp``, every leaf's feature 0; ``child[2 * node
    + goes_right]`` (a leaf is both its children); ``step_feature[step]``, each step's split feature."""

    feature: np.ndarray
    threshold: np.ndarray
    child: np.ndarray
    is_leaf: np.ndarray
    step_feature: np.ndarray


@dataclass
class TreeEnsemble:
    feature: np.ndarray  # int32 per node
    threshold: np.ndarray  # float64; x <= threshold goes left
    left: np.ndarray  # int32, global node index
    right: np.ndarray  # int32
    is_leaf: np.ndarray  # bool
    value: np.ndarray  # float64 leaf value (raw score)
    missing_left: np.ndarray  # bool: NaN goes left
    roots: np.ndarray  # int32 root node of each tree
    tree_class: np.ndarray  # int32 class (logit column) each tree adds to
    baseline: np.ndarray  # float64 (n_classes,)
    max_depth: int
    # float64 per node: the training-count-weighted mean leaf value below it (for path attributions)
    expected: np.ndarray | None = None

    @classmethod
    def from_sklearn(cls, model) -> TreeEnsemble:
        """Export a fitted ``HistGradientBoostingClassifier`` (numeric features only)."""
        parts, roots, tree_class = [], [], []
        offset = 0
        for per_iter in model._predictors:
            for k, pred in enumerate(per_iter):
                nodes = pred.nodes
                if nodes["is_categorical"].any():
                    raise ValueError("categorical splits are not supported")
                parts.append((nodes, offset))
                roots.append(offset)
                tree_class.append(k)
                offset += len(nodes)
        cat = np.concatenate([n for n, _ in parts])
        shift = np.concatenate([np.full(len(n), off, dtype=np.int64) for n, off in parts])
        leaf = cat["is_leaf"].astype(bool)
        expected = np.concatenate([_expected(n) for n, _ in parts])
        return cls(
            feature=cat["feature_idx"].astype(np.int32),
            threshold=cat["num_threshold"].astype(np.float64),
            left=np.where(leaf, 0, cat["left"].astype(np.int64) + shift).astype(np.int32),
            right=np.where(leaf, 0, cat["right"].astype(np.int64) + shift).astype(np.int32),
            is_leaf=leaf,
            value=cat["value"].astype(np.float64),
            missing_left=cat["missing_go_to_left"].astype(bool),
            roots=np.asarray(roots, dtype=np.int32),
            tree_class=np.asarray(tree_class, dtype=np.int32),
            baseline=np.asarray(model._baseline_prediction, dtype=np.float64).ravel(),
            max_depth=int(cat["depth"].max()) + 1,
            expected=expected,
        )

    @classmethod
    def weighted_sum(cls, parts: list[tuple[TreeEnsemble, float]]) -> TreeEnsemble:
        """One ensemble whose scores are ``sum(w * part's scores)``: the parts' trees side by side,
        each leaf value, node expectation and baseline times its part's weight. Scores and path
        credits are linear in those, so a blend of two ensembles keeps exact credits and costs one
        walk over both sets of trees (issue 17's ``blend_logit``)."""
        if not parts:
            raise ValueError("weighted_sum needs at least one ensemble")
        if len({len(t.baseline) for t, _ in parts}) != 1:
            raise ValueError("the ensembles must share their classes")
        if any(t.expected is None for t, _ in parts) and any(t.expected is not None for t, _ in parts):
            raise ValueError("either every ensemble has node expectations or none has")
        offsets = np.cumsum([0] + [len(t.feature) for t, _ in parts[:-1]])  # each part's first global node

        def cat(name: str, scale: bool = False) -> np.ndarray:
            return np.concatenate([getattr(t, name) * w if scale else getattr(t, name) for t, w in parts])

        def child(name: str) -> np.ndarray:  # global node indices; a leaf's children stay 0
            return np.concatenate([np.where(t.is_leaf, 0, getattr(t, name) + off)
                                   for (t, _), off in zip(parts, offsets, strict=True)]).astype(np.int32)

        roots = np.concatenate([t.roots + off for (t, _), off in zip(parts, offsets, strict=True)])
        return cls(feature=cat("feature"), threshold=cat("threshold"), left=child("left"), right=child("right"),
                   is_leaf=cat("is_leaf"), value=cat("value", scale=True), missing_left=cat("missing_left"),
                   roots=roots.astype(np.int32), tree_class=cat("tree_class"),
                   baseline=sum(w * t.baseline for t, w in parts), max_depth=max(t.max_depth for t, _ in parts),
                   expected=None if parts[0][0].expected is None else cat("expected", scale=True))

    def walk(self, X: np.ndarray, pairs: np.ndarray | None = None, on_step=None) -> np.ndarray:
        """The leaf each (row, tree) pair of ``X`` reaches; ``pairs``: which pairs (indices
        ``row * n_trees + tree``, ascending), default all.

        Every pair walks down one level per step. A pair that reached a leaf stays on it (in
        :meth:`step_tables` a leaf is its own child), and the walking pairs are compacted only
        once a quarter of them sit on leaves, so a batch costs about the total path length rather
        than ``depth x trees``, with few compactions. ``on_step``, if given, is called at each step
        with ``(active, step)``: the pairs taking it (indices into ``pairs``, ascending) and, per
        pair, the step's index into :meth:`step_tables`'s per-step arrays (``2 * node + goes
        right``; a pair already on a leaf takes a step that changes nothing: feature 0, expectation
        change 0.0). The path attributions of ``whowrote.style.decision`` ride on this walk."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        n, d = X.shape
        n_trees = len(self.roots)
        feature, threshold, child, leaf, _ = self.step_tables()
        roots = self.roots.astype(np.intp)
        if pairs is None:
            node = np.tile(roots, n)
            offset = np.repeat(np.arange(n, dtype=np.intp) * d, n_trees)  # start of each pair's row in X
        else:
            pairs = np.asarray(pairs, dtype=np.intp)
            node = roots[pairs % n_trees]
            offset = pairs // n_trees * d
        flat = X.ravel()
        has_nan = bool(np.isnan(flat).any())
        # (ndarray.take and .compress: the same elements as fancy and boolean indexing, faster)
        active = np.flatnonzero(~leaf.take(node))
        nd, off = node.take(active), offset.take(active)
        while active.size:
            x = flat.take(off + feature.take(nd))
            goes_right = x > threshold.take(nd)
            if has_nan:
                goes_right = np.where(np.isnan(x), ~self.missing_left[nd], goes_right)
            step = 2 * nd
            step += goes_right
            if on_step is not None:
                on_step(active, step)
            nd = child.take(step)
            done = leaf.take(nd)
            n_done = int(np.count_nonzero(done))
            if n_done * COMPACT >= len(nd):  # drop the pairs on leaves (all, once nothing walks)
                node[active.compress(done)] = nd.compress(done)
                keep = ~done
                active, nd, off = active.compress(keep), nd.compress(keep), off.compress(keep)
        return node

    def step_tables(self) -> StepTables:
        """The :class:`StepTables` of this ensemble, made once (the arrays do not change after loading)."""
        tables = self.__dict__.get("_tables")
        if tables is None:
            leaf = self.is_leaf.astype(bool)
            n = len(leaf)
            own = np.arange(n, dtype=np.intp)
            left = np.where(leaf, own, self.left.astype(np.intp))
            right = np.where(leaf, own, self.right.astype(np.intp))
            feature = np.where(leaf, 0, self.feature).astype(np.intp)
            child = np.stack([left, right], axis=1).ravel()
            tables = StepTables(feature, np.asarray(self.threshold, dtype=np.float64), child, leaf,
                                np.repeat(feature, 2))
            self.__dict__["_tables"] = tables
        return tables

    def step_change(self) -> np.ndarray:
        """Per step of :meth:`walk` (``2 * node + goes_right``): the change of the node
        expectation from the node to the child it goes to, ``expected[child] - expected[node]``
        (0.0 from a leaf, which stays put); made once per ensemble."""
        change = self.__dict__.get("_step_change")
        if change is None:
            child = self.step_tables().child
            change = self.expected[child] - np.repeat(self.expected, 2)
            change[np.repeat(self.is_leaf.astype(bool), 2)] = 0.0
            self.__dict__["_step_change"] = change
        return change

    def raw_predict(self, X: np.ndarray, on_step=None) -> np.ndarray:
        """Raw scores (logits), shape ``(n, n_classes)``, equal to scikit-learn's; ``on_step`` as
        in :meth:`walk` (over all pairs, in one walk). Without it the rows are walked
        :data:`WALK_ROWS` at a time (each row's scores are its own: the same bits)."""
        if on_step is None and len(X) > WALK_ROWS:
            return np.concatenate([self.raw_predict(X[a:a + WALK_ROWS]) for a in range(0, len(X), WALK_ROWS)])
        n, n_trees = len(X), len(self.roots)
        node = self.walk(X, on_step=on_step)
        out = np.tile(self.baseline, (n, 1))
        leaf_values = self.value[node].reshape(n, n_trees)
        for k in range(len(self.baseline)):
            out[:, k] += leaf_values[:, self.tree_class == k].sum(axis=1)
        return out

    def to_arrays(self, prefix: str = "tree_") -> dict[str, np.ndarray]:
        arrays = {prefix + f: getattr(self, f) for f in ARRAY_FIELDS}
        arrays[prefix + "baseline"] = self.baseline
        if self.expected is not None:
            arrays[prefix + "expected"] = self.expected
        return arrays

    @classmethod
    def from_arrays(cls, arrays, prefix: str = "tree_") -> TreeEnsemble:
        """Rebuild from :meth:`to_arrays`'s arrays. For untrusted files: lengths, index ranges and
        the tree shape (every node reached once, from one root, within ``MAX_DEPTH`` levels) are
        checked before any walk, so a node that points back up raises ``ValueError`` at once."""
        kw = {f: np.asarray(arrays[prefix + f]) for f in ARRAY_FIELDS}
        for name in ("feature", "left", "right", "roots", "tree_class"):
            if not np.issubdtype(kw[name].dtype, np.integer):
                raise ValueError(f"tree {name} must be integers, not {kw[name].dtype}")
        kw["is_leaf"] = kw["is_leaf"].astype(bool)
        kw["missing_left"] = kw["missing_left"].astype(bool)
        baseline = np.asarray(arrays[prefix + "baseline"], dtype=np.float64)
        n = len(kw["is_leaf"])
        if any(kw[f].shape != (n,) for f in ARRAY_FIELDS[:7]) or kw["tree_class"].shape != kw["roots"].shape:
            raise ValueError("tree arrays have inconsistent lengths")
        inner = ~kw["is_leaf"]
        for name in ("roots", "left", "right"):
            arr = kw[name] if name == "roots" else kw[name][inner]
            if len(arr) and (arr.min() < 0 or arr.max() >= n):
                raise ValueError(f"tree {name} index out of range")
        expected = arrays.get(prefix + "expected")
        if expected is not None and np.shape(expected) != (n,):
            raise ValueError("tree arrays have inconsistent lengths")
        return cls(**kw, baseline=baseline, max_depth=_depth(kw["left"], kw["right"], kw["is_leaf"], kw["roots"]),
                   expected=None if expected is None else np.asarray(expected, dtype=np.float64))

    def check(self, n_features: int, n_classes: int) -> None:
        """Raise ``ValueError`` unless every index points inside the arrays (for untrusted files)."""
        n = len(self.is_leaf)
        same = (self.feature, self.threshold, self.left, self.right, self.value, self.missing_left)
        if self.expected is not None:
            same = (*same, self.expected)
        if any(a.shape != (n,) for a in same) or self.tree_class.shape != self.roots.shape:
            raise ValueError("tree arrays have inconsistent lengths")
        if self.baseline.shape != (n_classes,):
            raise ValueError(f"tree baseline has shape {self.baseline.shape}, expected ({n_classes},)")
        inner = ~self.is_leaf
        for name, arr, hi in (("roots", self.roots, n), ("tree_class", self.tree_class, n_classes),
                              ("left", self.left[inner], n), ("right", self.right[inner], n),
                              ("feature", self.feature[inner], n_features)):
            if not np.issubdtype(arr.dtype, np.integer):
                raise ValueError(f"tree {name} must be integers, not {arr.dtype}")
            if len(arr) and (arr.min() < 0 or arr.max() >= hi):
                raise ValueError(f"tree {name} index out of range")


MAX_DEPTH = 64  # scikit-learn's trees of 15 leaves are at most 14 deep; anything deeper is damage


def _expected(nodes) -> np.ndarray:
    """Each node's count-weighted mean leaf value (children have higher indices in sklearn's trees)."""
    value = nodes["value"].astype(np.float64).copy()
    count = nodes["count"].astype(np.float64)
    for i in range(len(nodes) - 1, -1, -1):
        if not nodes["is_leaf"][i]:
            lo, hi = int(nodes["left"][i]), int(nodes["right"][i])
            total = count[lo] + count[hi]
            value[i] = (value[lo] * count[lo] + value[hi] * count[hi]) / total if total else 0.0
    return value


def _depth(left: np.ndarray, right: np.ndarray, is_leaf: np.ndarray, roots: np.ndarray) -> int:
    """Levels needed to reach every leaf (recomputed on load rather than trusted from the file).

    Indices must already be in range. Each node may be reached once: a cycle or a node shared by
    two parents raises ``ValueError`` after at most ``len(is_leaf)`` visits in all, instead of a
    frontier that doubles at every level."""
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
    return depth
