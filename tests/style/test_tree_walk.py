"""The trees' walk (``TreeEnsemble.walk``: leaves stay put, compacted now and then, rows in blocks
of ``WALK_ROWS``) gives the scores and path credits that a plain walk of one (row, tree) at a time
gives, to the bit, on real corpus texts (and with a NaN feature)."""

from __future__ import annotations

import numpy as np
import pytest

from whowrote.style import load_model
from whowrote.style.decision import pair_credits, scores_and_credits
from whowrote.style.trees import WALK_ROWS, log_transform


@pytest.fixture(scope="module")
def model():
    return load_model()


@pytest.fixture(scope="module")
def Z(model, corpus_sample) -> np.ndarray:
    texts = corpus_sample((("chat", 30), ("blogs", 10), ("debates", 10), ("fiction", 10), ("longform", 11)))
    texts.append("")  # an empty text's features too
    assert len(texts) % WALK_ROWS and len(texts) > 2 * WALK_ROWS  # several blocks, the last one partial
    return np.ascontiguousarray(log_transform(model.features(texts)))


def _plain(trees, Z: np.ndarray):
    """Scores and credits walking one (row, tree) pair at a time in Python: each split's
    expectation change summed per (class, feature) over the trees in order, one tree level at a
    time, and each level's sums added to the row's credits (the additions the batched walk makes)."""
    n, d = Z.shape
    k, n_trees = len(trees.baseline), len(trees.roots)
    left, right, leaf = trees.left.tolist(), trees.right.tolist(), trees.is_leaf.tolist()
    feature, threshold, expected = trees.feature.tolist(), trees.threshold.tolist(), trees.expected.tolist()
    missing_left, classes = trees.missing_left.tolist(), trees.tree_class.tolist()
    leaves = np.empty((n, n_trees), dtype=np.int64)
    credits = np.zeros((n, k, d))
    for i, z in enumerate(Z.tolist()):
        paths = []
        for t, root in enumerate(trees.roots.tolist()):
            node, path = root, []
            while not leaf[node]:
                x = z[feature[node]]
                goes_right = (not missing_left[node]) if np.isnan(x) else x > threshold[node]
                child = right[node] if goes_right else left[node]
                path.append((feature[node], expected[child] - expected[node]))
                node = child
            leaves[i, t] = node
            paths.append(path)
        for level in range(max(map(len, paths))):
            step = np.zeros((k, d))
            for t, path in enumerate(paths):
                if level < len(path):
                    f, change = path[level]
                    step[classes[t], f] += change
            credits[i] += step
    raw = np.tile(trees.baseline, (n, 1))
    values = trees.value[leaves]
    for c in range(k):
        raw[:, c] += values[:, trees.tree_class == c].sum(axis=1)
    return raw, credits


def test_the_blocked_walk_equals_a_plain_walk(model, Z):
    trees = model.trees_
    Zn = Z.copy()
    Zn[3, 5] = np.nan  # missing values follow missing_left
    for data in (Z, Zn):
        want_raw, want_credits = _plain(trees, data)
        raw, credits = scores_and_credits(trees, data)
        assert raw.tobytes() == want_raw.tobytes() and credits.tobytes() == want_credits.tobytes()
        assert trees.raw_predict(data).tobytes() == want_raw.tobytes()
        target = np.arange(len(data)) % 4
        versus = (target + 1 + np.arange(len(data)) % 3) % 4
        pair = pair_credits(trees, data, target, versus)
        rows = np.arange(len(data))
        assert pair[:, 0].tobytes() == want_credits[rows, target].tobytes()
        assert pair[:, 1].tobytes() == want_credits[rows, versus].tobytes()


def test_a_weighted_sum_of_ensembles_scores_and_credits_as_the_weighted_parts(model, Z):
    # issue 17's blend in one ensemble: halves of the bundled trees stand in for two fitted ensembles
    from whowrote.style.trees import TreeEnsemble

    t = model.trees_
    n_half = len(t.roots) // 2

    def part(roots: np.ndarray) -> TreeEnsemble:  # a sub-ensemble, renumbered from node 0
        keep = np.zeros(len(t.feature), dtype=bool)
        for r, nxt in zip(t.roots.tolist(), [*t.roots.tolist()[1:], len(t.feature)], strict=True):
            if r in set(roots.tolist()):
                keep[r:nxt] = True  # the exporter lays each tree's nodes out contiguously from its root
        new = np.cumsum(keep) - 1
        return TreeEnsemble(feature=t.feature[keep], threshold=t.threshold[keep],
                            left=np.where(t.is_leaf[keep], 0, new[t.left[keep]]).astype(np.int32),
                            right=np.where(t.is_leaf[keep], 0, new[t.right[keep]]).astype(np.int32),
                            is_leaf=t.is_leaf[keep], value=t.value[keep], missing_left=t.missing_left[keep],
                            roots=new[roots].astype(np.int32), tree_class=t.tree_class[np.isin(t.roots, roots)],
                            baseline=t.baseline * 0.5, max_depth=t.max_depth, expected=t.expected[keep])

    a, b = part(t.roots[:n_half]), part(t.roots[n_half:])
    raw_a, cred_a = scores_and_credits(a, Z)
    raw_b, cred_b = scores_and_credits(b, Z)
    np.testing.assert_allclose(raw_a + raw_b, t.raw_predict(Z), rtol=0, atol=1e-9)  # the split is exact
    merged = TreeEnsemble.weighted_sum([(a, 0.3), (b, 0.7)])
    assert len(merged.roots) == len(t.roots) and merged.check(Z.shape[1], len(t.baseline)) is None
    raw, cred = scores_and_credits(merged, Z)
    np.testing.assert_allclose(raw, 0.3 * raw_a + 0.7 * raw_b, rtol=0, atol=1e-9)
    np.testing.assert_allclose(cred, 0.3 * cred_a + 0.7 * cred_b, rtol=0, atol=1e-9)
    assert not np.allclose(raw, t.raw_predict(Z))  # the weights matter
    saved = TreeEnsemble.from_arrays(merged.to_arrays())  # a valid ensemble by the loader's checks
    np.testing.assert_array_equal(saved.raw_predict(Z), merged.raw_predict(Z))
    with pytest.raises(ValueError, match="at least one"):
        TreeEnsemble.weighted_sum([])
