"""The model card served at ``GET /v1/model``, read from whatever metadata the model carries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from whowrote.types import LABELS

CARD_ATTRS = ("card", "model_card", "metadata", "meta", "info")


def _raw_card(model: Any) -> dict[str, Any]:
    for attr in CARD_ATTRS:
        found = getattr(model, attr, None)
        if callable(found) and not isinstance(found, Mapping):
            try:
                found = found()
            except TypeError:
                continue
        if hasattr(found, "to_dict"):
            found = found.to_dict()
        if isinstance(found, Mapping) and found:
            return dict(found)
    return {}


def model_version(model: Any) -> str:
    version = getattr(model, "version", None) or _raw_card(model).get("version")
    return str(version) if version else "unknown"


def _features(model: Any, raw: Mapping[str, Any]) -> list[dict[str, Any]]:
    feats = raw.get("features")
    if feats is None:
        feats = getattr(model, "features", None)
    if feats is None:
        try:
            from whowrote.style import FEATURES as feats  # type: ignore[attr-defined,no-redef]
        except Exception:
            feats = []
    if isinstance(feats, Mapping):
        feats = list(feats.values())
    out: list[dict[str, Any]] = []
    for f in feats or []:
        if hasattr(f, "to_dict"):
            f = f.to_dict()
        if isinstance(f, Mapping):
            out.append(dict(f))
        elif isinstance(f, str):
            out.append({"name": f})
        else:  # a small dataclass / namedtuple with name (+ doc/label)
            out.append({k: getattr(f, k) for k in ("name", "label", "doc", "unit") if hasattr(f, k)})
    return out


def model_card(model: Any) -> dict[str, Any]:
    """``{name, version, classes, training_data, metrics, features, ...}`` (extra keys kept)."""
    raw = _raw_card(model)
    card: dict[str, Any] = {k: v for k, v in raw.items() if _jsonable(v)}
    card["name"] = str(raw.get("name") or getattr(model, "name", None) or type(model).__name__)
    card["version"] = model_version(model)
    classes = next((c for c in (raw.get("classes"), getattr(model, "classes", None),
                                getattr(model, "classes_", None)) if c is not None and len(c)), LABELS)
    card["classes"] = [str(c) for c in classes]
    card["training_data"] = dict(raw.get("training_data") or raw.get("data") or {})
    card["metrics"] = dict(raw.get("metrics") or {})
    card["features"] = _features(model, raw)
    return card


def _jsonable(value: Any) -> bool:
    import json

    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True
