"""What the whole model's decision rests on: per-feature attributions of both members.

The trees carry most of the vote, so the tells must come from them too. For each tree, a text
walks one path from the root to a leaf; every split on the way changes the expected output (the
training-count-weighted mean of the leaves below a node) from the parent's to the child's, and
that change is credited to the split's feature (Saabas path attribution). Per tree the credits sum
exactly to ``leaf value - root expectation``, so per class
``baseline + sum(root expectations) + sum(credits) == the trees' raw score`` — an exact
decomposition of the output, cheap enough to run on every prediction (one walk, like
``TreeEnsemble.raw_predict``). The logistic regression's terms are exact already
(``z_j * coef_kj``). Both are in logit units; the decision's attribution is their average with the
members' weights.
"""

from __future__ import annotations

import numpy as np

from whowrote.style.trees import WALK_ROWS, TreeEnsemble, log_transform


def _credit_adder(trees: TreeEnsemble, slot: np.ndarray, size: int):
    """``(credits, on_step)``: an :meth:`TreeEnsemble.walk` ``on_step`` that adds each split's
    change of the node expectation to ``credits[slot[pair] + split feature]`` (``size`` slots).
    Every caller's slots get the same terms in the same order, so all give bit-identical credits
    (a pair that already sits on a leaf adds 0.0, which changes no sum)."""
    credits = np.zeros(size)
    change = trees.step_change()
    step_feature = trees.step_tables().step_feature
    last = [None, None]  # the walk passes the same ``active`` array until it compacts: its slots, gathered once

    def on_step(active: np.ndarray, step: np.ndarray) -> None:
        if last[0] is not active:
            last[0], last[1] = active, slot.take(active)
        np.add(credits, np.bincount(last[1] + step_feature.take(step), weights=change.take(step), minlength=size),
               out=credits)

    return credits, on_step


def scores_and_credits(trees: TreeEnsemble, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(trees.raw_predict(Z), credits)`` from one walk: the raw scores, and the path credits
    ``(n, classes, d)`` of :func:`tree_attributions`. The rows go :data:`~whowrote.style.trees.WALK_ROWS`
    at a time (a row's scores and credits depend on that row alone: the same bits)."""
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    n, d = Z.shape
    k = len(trees.baseline)
    raw, credits = np.empty((n, k)), np.empty((n, k, d))
    classes = trees.tree_class.astype(np.int64)
    for a in range(0, n, WALK_ROWS):
        block = Z[a:a + WALK_ROWS]
        m = len(block)
        row = np.repeat(np.arange(m, dtype=np.int64), len(trees.roots))
        slot = (row * k + np.tile(classes, m)) * d
        got, on_step = _credit_adder(trees, slot, m * k * d)
        raw[a:a + m] = trees.raw_predict(block, on_step=on_step)
        credits[a:a + m] = got.reshape(m, k, d)
    return raw, credits


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


def pair_credits(trees: TreeEnsemble, Z: np.ndarray, target: np.ndarray, versus: np.ndarray) -> np.ndarray:
    """:func:`tree_attributions`'s credits of two classes per row only, shape ``(n, 2, d)``:
    ``[:, 0]`` for class ``target[i]``, ``[:, 1]`` for ``versus[i]``. Only the trees of those two
    classes are walked (half the work with four classes), bit-identical to the full walk; the rows
    go :data:`~whowrote.style.trees.WALK_ROWS` at a time, as in :func:`scores_and_credits`."""
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    n, d = Z.shape
    n_trees = len(trees.roots)
    target, versus = np.asarray(target, dtype=np.int64), np.asarray(versus, dtype=np.int64)
    out = np.empty((n, 2, d))
    for a in range(0, n, WALK_ROWS):
        block = Z[a:a + WALK_ROWS]
        m = len(block)
        cls = np.tile(trees.tree_class.astype(np.int64), m)
        row = np.repeat(np.arange(m, dtype=np.int64), n_trees)
        second = cls == np.repeat(versus[a:a + m], n_trees)
        keep = np.flatnonzero(second | (cls == np.repeat(target[a:a + m], n_trees)))
        slot = (row[keep] * 2 + second[keep]) * d  # the pair's (row, class) block in the output
        credits, on_step = _credit_adder(trees, slot, m * 2 * d)
        trees.walk(block, keep, on_step)
        out[a:a + m] = credits.reshape(m, 2, d)
    return out


def decision_support(model, X: np.ndarray, target: np.ndarray, versus: np.ndarray,
                     credits: np.ndarray | None = None) -> np.ndarray:
    """Per text and feature, how much the decision favours class ``target[i]`` over ``versus[i]``:
    ``D[i, target[i]] - D[i, versus[i]]`` of :func:`decision_attributions`, bit for bit, shape
    ``(n, d)``, without attributing the classes that the tells do not compare. ``credits``: the
    trees' credits of every class from :func:`scores_and_credits`, when the walk that gave the
    probabilities already made them (otherwise only the two classes' trees are walked here)."""
    Z = log_transform(np.asarray(X, dtype=np.float64))
    pair = np.stack([np.asarray(target), np.asarray(versus)], axis=1)
    linear = ((Z - model.mean_) / model.scale_)[:, None, :] * model.coef_[pair]
    if model.trees_ is None or model.trees_.expected is None:
        both = linear
    else:
        if credits is None:
            credits = pair_credits(model.trees_, Z, target, versus)
        else:
            credits = credits[np.arange(len(pair))[:, None], pair]
        both = (1.0 - model.tree_weight) * linear + model.tree_weight * credits
    return both[:, 0] - both[:, 1]
