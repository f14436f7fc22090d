"""The blend of two tree ensembles, distilled into one of the bundled size (``tree_settings.py``
rounds 15 and 16; issue 17, session 33).

``--blend-iter 300`` (the bundled trees' class scores averaged with those of 300 rounds of leaves
of at least 1,000 rows) reads unseen genres ~2.5-2.9 points better at no in-genre cost, but its
2,400 trees slow ``predict`` below issue 11's targets. A student of the bundled size (300 rounds
of 15-leaf trees per class: 1,200 trees, the bundled walk) is fitted to the blend's class scores on
the same training rows and copies, with the same sample weights, one
``HistGradientBoostingRegressor`` per class (squared error on the teacher's raw score), and
replaces the blend's trees. Whether the student keeps the blend's reading of unseen genres is what
the rounds test; the hypothesis is that it does because it learns the blend's smoother function,
not the labels.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from whowrote.style import StyleModel
from whowrote.style.model import fit_weights
from whowrote.style.train import AUG_WEIGHT, augmented_rows
from whowrote.style.trees import TreeEnsemble, log_transform


def training_rows(model: StyleModel, Xr: np.ndarray, Xc: np.ndarray, frame: pd.DataFrame,
                  aug_weight: float = AUG_WEIGHT) -> tuple[np.ndarray, np.ndarray]:
    """``(Z, w)``: the rows the model's trees were fitted on (``augmented_rows``: the texts, then
    each kind of copy; log-transformed) and their sample weights (``fit_weights``, as ``fit`` makes them)."""
    rows, y, genres, _, copy_weight = augmented_rows(Xr, Xc, frame["provider"], frame["genre"], aug_weight=aug_weight)
    yi = np.array([list(model.classes_).index(v) for v in y])
    return log_transform(rows), fit_weights(yi, genres, copy_weight, sqrt=model.weighting == "sqrt")


def student_trees(teacher: StyleModel, Z: np.ndarray, w: np.ndarray) -> TreeEnsemble:
    """One regressor per class fitted to ``teacher.trees_``'s raw class scores on ``Z`` (weights
    ``w``), with the teacher's bundled tree settings, exported as one ensemble (a tree per class per
    round, as the classifier's)."""
    from sklearn.ensemble import HistGradientBoostingRegressor
    from threadpoolctl import threadpool_limits

    target = teacher.trees_.raw_predict(Z)
    regs = []
    with threadpool_limits(limits=1):
        for k in range(target.shape[1]):
            reg = HistGradientBoostingRegressor(max_iter=teacher.tree_iter, learning_rate=0.1,
                                                max_leaf_nodes=teacher.tree_leaves, l2_regularization=1.0,
                                                early_stopping=False, random_state=teacher.seed)
            regs.append(reg.fit(Z, target[:, k], sample_weight=w))
    # the classifier's layout: per round, one predictor per class; the baselines side by side
    shim = SimpleNamespace(_predictors=[[r._predictors[i][0] for r in regs] for i in range(teacher.tree_iter)],
                           _baseline_prediction=np.array([float(np.ravel(r._baseline_prediction)[0]) for r in regs]))
    return TreeEnsemble.from_sklearn(shim)


def distilled(teacher: StyleModel, Xr: np.ndarray, Xc: np.ndarray, frame: pd.DataFrame) -> StyleModel:
    """A copy of ``teacher`` (a fitted blend) whose trees are its :func:`student_trees`."""
    import copy

    Z, w = training_rows(teacher, Xr, Xc, frame)
    student = copy.copy(teacher)
    student.trees_ = student_trees(teacher, Z, w)
    student.blend_iter = 0  # one ensemble of the bundled size
    return student
