"""``StyleModel``: stylometric features -> calibrated CLAUDE / CHATGPT / GEMINI / OTHER probabilities.

The model reads the :func:`~whowrote.style.edits.canonical` form of a text (ASCII typography, lower
case), so the edits that editors and pipelines make without asking — curly or straight quotes,
``--`` or em-dash, capitalisation — cannot move its verdict. Typography stays visible to people as
a *fragile* tell (``whowrote.style.explain``), never as evidence the verdict rests on.

It is a weighted average (``tree_weight`` for the trees, the rest for the LR) of two members on
the same features (``signed log1p`` of the raw feature values, so heavy-tailed rates behave):

- a standardised multinomial logistic regression (the research probe's recipe), and
- gradient-boosted trees (``HistGradientBoostingClassifier``), which capture thresholds and
  interactions (a heading rate means something else in fiction than in a blog); with
  ``blend_iter`` > 0 (off in the bundled model) a second ensemble of large leaves
  (``blend_min_samples_leaf``) is averaged into their class scores, which reads unseen genres
  better at a small in-genre cost.

Calibration holds for texts like and unlike the training data: the temperature grows with the
text's distance to the training data (``T(d) = T0 * (1 + d) ** slope``, ``whowrote.style.calibration``),
fitted on out-of-genre predictions (each genre predicted by members trained without it) together
with in-genre out-of-fold predictions (unseen topics of seen genres); the abstain threshold and
the out-of-distribution threshold are chosen on the out-of-genre predictions. Training rows are
weighted against the class counts of their genre (``weighting``), so "fiction => OTHER" is not learned just
because fiction has many OTHER texts.

scikit-learn's estimator contract: settings in ``__init__`` (``get_params``/``set_params``,
``sklearn.base.clone`` works), fitted state with trailing underscores set by ``fit``. Inference needs
numpy only; scikit-learn is imported by ``fit``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from whowrote.style.calibration import fit_shift_temperature, scaled_softmax, softmax, temperatures
from whowrote.style.canonical import canonical as canonical_form
from whowrote.style.features import extract, feature_names
from whowrote.style.ood import FeatureDensity, choose_abstain
from whowrote.style.trees import TreeEnsemble, log_transform
from whowrote.types import LABELS

# Every setting with its type (the model loader checks saved files against these).
PARAM_TYPES: dict[str, type] = {
    "feature_set": str, "canonical": bool, "canonical_lists": bool, "canonical_paragraphs": bool, "C": float, "use_trees": bool, "tree_iter": int, "tree_leaves": int,
    "tree_weight": float, "weighting": str, "seed": int, "calibrate": bool, "abstain_below": float,
    "ood_quantile": float, "target_accuracy": float, "min_words": int, "blend_iter": int,
    "blend_min_samples_leaf": int, "canonical_list_spacing": bool,
}
# Settings added after model files existed, each with the setting that switches it on: recorded (model
# file; the served card, the blend's) only when on, so a model without them reads as before they existed
# (older loaders refuse unknown settings).
SWITCHED_PARAMS = {"blend_iter": "blend_iter", "blend_min_samples_leaf": "blend_iter",
                   "canonical_paragraphs": "canonical_paragraphs", "canonical_list_spacing": "canonical_list_spacing"}
BLEND_PARAMS = ("blend_iter", "blend_min_samples_leaf")  # the second tree ensemble's


class StyleModel:
    """scikit-learn classifier over stylometric features (see the module docstring).

    ``abstain_below``: "uncertain" below this top probability; ``-1`` (the default) chooses it at
    fit time on out-of-genre predictions, as the lowest threshold whose accepted texts reach
    ``target_accuracy``. ``ood_quantile``: texts farther from every training (genre, label) cell
    than this quantile of the out-of-genre distances are "uncertain" too (1 turns it off).
    """

    def __init__(self, feature_set: str = "full", canonical: bool = True, canonical_lists: bool = False,
                 C: float = 0.1, use_trees: bool = True,
                 tree_iter: int = 300, tree_leaves: int = 15, tree_weight: float = 0.85, weighting: str = "sqrt",
                 seed: int = 0, calibrate: bool = True, abstain_below: float = -1.0, ood_quantile: float = 0.9,
                 target_accuracy: float = 0.9, min_words: int = 100, blend_iter: int = 0,
                 blend_min_samples_leaf: int = 1000, canonical_paragraphs: bool = False,
                 canonical_list_spacing: bool = False) -> None:
        self.feature_set = feature_set
        self.canonical = canonical
        self.canonical_lists = canonical_lists
        self.canonical_paragraphs = canonical_paragraphs
        self.canonical_list_spacing = canonical_list_spacing
        self.C = C
        self.use_trees = use_trees
        self.tree_iter = tree_iter
        self.tree_leaves = tree_leaves
        self.tree_weight = tree_weight
        self.weighting = weighting
        self.seed = seed
        self.calibrate = calibrate
        self.abstain_below = abstain_below
        self.ood_quantile = ood_quantile
        self.target_accuracy = target_accuracy
        self.min_words = min_words
        self.blend_iter = blend_iter
        self.blend_min_samples_leaf = blend_min_samples_leaf

    # ---- scikit-learn's estimator API ------------------------------------------------------
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {k: getattr(self, k) for k in PARAM_TYPES}

    def set_params(self, **params: Any) -> StyleModel:
        unknown = set(params) - set(PARAM_TYPES)
        if unknown:
            raise ValueError(f"invalid parameters {sorted(unknown)} for StyleModel; valid: {list(PARAM_TYPES)}")
        for k, v in params.items():
            setattr(self, k, v)
        return self

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(), input_tags=InputTags(string=True))

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.get_params().items() if v != StyleModel().__dict__[k]}
        return "StyleModel(" + ", ".join(f"{k}={v!r}" for k, v in changed.items()) + ")"

    def check_settings(self) -> None:
        """ValueError for settings outside their range (used by ``fit`` and by the model loader)."""
        if self.weighting not in ("cell", "sqrt"):
            raise ValueError(f"weighting must be 'cell' or 'sqrt', not {self.weighting!r}")
        if not 0.0 <= self.tree_weight <= 1.0:
            raise ValueError(f"tree_weight must be in [0, 1], not {self.tree_weight!r}")
        if not (self.abstain_below == -1.0 or 0.0 <= self.abstain_below <= 1.0):
            raise ValueError(f"abstain_below must be in [0, 1] or -1 (choose at fit), not {self.abstain_below!r}")
        if not 0.0 < self.ood_quantile <= 1.0:
            raise ValueError(f"ood_quantile must be in (0, 1], not {self.ood_quantile!r}")
        if self.blend_iter < 0 or self.blend_min_samples_leaf < 1:
            raise ValueError(f"blend_iter must be >= 0 and blend_min_samples_leaf >= 1, not "
                             f"{self.blend_iter!r} / {self.blend_min_samples_leaf!r}")

    # ---- features -------------------------------------------------------------------------
    @property
    def feature_names_(self) -> list[str]:
        return feature_names(self.feature_set)

    def features(self, texts_or_X) -> np.ndarray:
        """The feature matrix of texts (their canonical form), or a matrix passed through."""
        if isinstance(texts_or_X, np.ndarray) and texts_or_X.dtype != object:
            X = np.asarray(texts_or_X, dtype=np.float64)
            if X.ndim != 2 or X.shape[1] != len(self.feature_names_):
                raise ValueError(f"expected a (n, {len(self.feature_names_)}) feature matrix, got {X.shape}")
            return X
        if isinstance(texts_or_X, str):  # list("a text") would be one text per character
            raise TypeError("expected a sequence of texts (or a feature matrix), not one string")
        texts = [canonical_form(t) for t in texts_or_X] if self.canonical else list(texts_or_X)
        # "* " / "+ " bullets read as "- " (tried for issue 17, not adopted: docs/predict-trials.md)
        if self.canonical_lists:
            from whowrote.style.edits import same_list_markers  # here: predict's start-up loads no edits

            texts = [same_list_markers(t) for t in texts]
        if self.canonical_paragraphs:  # every line break read as a paragraph break (issue 17 trial, session 31)
            from whowrote.style.edits import one_blank_line

            texts = [one_blank_line(t) for t in texts]
        if self.canonical_list_spacing:  # every list read tight (issue 17 trial, session 51)
            from whowrote.style.edits import tight_lists

            texts = [tight_lists(t) for t in texts]
        return extract(texts, self.feature_set)

    # ---- fitting --------------------------------------------------------------------------
    def fit(self, texts_or_X, y: Sequence[str], genres: Sequence[str] | None = None,
            groups: Sequence[str] | None = None, sample_weight: Sequence[float] | None = None) -> StyleModel:
        """Fit on texts (or a precomputed feature matrix) and labels.

        ``genres`` balances the sample weights per (genre, label) cell and, with three or more
        genres, makes the calibration folds leave-one-genre-out; otherwise ``groups`` (e.g. topic
        keys) keeps the calibration folds honest.
        """
        X = self.features(texts_or_X)
        y = np.asarray(y, dtype=object)
        self.metrics_, self.training_ = {}, {}
        present = set(y.tolist())
        self.classes_ = np.array([c for c in LABELS if c in present] + sorted(present - set(LABELS)), dtype=object)
        yi = np.array([list(self.classes_).index(v) for v in y])
        self.check_settings()
        g = np.asarray(genres, dtype=object) if genres is not None else np.zeros(len(y), dtype=object)
        w = fit_weights(yi, genres, sample_weight, sqrt=self.weighting == "sqrt")
        self._fit_members(X, yi, w)
        # Means, as in the research spec's provider table (medians are 0 for sparse marks).
        self.norms_ = np.array([X[yi == k].mean(axis=0) for k in range(len(self.classes_))])
        self.density_ = FeatureDensity.fit(self._z(X), yi, g)
        self.temperature_, self.temperature_slope_ = 1.0, 0.0
        self.abstain_below_, self.ood_threshold_ = 0.5, float("inf")
        if self.abstain_below != -1.0:
            self.abstain_below_ = self.abstain_below
        if self.calibrate and len(X) >= 50:
            oof, dist, in_genre = self._oof(X, yi, w, g, groups)
            self.calibrate_out_of_genre(oof, dist, y, in_genre=in_genre)
        return self

    def calibrate_out_of_genre(self, logits: np.ndarray, distances: np.ndarray, y: Sequence[str],
                               in_genre: tuple[np.ndarray, np.ndarray, Sequence[str]] | None = None) -> StyleModel:
        """Fit the calibration on out-of-fold predictions: ``logits`` from members that never saw
        the rows' genre, their ``distances`` to those members' training cells, the rows' labels y;
        ``in_genre``, the same triple for rows of genres the members saw (unseen topics).

        With ``in_genre`` the temperature depends on the distance (the in-genre rows weigh
        ``calibration.IN_GENRE_WEIGHT`` in the fit, the out-of-genre rows the rest); without it one
        temperature is fitted on the out-of-genre rows. The distance threshold and
        (``abstain_below=-1``) the abstain threshold come from the out-of-genre rows."""
        yi = self._indices(y)
        li, di, yin = (in_genre[0], np.asarray(in_genre[1], dtype=np.float64), self._indices(in_genre[2])) \
            if in_genre is not None else (None, None, None)
        self.temperature_, self.temperature_slope_ = fit_shift_temperature(logits, distances, yi, li, di, yin)
        P = self.calibrated(logits, distances)
        self.ood_threshold_ = float(np.quantile(distances, self.ood_quantile)) if self.ood_quantile < 1 else float("inf")
        if self.abstain_below == -1.0:
            self.abstain_below_ = choose_abstain(P, yi, distances <= self.ood_threshold_, self.target_accuracy)
        return self

    def _indices(self, y: Sequence[str]) -> np.ndarray:
        return np.array([list(self.classes_).index(v) for v in np.asarray(y, dtype=object)], dtype=np.int64)

    def calibrated(self, logits: np.ndarray, distances: np.ndarray) -> np.ndarray:
        """Probabilities from logits and distances with the fitted (distance-dependent) temperature."""
        return scaled_softmax(logits, temperatures(distances, self.temperature_, self.temperature_slope_))

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

            def boosted(max_iter: int, **leaf: int) -> TreeEnsemble:
                hgb = HistGradientBoostingClassifier(max_iter=max_iter, learning_rate=0.1,
                                                     max_leaf_nodes=self.tree_leaves, l2_regularization=1.0,
                                                     early_stopping=False, random_state=self.seed, **leaf)
                # One thread: OpenMP on a shared, busy machine thrashes (measured 90x slower).
                with threadpool_limits(limits=1):
                    hgb.fit(Z, yi, sample_weight=w)
                return TreeEnsemble.from_sklearn(hgb)

            self.trees_ = boosted(self.tree_iter)
            if self.blend_iter:
                # a second, large-leaf ensemble averaged into the class scores (issue 17, docs/predict-trials.md
                # "Tree settings" rounds 11-12: unseen genres read ~3 points better, in-genre -0.35 / -0.54,
                # predict's tree step ~1.3x slower); one ensemble of both, so the credits stay exact
                wide = boosted(self.blend_iter, min_samples_leaf=self.blend_min_samples_leaf)
                self.trees_ = TreeEnsemble.weighted_sum([(self.trees_, 0.5), (wide, 0.5)])

    def _oof(self, X: np.ndarray, yi: np.ndarray, w: np.ndarray, g: np.ndarray, groups):
        """Out-of-fold ``(logits, distances, in_genre)``. With >= 3 genres the folds are whole
        genres (the held-out genre is unlike the training data, as users' texts are) and, given
        topic ``groups``, ``in_genre`` holds two topic-grouped folds' ``(logits, distances, labels)``;
        otherwise the folds are topic groups (or stratified) and ``in_genre`` is None."""
        from sklearn.model_selection import GroupKFold, StratifiedKFold

        by_genre = len(set(g.tolist())) >= 3
        if by_genre:
            folds = [(np.flatnonzero(g != v), np.flatnonzero(g == v)) for v in sorted(set(g.tolist()))]
        elif groups is not None:
            folds = list(GroupKFold(n_splits=3).split(X, yi, groups=np.asarray(groups)))
        else:
            folds = list(StratifiedKFold(n_splits=3, shuffle=True, random_state=self.seed).split(X, yi))
        oof, dist = self._predict_folds(X, yi, w, g, folds)
        in_genre = None
        if by_genre and groups is not None and len(set(np.asarray(groups).tolist())) >= 2:
            lg, dd = self._predict_folds(X, yi, w, g, list(GroupKFold(n_splits=2).split(X, yi, groups=np.asarray(groups))))
            in_genre = (lg, dd, self.classes_[yi])
        return oof, dist, in_genre

    def _predict_folds(self, X, yi, w, g, folds) -> tuple[np.ndarray, np.ndarray]:
        oof, dist = np.zeros((len(X), len(self.classes_))), np.zeros(len(X))
        for tr, te in folds:
            member = StyleModel(**{**self.get_params(), "calibrate": False})
            member.classes_ = self.classes_
            member._fit_members(X[tr], yi[tr], w[tr])
            oof[te] = member.logits(X[te])
            dist[te] = FeatureDensity.fit(member._z(X[tr]), yi[tr], g[tr]).distance(member._z(X[te]))
        return oof, dist

    # ---- inference ------------------------------------------------------------------------
    def _z(self, X: np.ndarray) -> np.ndarray:
        return (log_transform(X) - self.mean_) / self.scale_

    def logits(self, texts_or_X) -> np.ndarray:
        """Log of the (uncalibrated) averaged member probabilities."""
        return self._logits(self.features(texts_or_X))[0]

    def _logits(self, X: np.ndarray, leaves: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
        """:meth:`logits` of a feature matrix and, with ``leaves``, the leaves the trees' scores came
        from (``TreeEnsemble.leaves``: the path credits of ``decision`` read them; None without trees)."""
        Z = log_transform(X)
        p = softmax(((Z - self.mean_) / self.scale_) @ self.coef_.T + self.intercept_)
        node = None
        if self.trees_ is not None:
            if leaves:  # (attribute's batches: a few hundred rows)
                node = self.trees_.leaves(Z)
                raw = self.trees_.scores(node)
            else:
                raw = self.trees_.raw_predict(Z)
            p = (1.0 - self.tree_weight) * p + self.tree_weight * softmax(raw)
        return np.log(np.clip(p, 1e-300, None)), node

    def _proba(self, logits: np.ndarray, X: np.ndarray, far: np.ndarray | None = None) -> np.ndarray:
        """Calibrated probabilities of ``logits``; the distance (``far``, else computed from X) is
        needed only when the temperature depends on it."""
        if not getattr(self, "temperature_slope_", 0.0):
            return softmax(logits, self.temperature_)
        return self.calibrated(logits, self.distance(X) if far is None else far)

    def proba_distance(self, X: np.ndarray, leaves: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """``(predict_proba(X), distance(X), the trees' leaves or None)`` of a feature matrix, with
        one search for the leaves and one distance computation (what :meth:`attribute` needs)."""
        logits, node = self._logits(X, leaves)
        far = self.distance(X)
        return self._proba(logits, X, far), far, node

    def predict_proba(self, texts_or_X) -> np.ndarray:
        """Calibrated probabilities, columns in ``classes_`` order, rows summing to 1."""
        if getattr(self, "coef_", None) is None:
            raise RuntimeError("StyleModel is not fitted")
        X = self.features(texts_or_X)
        return self._proba(self.logits(X), X)

    def predict(self, texts_or_X) -> np.ndarray:
        return self.classes_[self.predict_proba(texts_or_X).argmax(axis=1)]

    def score(self, texts_or_X, y: Sequence[str]) -> float:
        """Accuracy (scikit-learn's default classifier score)."""
        return float(np.mean(self.predict(texts_or_X) == np.asarray(y, dtype=object)))

    def distance(self, X: np.ndarray) -> np.ndarray:
        """How far each row is from every training (genre, label) cell (see ``style.ood``); zeros for
        models saved before the distance existed."""
        if getattr(self, "density_", None) is None:
            return np.zeros(len(X))
        return self.density_.distance(self._z(X))

    def uncertain(self, P: np.ndarray, X: np.ndarray, distance: np.ndarray | None = None) -> np.ndarray:
        """The abstain rule: top probability below ``abstain_below_`` or farther than the OOD
        threshold (``distance``: :meth:`distance` of X, when already known)."""
        far = self.distance(X) if distance is None else distance
        return (P.max(axis=1) < self.abstain_below_) | (far > self.ood_threshold_)

    def attribute(self, texts: Sequence[str], n_tells: int = 5, among: Sequence[str] | None = None) -> list:
        """One :class:`~whowrote.style.verdict.Attribution` per text (probabilities over all four
        labels, the abstain flag, the tells and warnings); ``among``: the labels the texts are
        assumed to be by, e.g. ``("CLAUDE", "CHATGPT", "GEMINI")`` (:mod:`whowrote.style.verdict`)."""
        from whowrote.style.verdict import attribute

        return attribute(self, texts, n_tells=n_tells, among=among)


def fit_weights(yi: np.ndarray, genres: Sequence[str] | None, sample_weight: Sequence[float] | None,
                sqrt: bool = False) -> np.ndarray:
    """The weights :meth:`StyleModel.fit` fits its members with: :func:`balanced_weights` times
    ``sample_weight`` (e.g. down-weighting edited copies of training texts), mean 1."""
    w = balanced_weights(yi, genres, sqrt=sqrt)
    if sample_weight is not None:
        w = w * np.asarray(sample_weight, dtype=np.float64)
        w = w * len(w) / w.sum()
    return w


def balanced_weights(yi: np.ndarray, genres: Sequence[str] | None, sqrt: bool = False) -> np.ndarray:
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
