"""Gradient-boosted trees as plain arrays: exported from scikit-learn, evaluated with numpy.

Why not keep the scikit-learn object: it can only be saved by pickling (unsafe to load, and
tied to one scikit-learn version), and importing scikit-learn costs ~0.5 s of start-up that
``whowrote predict`` cannot afford. The exported form is flat arrays (one row per node of every
tree) that go into an ``.npz``. :meth:`TreeEnsemble.leaves` finds the leaf every row reaches in
every tree at once, by bit masks (QuickScorer's rule); the scores, and the path attributions of
``whowrote.style.decision``, come from those leaves.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import numpy as np

from whowrote.style.tree_nodes import checked_depth, expected_values


def log_transform(X: np.ndarray) -> np.ndarray:
    """Features as both members of the model (the linear one and these trees) read them."""
    return np.sign(X) * np.log1p(np.abs(X))


# Rows walked together by the level walk (trees of more than MASK_LEAVES leaves, or few rows
# before the masks' tables are made): the walk's arrays
# (rows x trees pairs) then stay in the CPU caches, about twice as fast as 256 rows at once.
WALK_ROWS = 32
COMPACT = 4  # walk: drop the pairs on leaves once they are 1/COMPACT of the walking ones
MASK_LEAVES = 16  # trees of at most 16 leaves find their leaf with 16-bit masks (TreeEnsemble.leaves)
MASK_CELLS = 1 << 17  # rows x split slots compared at once (1 MB of float64: cache-sized blocks, few page faults)
# The masks' tables take ~3 ms to make (1,200 trees) and save ~20 us a row: fewer rows than this
# (``predict one.md``) are walked unless the tables were made already. Same leaves either way.
MASK_ROWS = 64
SCORE_ROWS = 1024  # raw_predict's rows at a time: their leaves (rows x trees) stay a few MB
ARRAY_FIELDS = ("feature", "threshold", "left", "right", "is_leaf", "value", "missing_left", "roots", "tree_class")


class WalkTables(NamedTuple):
    """:meth:`TreeEnsemble.walk`'s node arrays as ``intp``, every leaf's feature 0; ``child[2 * node
    + goes_right]`` (a leaf is both its children)."""

    feature: np.ndarray
    threshold: np.ndarray
    child: np.ndarray
    is_leaf: np.ndarray


class MaskTables(NamedTuple):
    """:meth:`TreeEnsemble.leaves`'s tables (QuickScorer's exit-leaf rule, Lucchese et al. 2015).

    A tree's leaves are numbered left to right, bit ``k`` for leaf ``k``. A split's ``clear`` has
    every bit set but those of the leaves in its left subtree: a row that goes right there cannot
    reach them. ANDing the masks of all splits a row goes right at leaves set exactly the leaves it
    is not ruled out of, and the lowest set bit is the leaf it reaches (each leaf left of it lies
    left of a split on the row's path where the row went right). Every tree's splits sit in
    ``slots`` consecutive slots (a multiple of 4: four masks fold as one uint64); padding has
    threshold +inf, so no row goes right there."""

    feature: np.ndarray  # intp (n_trees * slots,): the split's feature
    threshold: np.ndarray  # float64: x > threshold goes right
    clear: np.ndarray  # uint16
    nan_right: np.ndarray  # bool: a missing value goes right
    leaf_node: np.ndarray  # intp (n_trees * MASK_LEAVES,): the global node of each tree's leaf k
    slots: int


@cache
def lowest_bit_table() -> np.ndarray:
    """``table[v]``: the index of ``v``'s lowest set bit (uint8, for every uint16 ``v`` > 0)."""
    v = np.arange(1, 1 << 16)
    return np.concatenate([[0], np.log2(v & -v)]).astype(np.uint8)  # v & -v: the lowest bit alone (exact in log2)


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
        expected = np.concatenate([expected_values(n) for n, _ in parts])
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

    def leaves(self, X: np.ndarray) -> np.ndarray:
        """The leaf (global node index) each row of ``X`` reaches in every tree, shape ``(n, n_trees)``.

        Trees of at most :data:`MASK_LEAVES` leaves are read with :class:`MaskTables`: every split of
        every tree is compared at once (a gather, a comparison and a few integer operations over
        contiguous arrays), about twice as fast in numpy as walking the trees level by level, which
        gathers at every level. If any tree has more leaves, the whole ensemble is walked
        (:meth:`walk`), and so are fewer than :data:`MASK_ROWS` rows while the tables are not yet made."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        if not len(self.roots):
            return np.empty((len(X), 0), dtype=np.intp)
        masks = self.mask_tables() if len(X) >= MASK_ROWS or "_masks" in self.__dict__ else None
        if masks is None:
            return np.concatenate([self.walk(X[a:a + WALK_ROWS]) for a in range(0, len(X), WALK_ROWS)]
                                  or [np.empty(0, dtype=np.intp)]).reshape(len(X), len(self.roots))
        n_trees, words = len(self.roots), masks.slots // 4
        lowest, first_leaf = lowest_bit_table(), np.arange(n_trees, dtype=np.intp) * MASK_LEAVES
        rows = max(1, MASK_CELLS // len(masks.feature))
        out = np.empty((len(X), n_trees), dtype=np.intp)
        for a in range(0, len(X), rows):
            block = X[a:a + rows]
            x = block.take(masks.feature, axis=1)
            right = x > masks.threshold
            if np.isnan(block).any():
                right |= np.isnan(x) & masks.nan_right
            bits = right.view(np.uint8).astype(np.uint16)
            bits -= np.uint16(1)  # a right turn: 0, then the split's mask; otherwise all ones
            bits |= masks.clear
            folded = bits.view(np.uint64).reshape(len(x), n_trees, words)
            acc = folded[:, :, 0].copy()
            for w in range(1, words):
                acc &= folded[:, :, w]
            acc &= acc >> np.uint64(32)  # the four 16-bit masks in a word, ANDed
            acc &= acc >> np.uint64(16)
            out[a:a + len(x)] = masks.leaf_node.take(lowest.take(acc.astype(np.uint16)) + first_leaf)
        return out

    def walk(self, X: np.ndarray) -> np.ndarray:
        """The leaf each (row, tree) pair of ``X`` reaches (``row * n_trees + tree``), walking all
        pairs down one level per step; :meth:`leaves` uses it for trees too wide for its masks.

        A pair that reached a leaf stays on it (in :meth:`walk_tables` a leaf is its own child), and
        the walking pairs are compacted only once a quarter of them sit on leaves, so a batch costs
        about the total path length rather than ``depth x trees``, with few compactions."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        n, d = X.shape
        n_trees = len(self.roots)
        feature, threshold, child, leaf = self.walk_tables()
        node = np.tile(self.roots.astype(np.intp), n)
        offset = np.repeat(np.arange(n, dtype=np.intp) * d, n_trees)  # start of each pair's row in X
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
            nd = child.take(step)
            done = leaf.take(nd)
            n_done = int(np.count_nonzero(done))
            if n_done * COMPACT >= len(nd):  # drop the pairs on leaves (all, once nothing walks)
                node[active.compress(done)] = nd.compress(done)
                keep = ~done
                active, nd, off = active.compress(keep), nd.compress(keep), off.compress(keep)
        return node

    def walk_tables(self) -> WalkTables:
        """The :class:`WalkTables` of this ensemble, made once (the arrays do not change after loading)."""
        tables = self.__dict__.get("_walk")
        if tables is None:
            leaf = self.is_leaf.astype(bool)
            own = np.arange(len(leaf), dtype=np.intp)
            left = np.where(leaf, own, self.left.astype(np.intp))
            right = np.where(leaf, own, self.right.astype(np.intp))
            feature = np.where(leaf, 0, self.feature).astype(np.intp)
            tables = WalkTables(feature, np.asarray(self.threshold, dtype=np.float64),
                                np.stack([left, right], axis=1).ravel(), leaf)
            self.__dict__["_walk"] = tables
        return tables

    def levels(self) -> list[np.ndarray]:
        """The nodes level by level from the roots down (made once; the loader has checked that
        every node is reached once)."""
        levels = self.__dict__.get("_levels")
        if levels is None:
            leaf = self.is_leaf.astype(bool)
            levels, frontier = [], self.roots.astype(np.intp)
            while len(frontier):
                levels.append(frontier)
                inner = frontier[~leaf[frontier]]
                frontier = np.concatenate([self.left[inner], self.right[inner]]).astype(np.intp)
            self.__dict__["_levels"] = levels
        return levels

    def shape(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(tree, parent, depth)`` of every node (a root's parent is 0), made once from :meth:`levels`."""
        shape = self.__dict__.get("_shape")
        if shape is None:
            leaf = self.is_leaf.astype(bool)
            n = len(leaf)
            tree, parent, depth = np.zeros(n, dtype=np.intp), np.zeros(n, dtype=np.intp), np.zeros(n, dtype=np.intp)
            tree[self.roots] = np.arange(len(self.roots))
            for d, level in enumerate(self.levels()):
                depth[level] = d
                inner = level[~leaf[level]]
                tree[self.left[inner]] = tree[self.right[inner]] = tree[inner]
                parent[self.left[inner]] = parent[self.right[inner]] = inner
            shape = self.__dict__["_shape"] = tree, parent, depth
        return shape

    def mask_tables(self) -> MaskTables | None:
        """The :class:`MaskTables` of this ensemble (made once), or None if a tree has more than
        :data:`MASK_LEAVES` leaves."""
        if "_masks" in self.__dict__:
            return self.__dict__["_masks"]
        leaf = self.is_leaf.astype(bool)
        n, n_trees = len(leaf), len(self.roots)
        left, right = self.left.astype(np.intp), self.right.astype(np.intp)
        tree, _, _ = self.shape()
        count, start = leaf.astype(np.int64), np.zeros(n, dtype=np.int64)
        levels = self.levels()
        for level in reversed(levels):  # the leaves below each node
            inner = level[~leaf[level]]
            count[inner] = count[left[inner]] + count[right[inner]]
        masks = None
        if not n_trees or count[self.roots].max() <= MASK_LEAVES:
            for level in levels:  # the number of each node's leftmost leaf within its tree
                inner = level[~leaf[level]]
                start[left[inner]] = start[inner]
                start[right[inner]] = start[inner] + count[left[inner]]
            inner = np.flatnonzero(~leaf)
            inner = inner[np.argsort(tree[inner], kind="stable")]
            per_tree = np.bincount(tree[inner], minlength=n_trees)
            slots = max(4, -(-int(per_tree.max(initial=0)) // 4) * 4)
            slot = tree[inner] * slots + np.arange(len(inner)) - np.repeat(np.cumsum(per_tree) - per_tree, per_tree)
            feature, threshold = np.zeros(n_trees * slots, dtype=np.intp), np.full(n_trees * slots, np.inf)
            clear, nan_right = np.full(n_trees * slots, 0xFFFF, dtype=np.uint16), np.zeros(n_trees * slots, dtype=bool)
            feature[slot], threshold[slot] = self.feature[inner], self.threshold[inner]
            nan_right[slot] = ~self.missing_left[inner].astype(bool)
            clear[slot] = ~(((1 << count[left[inner]]) - 1) << start[inner]) & 0xFFFF
            leaf_node = np.zeros(n_trees * MASK_LEAVES, dtype=np.intp)
            on_leaf = np.flatnonzero(leaf)
            leaf_node[tree[on_leaf] * MASK_LEAVES + start[on_leaf]] = on_leaf
            masks = MaskTables(feature, threshold, clear, nan_right, leaf_node, slots)
        self.__dict__["_masks"] = masks
        return masks

    def scores(self, node: np.ndarray) -> np.ndarray:
        """Raw scores (logits) ``(n, n_classes)`` of the leaves :meth:`leaves` found: per class the
        baseline, then each tree's leaf value added in the trees' order, as scikit-learn adds them
        (a running sum: the bits do not depend on how many rows come together, as a pairwise
        ``sum`` over a row's trees can)."""
        values = self.value.take(node)
        out = np.empty((len(node), len(self.baseline)))
        for k, base in enumerate(self.baseline.tolist()):
            terms = np.concatenate([np.full((len(node), 1), base), values[:, self.tree_class == k]], axis=1)
            out[:, k] = np.cumsum(terms, axis=1)[:, -1]
        return out

    def raw_predict(self, X: np.ndarray) -> np.ndarray:
        """Raw scores (logits), shape ``(n, n_classes)``, equal to scikit-learn's to the bit; the
        leaves are found :data:`SCORE_ROWS` rows at a time (a row's scores are its own)."""
        if len(X) <= SCORE_ROWS:
            return self.scores(self.leaves(X))
        return np.concatenate([self.scores(self.leaves(X[a:a + SCORE_ROWS])) for a in range(0, len(X), SCORE_ROWS)])

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
        return cls(**kw, baseline=baseline, max_depth=checked_depth(kw["left"], kw["right"], kw["is_leaf"], kw["roots"]),
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
