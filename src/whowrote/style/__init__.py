"""Stylometric attribution: features, the classifier, explanations and the bundled model.

Light at import time (numpy only); scikit-learn loads only when a model is fitted.

- ``extract(texts, feature_set)`` / ``feature_names`` / ``FEATURES``: the features.
- ``StyleModel``: ``fit / predict / predict_proba / classes_ / attribute``.
- ``load_model(path=None)``: a saved model, or the bundled default.
- ``tell_spans(text, feature)`` / ``highlight_patterns()``: where a tell occurs, for UIs.
"""

from __future__ import annotations

from whowrote.style.explain import Tell
from whowrote.style.features import FEATURE_SETS, FEATURES, extract, feature_names, feature_specs
from whowrote.style.highlight import highlight_patterns, tell_spans, tell_spans_many
from whowrote.style.io import load_model, save_model
from whowrote.style.model import StyleModel
from whowrote.style.specs import FeatureSpec
from whowrote.style.verdict import Attribution

__all__ = [
    "FEATURES", "FEATURE_SETS", "Attribution", "FeatureSpec", "StyleModel", "Tell", "extract", "feature_names",
    "feature_specs", "highlight_patterns", "load_model", "save_model", "tell_spans", "tell_spans_many",
]
