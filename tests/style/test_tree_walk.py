"""The trees' leaves (``TreeEnsemble.leaves``: bit masks, rows in blocks; ``walk`` for wide trees)
and the path credits summed from them give the scores and credits that a plain walk of one (row,
tree) at a time gives, to the bit, on real corpus texts (and with a NaN feature)."""

from __future__ import annotations

import numpy as np
import pytest

from whowrote.style import load_model
from whowrote.style.decision import CREDIT_ROWS, pair_credits, scores_and_credits
from whowrote.style.trees import log_transform


@pytest.fixture(scope="module")
def model():
    return load_model()


@pytest.fixture(scope="module")
def Z(model, corpus_sample) -> np.ndarray:
    texts = corpus_sample((("chat", 30), ("blogs", 10), ("debates", 10), ("fiction", 10), ("longform", 11)))
    texts.append("")  # an empty text's features too
    assert len(texts) % CREDIT_ROWS and len(texts) > 2 * CREDIT_ROWS  # several blocks, the last one partial
    return np.ascontiguousarray(log_transform(model.features(texts)))


def _plain(trees, Z: np.ndarray):
    """Scores and credits walking one (row, tree) pair at a time in Python: each split's
    expectation change added to the row's (class, feature) credit, tree by tree and down each
    path (the additions the batched sums make, in their order)."""
    n, d = Z.shape
    k, n_trees = len(trees.baseline), len(trees.roots)
    left, right, leaf = trees.left.tolist(), trees.right.tolist(), trees.is_leaf.tolist()
    feature, threshold, expected = trees.feature.tolist(), trees.threshold.tolist(), trees.expected.tolist()
    missing_left, classes = trees.missing_left.tolist(), trees.tree_class.tolist()
    leaves = np.empty((n, n_trees), dtype=np.int64)
    credits = np.zeros((n, k, d))
    for i, z in enumerate(Z.tolist()):
        for t, root in enumerate(trees.roots.tolist()):
            node = root
            while not leaf[node]:
                x = z[feature[node]]
                goes_right = (not missing_left[node]) if np.isnan(x) else x > threshold[node]
                child = right[node] if goes_right else left[node]
                credits[i, classes[t], feature[node]] += expected[child] - expected[node]
                node = child
            leaves[i, t] = node
    raw = np.tile(trees.baseline, (n, 1))
    for i in range(n):
        for t in range(n_trees):  # tree by tree, as scikit-learn adds them
            raw[i, classes[t]] += trees.value[leaves[i, t]]
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


@pytest.mark.parametrize("max_leaf_nodes", [2, 15, 16, 17, 31])
def test_mask_leaves_equal_the_walk_and_sklearn_at_every_tree_width(max_leaf_nodes):
    # masks up to 16 leaves a tree (the bundled model's 15 and the limit), the level walk beyond
    from sklearn.ensemble import HistGradientBoostingClassifier

    from whowrote.style.trees import MASK_LEAVES, TreeEnsemble

    rng = np.random.default_rng(max_leaf_nodes)
    X = rng.normal(size=(600, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int) + (X[:, 3] > 0.5)
    X[rng.random(X.shape) < 0.1] = np.nan  # missing values: each split sends them its own way
    h = HistGradientBoostingClassifier(max_iter=15, max_leaf_nodes=max_leaf_nodes, random_state=0).fit(X, y)
    trees = TreeEnsemble.from_sklearn(h)
    widest = max(len(p.nodes) for per_iter in h._predictors for p in per_iter) // 2 + 1
    assert (trees.mask_tables() is None) == (widest > MASK_LEAVES)
    Xte = rng.normal(size=(200, 6))
    Xte[rng.random(Xte.shape) < 0.1] = np.nan
    leaves = trees.leaves(Xte)
    assert leaves.tobytes() == trees.walk(Xte).reshape(len(Xte), -1).tobytes()
    assert trees.is_leaf[leaves].all()
    assert trees.raw_predict(Xte).tobytes() == h._raw_predict(Xte).tobytes()


def test_a_tree_that_is_one_leaf_is_read_by_the_masks():
    from whowrote.style.trees import TreeEnsemble

    # tree 0: a root split on feature 1 at 0.5; tree 1: a lone leaf
    trees = TreeEnsemble(feature=np.array([1, 0, 0, 0], dtype=np.int32), threshold=np.array([0.5, 0, 0, 0]),
                         left=np.array([1, 0, 0, 0], dtype=np.int32), right=np.array([2, 0, 0, 0], dtype=np.int32),
                         is_leaf=np.array([False, True, True, True]), value=np.array([0.0, -1.0, 2.0, 7.0]),
                         missing_left=np.array([True, False, False, False]), roots=np.array([0, 3], dtype=np.int32),
                         tree_class=np.array([0, 1], dtype=np.int32), baseline=np.zeros(2), max_depth=2)
    X = np.array([[0.0, 0.4], [0.0, 0.6], [0.0, np.nan]])
    assert trees.mask_tables() is not None
    assert trees.leaves(X).tolist() == [[1, 3], [2, 3], [1, 3]]
    assert trees.raw_predict(X).tolist() == [[-1.0, 7.0], [2.0, 7.0], [-1.0, 7.0]]


def test_raw_predict_in_row_blocks_gives_each_rows_own_scores(model, Z):
    from whowrote.style.trees import SCORE_ROWS

    many = np.tile(Z, (SCORE_ROWS // len(Z) + 2, 1))  # more rows than one block, the last one partial
    assert len(many) > SCORE_ROWS and len(many) % SCORE_ROWS
    want = np.tile(model.trees_.scores(model.trees_.leaves(Z)), (SCORE_ROWS // len(Z) + 2, 1))
    assert model.trees_.raw_predict(many).tobytes() == want.tobytes()


def test_a_few_rows_walk_and_table_only_their_leaves_with_the_same_bits(model, Z):
    # fewer than MASK_ROWS / TABLE_ROWS rows on an ensemble without tables (predict one.md) take the
    # level walk and table only the leaves they reach; the results must not depend on the batch
    from whowrote.style.decision import TABLE_ROWS
    from whowrote.style.trees import MASK_ROWS, TreeEnsemble

    assert len(Z) >= max(MASK_ROWS, TABLE_ROWS)
    big = TreeEnsemble.from_arrays(model.trees_.to_arrays())
    raw, credits = scores_and_credits(big, Z)
    target = np.arange(len(Z)) % 4
    versus = (target + 1 + np.arange(len(Z)) % 3) % 4
    pair = pair_credits(big, Z, target, versus)
    for rows in (slice(0, 1), slice(5, 8), slice(10, 10 + min(MASK_ROWS, TABLE_ROWS) - 1)):
        fresh = TreeEnsemble.from_arrays(model.trees_.to_arrays())
        r, c = scores_and_credits(fresh, Z[rows])
        p = pair_credits(fresh, Z[rows], target[rows], versus[rows])
        assert not {"_masks", "_paths"} & set(fresh.__dict__)  # walked, and only the reached paths tabled
        assert r.tobytes() == raw[rows].tobytes() and c.tobytes() == credits[rows].tobytes()
        assert p.tobytes() == pair[rows].tobytes()


def test_an_ensemble_without_trees_scores_its_baseline_and_pairs_must_differ(model, Z):
    from whowrote.style.trees import TreeEnsemble

    empty = TreeEnsemble(feature=np.zeros(0, dtype=np.int32), threshold=np.zeros(0), left=np.zeros(0, dtype=np.int32),
                         right=np.zeros(0, dtype=np.int32), is_leaf=np.zeros(0, dtype=bool), value=np.zeros(0),
                         missing_left=np.zeros(0, dtype=bool), roots=np.zeros(0, dtype=np.int32),
                         tree_class=np.zeros(0, dtype=np.int32), baseline=np.array([0.5, -0.5]), max_depth=0)
    for rows in (3, 70):  # an ensemble without trees returns before either search
        assert empty.leaves(Z[:rows]).shape == (rows, 0)
        assert empty.raw_predict(Z[:rows]).tolist() == [[0.5, -0.5]] * rows
    with pytest.raises(ValueError, match="two different classes"):
        pair_credits(model.trees_, Z[:2], np.array([0, 1]), np.array([1, 1]))


def test_prepare_makes_the_tables_once_and_single_rows_read_the_same(model, Z):
    from whowrote.style.decision import prepare
    from whowrote.style.trees import TreeEnsemble

    want_raw, want_credits = scores_and_credits(model.trees_, Z)
    fresh = TreeEnsemble.from_arrays(model.trees_.to_arrays())
    prepare(fresh)
    assert {"_masks", "_paths"} <= set(fresh.__dict__)
    masks = fresh.__dict__["_masks"]
    raw, credits = scores_and_credits(fresh, Z[4:5])  # one row now reads the masks made beforehand
    assert fresh.__dict__["_masks"] is masks
    assert raw.tobytes() == want_raw[4:5].tobytes() and credits.tobytes() == want_credits[4:5].tobytes()
    prepare(None)  # a model without trees: nothing to make
