"""What the whole model's decision rests on: per-feature attributions of both members.

The trees carry most of the vote, so the tells must come from them too. For each tree, a text
walks one path from the root to a leaf; every split on the way changes the expected output (the
training-count-weighted mean of the leaves below a node) from the parent's to the child's, and
that change is credited to the split's feature (Saabas path attribution). Per tree the credits sum
exactly to ``leaf value - root expectation``, so per class
``baseline + sum(root expectations) + sum(credits) == the trees' raw score`` — an exact
decomposition of the output, cheap enough to run on every prediction: the leaves the scores come
from give the paths, each leaf's tabled once (:func:`path_tables`). The logistic regression's terms are exact already
(``z_j * coef_kj``). Both are in logit units; the decision's attribution is their average with the
members' weights.
"""

from __future__ import annotations

import numpy as np

from whowrote.style.trees import TreeEnsemble, log_transform

CREDIT_ROWS = 32  # rows whose path credits are summed at once (~6,000 terms a row with 1,200 trees)
# From this many rows on, every leaf's path is tabled (once per ensemble, ~2.5 ms for the bundled
# trees); fewer rows (``predict one.md``) table only the leaves they reach. Same terms, same order.
TABLE_ROWS = 64


def _paths(trees: TreeEnsemble, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(start, feature, change)``: the path from its tree's root to each node of ``ends`` (distinct)
    is entries ``start[v]:start[v + 1]`` (root first; none for other nodes), each split's feature and
    the change of the node expectation from the split to the child taken."""
    _, parent, depth = trees.shape()
    length = np.zeros(len(depth), dtype=np.intp)
    length[ends] = depth[ends]
    start = np.concatenate([[0], np.cumsum(length)]).astype(np.intp)
    feature, change = np.zeros(start[-1], dtype=np.intp), np.zeros(start[-1])
    node = ends[depth[ends] > 0]
    at = start[node] + depth[node] - 1  # each path filled from its end up
    while node.size:
        up = parent[node]
        feature[at], change[at] = trees.feature[up], trees.expected[node] - trees.expected[up]
        keep = depth[up] > 0
        node, at = up[keep], at[keep] - 1
    return start, feature, change


def path_tables(trees: TreeEnsemble) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_paths` of every leaf, made once per ensemble."""
    tables = trees.__dict__.get("_paths")
    if tables is None:
        tables = trees.__dict__["_paths"] = _paths(trees, np.flatnonzero(trees.is_leaf))
    return tables


def prepare(trees: TreeEnsemble | None) -> None:
    """Make the tables every call reads (the leaves' masks, every leaf's path) now: before forking
    workers that inherit them, or once in a long-lived process that then reads single texts fast."""
    if trees is not None:
        trees.mask_tables()
        if trees.expected is not None:
            path_tables(trees)


def _tables_for(trees: TreeEnsemble, n_rows: int, leaf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every leaf's paths for :data:`TABLE_ROWS` rows or more (or once made); else those of ``leaf``'s."""
    if n_rows >= TABLE_ROWS or "_paths" in trees.__dict__:
        return path_tables(trees)
    reached = np.zeros(len(trees.is_leaf), dtype=bool)
    reached[leaf] = True
    return _paths(trees, np.flatnonzero(reached))


def _path_sums(tables, leaf: np.ndarray, slot: np.ndarray, size: int) -> np.ndarray:
    """``credits[slot[i] + feature] += change`` over every split on the path to ``leaf[i]`` (its
    entries in ``tables``, :func:`_paths`), in the order of ``i`` and then of the path (``size``
    slots). Every caller adds the same terms in the same order for a (row, class), so all give
    bit-identical credits."""
    start, feature, change = tables
    first = start.take(leaf)
    count = start.take(leaf + 1) - first
    walked = count > 0  # (a tree that is one leaf has no path)
    first, count, slot = first[walked], count[walked], slot[walked]
    if not len(count):
        return np.zeros(size)
    begin = np.cumsum(count) - count  # each path's first term among all
    # the terms' table indices and slots as running sums: +1 (or +0) along a path, a jump where the
    # next path begins (two cumsums; np.repeat of each path's offset and slot measured ~20 % slower)
    at, shift = np.ones(int(begin[-1] + count[-1]), dtype=np.intp), np.zeros(int(begin[-1] + count[-1]), dtype=np.intp)
    at[0], at[begin[1:]] = first[0], first[1:] - (first[:-1] + count[:-1] - 1)
    shift[0], shift[begin[1:]] = slot[0], np.diff(slot)
    at, bins = np.cumsum(at), np.cumsum(shift)
    bins += feature.take(at)
    return np.bincount(bins, weights=change.take(at), minlength=size)


def scores_and_credits(trees: TreeEnsemble, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(trees.raw_predict(Z), credits)`` from one search for the leaves: the raw scores, and the
    path credits ``(n, classes, d)`` of :func:`tree_attributions`."""
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    n, d = Z.shape
    k, n_trees = len(trees.baseline), len(trees.roots)
    leaves = trees.leaves(Z)
    tables = _tables_for(trees, n, leaves.ravel())
    credits = np.empty((n, k, d))
    for a in range(0, n, CREDIT_ROWS):
        m = min(CREDIT_ROWS, n - a)
        slot = (np.repeat(np.arange(m, dtype=np.intp) * k, n_trees) + np.tile(trees.tree_class.astype(np.intp), m)) * d
        credits[a:a + m] = _path_sums(tables, leaves[a:a + m].ravel(), slot, m * k * d).reshape(m, k, d)
    return trees.scores(leaves), credits


def tree_attributions(trees: TreeEnsemble, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(credits, bias)``: credits ``(n, classes, d)`` and bias ``(classes,)`` with
    ``bias + credits.sum(-1) == trees.raw_predict(Z)`` (up to float rounding)."""
    if trees.expected is None:
        raise ValueError("these trees carry no node expectations (saved by an older whowrote)")
    k = len(trees.baseline)
    _, credits = scores_and_credits(trees, Z)
    bias = trees.baseline + np.bincount(trees.tree_class, weights=trees.expected[trees.roots], minlength=k)
    return credits, bias


def decision_attributions(model, X: np.ndarray) -> np.ndarray:
    """Per text, class and feature: the members' logit attributions averaged with their weights,
    shape ``(n, classes, d)``. Models without trees (or saved before node expectations existed)
    fall back to the logistic regression's terms alone."""
    Z = log_transform(np.asarray(X, dtype=np.float64))
    linear = ((Z - model.mean_) / model.scale_)[:, None, :] * model.coef_[None, :, :]
    if model.trees_ is None or model.trees_.expected is None:
        return linear
    credits, _ = tree_attributions(model.trees_, Z)
    return (1.0 - model.tree_weight) * linear + model.tree_weight * credits


def pair_credits(trees: TreeEnsemble, Z: np.ndarray, target: np.ndarray, versus: np.ndarray,
                 leaves: np.ndarray | None = None) -> np.ndarray:
    """:func:`tree_attributions`'s credits of two classes per row only, shape ``(n, 2, d)``:
    ``[:, 0]`` for class ``target[i]``, ``[:, 1]`` for ``versus[i]``, bit-identical to them. Only the
    paths in the trees of those two classes are summed (half the work with four classes);
    ``leaves``: :meth:`TreeEnsemble.leaves` of ``Z``, when already found."""
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    n, d = Z.shape
    n_trees = len(trees.roots)
    if leaves is None:
        leaves = trees.leaves(Z)
    target, versus = np.asarray(target, dtype=np.intp), np.asarray(versus, dtype=np.intp)
    if (target == versus).any():  # (both columns would read one class's trees)
        raise ValueError("pair_credits compares two different classes per row")
    classes = trees.tree_class.astype(np.intp)
    # the leaves in the trees of the two classes, and the pairs' (row, class) blocks in the output
    second = (classes == versus[:, None]).ravel()
    keep = np.flatnonzero(second | (classes == target[:, None]).ravel())
    leaf, slot = leaves.ravel().take(keep), (keep // n_trees * 2 + second[keep]) * d
    tables = _tables_for(trees, n, leaf)
    out = np.empty((n, 2, d))
    bounds = np.searchsorted(keep, np.arange(0, n + CREDIT_ROWS, CREDIT_ROWS) * n_trees)  # each block's pairs
    for b, a in enumerate(range(0, n, CREDIT_ROWS)):
        m, lo, hi = min(CREDIT_ROWS, n - a), bounds[b], bounds[b + 1]
        out[a:a + m] = _path_sums(tables, leaf[lo:hi], slot[lo:hi] - a * 2 * d, m * 2 * d).reshape(m, 2, d)
    return out


def decision_support(model, X: np.ndarray, target: np.ndarray, versus: np.ndarray,
                     leaves: np.ndarray | None = None) -> np.ndarray:
    """Per text and feature, how much the decision favours class ``target[i]`` over ``versus[i]``:
    ``D[i, target[i]] - D[i, versus[i]]`` of :func:`decision_attributions`, bit for bit, shape
    ``(n, d)``, without attributing the classes that the tells do not compare. ``leaves``: the
    trees' leaves for ``X`` (:meth:`TreeEnsemble.leaves`), when the probabilities already found them."""
    Z = log_transform(np.asarray(X, dtype=np.float64))
    pair = np.stack([np.asarray(target), np.asarray(versus)], axis=1)
    linear = ((Z - model.mean_) / model.scale_)[:, None, :] * model.coef_[pair]
    if model.trees_ is None or model.trees_.expected is None:
        both = linear
    else:
        credits = pair_credits(model.trees_, Z, target, versus, leaves)
        both = (1.0 - model.tree_weight) * linear + model.tree_weight * credits
    return both[:, 0] - both[:, 1]
