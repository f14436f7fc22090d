"""``StyleModel``: stylometric features -> calibrated CLAUDE / CHATGPT / GEMINI / OTHER probabilities.

The model is a weighted average (``tree_weight`` for the trees, the rest for the LR) of two
members on the same features (``signed log1p`` of the raw feature values, so heavy-tailed rates
such as em-dashes per 1k characters behave):

- a standardised multinomial logistic regression (the research probe's recipe; it also gives the
  per-feature contributions that explanations cite), and
- gradient-boosted trees (``HistGradientBoostingClassifier``), which capture thresholds and
  interactions (a heading rate means something else in fiction than in a blog).

The averaged probabilities are then temperature-scaled with a temperature fitted on
out-of-fold predictions (folds grouped by topic, so no topic is in both halves). Training rows are
weighted against the class counts of their genre (``weighting``: ``"cell"`` makes each (genre,
provider) cell count equally; ``"sqrt"``, the default, weighs a row ``1 / sqrt(n_genre * n_cell)``),
so the classifier does not learn "fiction => OTHER" just because fiction has many OTHER texts.
The defaults (trees weighted 0.85, 300 rounds, ``"sqrt"``) were chosen on inner topic splits of
the training data; see ``docs/predict.md``.

Inference needs numpy only (both members are stored as arrays); scikit-learn is imported by
``fit``. Abstain rule: ``uncertain`` when the top probability is below ``abstain_below`` or the
text is shorter than ``min_words``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from whowrote.style.calibration import fit_temperature, softmax
from whowrote.style.features import extract, feature_names
from whowrote.style.trees import TreeEnsemble
from whowrote.types import LABELS


def log_transform(X: np.ndarray) -> np.ndarray:
    return np.sign(X) * np.log1p(np.abs(X))


@dataclass
class StyleModel:
    """scikit-learn-style classifier over stylometric features (see the module docstring)."""

    feature_set: str = "full"
    C: float = 0.1
    use_trees: bool = True
    tree_iter: int = 300
    tree_leaves: int = 15
    tree_weight: float = 0.85  # share of the trees in the averaged probabilities (LR gets the rest)
    weighting: str = "sqrt"  # "cell": each (genre, label) cell equal; "sqrt": 1/sqrt(n_genre * n_cell)
    seed: int = 0
    calibrate: bool = True
    abstain_below: float = 0.5
    min_words: int = 100
    # Fitted state (arrays; what save/load round-trips).
    classes_: np.ndarray = field(default_factory=lambda: np.array([], dtype=object))
    mean_: np.ndarray | None = None
    scale_: np.ndarray | None = None
    coef_: np.ndarray | None = None
    intercept_: np.ndarray | None = None
    trees_: TreeEnsemble | None = None
    temperature_: float = 1.0
    norms_: np.ndarray | None = None  # per-class mean raw feature value, (n_classes, d)
    metrics_: dict[str, Any] = field(default_factory=dict)
    training_: dict[str, Any] = field(default_factory=dict)

    # ---- features -------------------------------------------------------------------------
    @property
    def feature_names_(self) -> list[str]:
        return feature_names(self.feature_set)

    def features(self, texts_or_X) -> np.ndarray:
        if isinstance(texts_or_X, np.ndarray) and texts_or_X.dtype != object:
            X = np.asarray(texts_or_X, dtype=np.float64)
            if X.ndim != 2 or X.shape[1] != len(self.feature_names_):
                raise ValueError(f"expected a (n, {len(self.feature_names_)}) feature matrix, got {X.shape}")
            return X
        if isinstance(texts_or_X, str):  # list("a text") would be one text per character
            raise TypeError("expected a sequence of texts (or a feature matrix), not one string")
        return extract(list(texts_or_X), self.feature_set)

    # ---- fitting --------------------------------------------------------------------------
    def check_settings(self) -> None:
        """ValueError for settings outside their range (used by ``fit`` and by the model loader)."""
        if self.weighting not in ("cell", "sqrt"):
            raise ValueError(f"weighting must be 'cell' or 'sqrt', not {self.weighting!r}")
        if not 0.0 <= self.tree_weight <= 1.0:
            raise ValueError(f"tree_weight must be in [0, 1], not {self.tree_weight!r}")

    def fit(self, texts_or_X, y: Sequence[str], genres: Sequence[str] | None = None,
            groups: Sequence[str] | None = None, sample_weight: Sequence[float] | None = None) -> StyleModel:
        """Fit on texts (or a precomputed feature matrix) and labels.

        ``genres`` balances the sample weights per (genre, label) cell; ``groups`` (e.g. topic
        keys) keeps the calibration folds honest.
        """
        X = self.features(texts_or_X)
        y = np.asarray(y, dtype=object)
        present = set(y.tolist())
        self.classes_ = np.array([c for c in LABELS if c in present] + sorted(present - set(LABELS)), dtype=object)
        yi = np.array([list(self.classes_).index(v) for v in y])
        self.check_settings()
        w = _balanced_weights(yi, genres, sqrt=self.weighting == "sqrt")
        if sample_weight is not None:  # e.g. down-weighting truncated copies of training texts
            w = w * np.asarray(sample_weight, dtype=np.float64)
            w = w * len(w) / w.sum()
        self._fit_members(X, yi, w)
        # Means, as in the research spec's provider table (medians are 0 for sparse marks).
        self.norms_ = np.array([X[yi == k].mean(axis=0) for k in range(len(self.classes_))])
        self.temperature_ = 1.0
        if self.calibrate and len(X) >= 50:
            oof = self._oof_logits(X, yi, w, groups)
            self.temperature_ = fit_temperature(oof, yi)
        return self

    def _fit_members(self, X: np.ndarray, yi: np.ndarray, w: np.ndarray) -> None:
        from sklearn.linear_model import LogisticRegression

        Z = log_transform(X)
        self.mean_ = Z.mean(axis=0)
        self.scale_ = np.where(Z.std(axis=0) > 0, Z.std(axis=0), 1.0)
        lr = LogisticRegression(C=self.C, max_iter=5000)
        lr.fit((Z - self.mean_) / self.scale_, yi, sample_weight=w)
        coef, intercept = lr.coef_, lr.intercept_
        if coef.shape[0] == 1:  # binary: sklearn stores one row; expand to two logits
            coef, intercept = np.vstack([-coef / 2, coef / 2]), np.array([-intercept[0] / 2, intercept[0] / 2])
        self.coef_, self.intercept_ = coef, intercept
        self.trees_ = None
        if self.use_trees and len(self.classes_) > 2:
            from sklearn.ensemble import HistGradientBoostingClassifier
            from threadpoolctl import threadpool_limits

            hgb = HistGradientBoostingClassifier(max_iter=self.tree_iter, learning_rate=0.1,
                                                 max_leaf_nodes=self.tree_leaves, l2_regularization=1.0,
                                                 early_stopping=False, random_state=self.seed)
            # One thread: OpenMP on a shared, busy machine thrashes (measured 90x slower).
            with threadpool_limits(limits=1):
                hgb.fit(Z, yi, sample_weight=w)
            self.trees_ = TreeEnsemble.from_sklearn(hgb)

    def _oof_logits(self, X: np.ndarray, yi: np.ndarray, w: np.ndarray, groups) -> np.ndarray:
        from sklearn.model_selection import GroupKFold, StratifiedKFold

        oof = np.zeros((len(X), len(self.classes_)))
        if groups is not None:
            folds = GroupKFold(n_splits=3).split(X, yi, groups=np.asarray(groups))
        else:
            folds = StratifiedKFold(n_splits=3, shuffle=True, random_state=self.seed).split(X, yi)
        for tr, te in folds:
            if len(set(yi[tr])) < len(self.classes_):  # a fold without some class: skip it
                continue
            member = StyleModel(**{k: getattr(self, k) for k in _PARAMS}, calibrate=False)
            member.classes_ = self.classes_
            member._fit_members(X[tr], yi[tr], w[tr])
            oof[te] = member.logits(X[te])
        return oof

    # ---- inference ------------------------------------------------------------------------
    def logits(self, texts_or_X) -> np.ndarray:
        """Log of the (uncalibrated) averaged member probabilities."""
        X = self.features(texts_or_X)
        Z = log_transform(X)
        p = softmax(((Z - self.mean_) / self.scale_) @ self.coef_.T + self.intercept_)
        if self.trees_ is not None:
            p = (1.0 - self.tree_weight) * p + self.tree_weight * softmax(self.trees_.raw_predict(Z))
        return np.log(np.clip(p, 1e-300, None))

    def predict_proba(self, texts_or_X) -> np.ndarray:
        """Calibrated probabilities, columns in ``classes_`` order, rows summing to 1."""
        if self.coef_ is None:
            raise RuntimeError("StyleModel is not fitted")
        return softmax(self.logits(texts_or_X), self.temperature_)

    def predict(self, texts_or_X) -> np.ndarray:
        return self.classes_[self.predict_proba(texts_or_X).argmax(axis=1)]

    def contributions(self, X: np.ndarray) -> np.ndarray:
        """Per-class, per-feature logistic-regression logit terms, shape ``(n, classes, d)``."""
        Z = (log_transform(np.asarray(X, dtype=np.float64)) - self.mean_) / self.scale_
        return Z[:, None, :] * self.coef_[None, :, :]

    def attribute(self, texts: Sequence[str], n_tells: int = 5) -> list:
        """One :class:`~whowrote.style.explain.Attribution` per text (probabilities over all four
        labels, the abstain flag, the tells and warnings)."""
        from whowrote.style.explain import attribute

        return attribute(self, texts, n_tells=n_tells)

    def save(self, path) -> None:
        from whowrote.style.io import save_model

        save_model(self, path)


_PARAMS = ("feature_set", "C", "use_trees", "tree_iter", "tree_leaves", "tree_weight", "weighting", "seed",
           "abstain_below", "min_words")


def _balanced_weights(yi: np.ndarray, genres: Sequence[str] | None, sqrt: bool = False) -> np.ndarray:
    """Weights making every (genre, class) cell sum to the same total; mean weight 1.

    With ``sqrt``, a row weighs ``1 / sqrt(n_genre * n_cell)`` instead of ``1 / n_cell``: the geometric
    mean of genre balancing and cell balancing, so a genre's majority label keeps part of its share.
    """
    cells = list(zip(genres, yi.tolist(), strict=True)) if genres is not None else yi.tolist()
    _, inverse, counts = np.unique(np.array([str(c) for c in cells]), return_inverse=True, return_counts=True)
    n_cell = counts[inverse].astype(np.float64)
    if sqrt:  # without genres every row shares one genre: sqrt(n * n_cell)
        g = np.array([str(v) for v in genres]) if genres is not None else np.zeros(len(yi), dtype=str)
        _, g_inverse, g_counts = np.unique(g, return_inverse=True, return_counts=True)
        n_cell = np.sqrt(g_counts[g_inverse] * n_cell)
    w = 1.0 / n_cell
    return w * len(w) / w.sum()
