"""Stylometric attribution: features, the classifier, explanations and the bundled model.

Light at import time (numpy only); scikit-learn loads when a model is fitted or loaded.
"""

from __future__ import annotations

from whowrote.style.features import FEATURE_SETS, FEATURES, extract, feature_names, feature_specs
from whowrote.style.specs import FeatureSpec

__all__ = ["FEATURES", "FEATURE_SETS", "FeatureSpec", "extract", "feature_names", "feature_specs"]
