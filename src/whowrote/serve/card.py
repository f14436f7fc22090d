"""The model card served at ``GET /v1/model``, read from what the model carries.

For a :class:`whowrote.style.StyleModel`: its settings, classes, ``training_`` summary,
``metrics_`` and the specs of its features. Any model may instead offer a ``card()`` mapping.
The version is the model's own if it states one, else ``<whowrote version>+<hash of its arrays and settings>``,
so two different models never share a version string.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import whowrote
from whowrote.style import FEATURES
from whowrote.style.model import BLEND_PARAMS
from whowrote.types import LABELS, jsonable

PARAMS = ("feature_set", "C", "use_trees", "tree_iter", "tree_leaves", "tree_weight", "weighting", "seed", "calibrate",
          "abstain_below", "min_words", "temperature_")
ARRAYS = ("mean_", "scale_", "coef_", "intercept_", "norms_")


def _raw_card(model: Any) -> dict[str, Any]:
    found = getattr(model, "card", None)
    if callable(found):
        found = found()
    return dict(found) if isinstance(found, Mapping) else {}


def _params(model: Any) -> dict[str, Any]:
    blend = BLEND_PARAMS if getattr(model, "blend_iter", 0) else ()
    return {k: getattr(model, k) for k in (*PARAMS, *blend) if hasattr(model, k)}


def _digest(model: Any) -> str:
    h = hashlib.sha256()
    arrays = [getattr(model, name, None) for name in ARRAYS]
    trees = getattr(model, "trees_", None)
    if callable(getattr(trees, "to_arrays", None)):  # models differing only in their trees differ too
        tree_arrays = trees.to_arrays()
        arrays += [tree_arrays[k] for k in sorted(tree_arrays)]
    for arr in arrays:
        if hasattr(arr, "tobytes"):
            h.update(arr.tobytes())
    h.update(json.dumps(jsonable(_params(model)), sort_keys=True).encode())
    h.update(json.dumps(jsonable(getattr(model, "training_", {})), sort_keys=True).encode())
    return h.hexdigest()[:10]


def model_version(model: Any) -> str:
    training = getattr(model, "training_", None) or {}
    version = (getattr(model, "version", None) or _raw_card(model).get("version")
               or (training.get("version") if isinstance(training, Mapping) else None))
    return str(version) if version else f"{whowrote.__version__}+{_digest(model)}"


def _features(model: Any, raw: Mapping[str, Any]) -> list[dict[str, Any]]:
    if isinstance(raw.get("features"), list):
        return [dict(f) if isinstance(f, Mapping) else {"name": str(f)} for f in raw["features"]]
    names = getattr(model, "feature_names_", None)
    if not isinstance(names, list | tuple):
        return []
    return [FEATURES[n].to_dict() if n in FEATURES else {"name": n} for n in names]


def model_card(model: Any) -> dict[str, Any]:
    """``{name, version, classes, params, training_data, metrics, features, ...}``."""
    raw = _raw_card(model)
    classes = next((c for c in (raw.get("classes"), getattr(model, "classes_", None))
                    if c is not None and len(c)), LABELS)
    card: dict[str, Any] = {k: jsonable(v) for k, v in raw.items()}
    card.update({
        "name": str(raw.get("name") or getattr(model, "name", None) or _default_name(model)),
        "version": model_version(model),
        "classes": [str(c) for c in classes],
        "params": jsonable(raw.get("params") or _params(model)),
        "training_data": jsonable(raw.get("training_data") or getattr(model, "training_", None) or {}),
        "metrics": jsonable(raw.get("metrics") or getattr(model, "metrics_", None) or {}),
        "features": _features(model, raw),
    })
    return card


def _default_name(model: Any) -> str:
    feature_set = getattr(model, "feature_set", None)
    return f"whowrote-style-{feature_set}" if isinstance(feature_set, str) else type(model).__name__
