"""Saving and loading a :class:`StyleModel` without pickle: ``model.json`` + ``model.npz``.

``model.json`` holds the settings, class names, feature names (checked on load against this
version's feature set, so a model never silently reads shifted columns), temperature, training
metadata and metrics; ``model.npz`` holds only numeric arrays and is read with
``allow_pickle=False``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from whowrote.style.model import _PARAMS, StyleModel
from whowrote.style.trees import TreeEnsemble
from whowrote.types import WhowroteError

FORMAT = "whowrote-style-model/1"
DEFAULT_DIR = Path(__file__).with_name("default_model")


def save_model(model: StyleModel, path: str | Path) -> Path:
    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)
    meta = {
        "format": FORMAT,
        "params": {k: getattr(model, k) for k in _PARAMS},
        "classes": [str(c) for c in model.classes_],
        "feature_names": model.feature_names_,
        "temperature": model.temperature_,
        "has_trees": model.trees_ is not None,
        "training": model.training_,
        "metrics": model.metrics_,
    }
    arrays = {"mean": model.mean_, "scale": model.scale_, "coef": model.coef_, "intercept": model.intercept_,
              "norms": model.norms_}
    if model.trees_ is not None:
        arrays.update(model.trees_.to_arrays())
    (out / "model.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    np.savez_compressed(out / "model.npz", **arrays)
    return out


def load_model(path: str | Path | None = None) -> StyleModel:
    """Load a saved model directory (``None``: the default model bundled in the package)."""
    d = Path(path) if path is not None else DEFAULT_DIR
    if d.is_file():
        d = d.parent
    try:
        meta = json.loads((d / "model.json").read_text())
        arrays = np.load(d / "model.npz", allow_pickle=False)
    except FileNotFoundError:
        raise WhowroteError(f"no model at {d} (expected model.json and model.npz)") from None
    except (ValueError, OSError) as e:
        raise WhowroteError(f"cannot read model at {d}: {e}") from None
    if meta.get("format") != FORMAT:
        raise WhowroteError(f"{d}: unknown model format {meta.get('format')!r}")
    model = StyleModel(**meta["params"])
    if meta["feature_names"] != model.feature_names_:
        raise WhowroteError(f"{d}: model features differ from this whowrote version's {model.feature_set!r} set")
    model.classes_ = np.array(meta["classes"], dtype=object)
    model.mean_, model.scale_ = arrays["mean"], arrays["scale"]
    model.coef_, model.intercept_ = arrays["coef"], arrays["intercept"]
    model.norms_ = arrays["norms"]
    model.trees_ = TreeEnsemble.from_arrays(arrays) if meta["has_trees"] else None
    model.temperature_ = float(meta["temperature"])
    model.training_, model.metrics_ = meta.get("training", {}), meta.get("metrics", {})
    return model
