"""Saving and loading a :class:`StyleModel` without pickle: ``model.json`` + ``model.npz``.

``model.json`` holds the settings, class names, feature names (checked on load against this
version's feature set, so a model never silently reads shifted columns), temperature, training
metadata and metrics; ``model.npz`` holds only numeric arrays and is read with
``allow_pickle=False``.
"""

from __future__ import annotations

import json
import zipfile
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
    """Load a saved model directory (``None``: the default model bundled in the package).

    Any malformed file (bad JSON, missing keys, a non-npz or truncated ``model.npz``, arrays of
    the wrong shape) raises :class:`WhowroteError` with a one-line message, never a traceback.
    """
    d = Path(path) if path is not None else DEFAULT_DIR
    if d.is_file():
        d = d.parent
    try:
        meta = json.loads((d / "model.json").read_text(encoding="utf-8"))
        with np.load(d / "model.npz", allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except FileNotFoundError:
        raise WhowroteError(f"no model at {d} (expected model.json and model.npz)") from None
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:  # UnicodeDecodeError is a ValueError
        why = "model.npz is not an .npz archive of plain arrays" if "pickle" in str(e) else e
        raise WhowroteError(f"cannot read model at {d}: {why}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise WhowroteError(f"{d}: unknown model format {found!r}")
    try:
        return _build(meta, arrays)
    except WhowroteError as e:
        raise WhowroteError(f"{d}: {e}") from None
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise WhowroteError(f"{d}: malformed model ({type(e).__name__}: {e})") from None


def _build(meta: dict, arrays: dict[str, np.ndarray]) -> StyleModel:
    params = meta["params"]
    if not isinstance(params, dict) or set(params) - set(_PARAMS):
        raise ValueError(f"params must be a mapping of {', '.join(_PARAMS)}")
    for k, v in params.items():  # the dataclass defaults give each setting's type
        want = type(getattr(StyleModel, k))
        if not isinstance(v, (int, float) if want is float else want) or (want is not bool and isinstance(v, bool)):
            raise ValueError(f"params.{k} should be a {want.__name__}, not {v!r}")
    # Files written before these settings existed: 50/50 average, (genre, label) cells balanced.
    params = {"tree_weight": 0.5, "weighting": "cell", **params}
    model = StyleModel(**params)
    model.check_settings()
    if meta["feature_names"] != model.feature_names_:
        raise WhowroteError(f"model features differ from this whowrote version's {model.feature_set!r} set")
    model.classes_ = np.array([str(c) for c in meta["classes"]], dtype=object)
    k, d = len(model.classes_), len(model.feature_names_)
    shapes = {"mean": (d,), "scale": (d,), "coef": (k, d), "intercept": (k,), "norms": (k, d)}
    for name, shape in shapes.items():
        if arrays[name].shape != shape:
            raise ValueError(f"{name} has shape {arrays[name].shape}, expected {shape}")
        arrays[name] = arrays[name].astype(np.float64)
    model.mean_, model.scale_ = arrays["mean"], arrays["scale"]
    model.coef_, model.intercept_ = arrays["coef"], arrays["intercept"]
    model.norms_ = arrays["norms"]
    model.trees_ = None
    if meta["has_trees"]:
        model.trees_ = TreeEnsemble.from_arrays(arrays)
        model.trees_.check(n_features=d, n_classes=k)
    model.temperature_ = float(meta["temperature"])
    if not np.isfinite(model.temperature_) or model.temperature_ <= 0:
        raise ValueError(f"temperature must be positive, got {model.temperature_}")
    model.training_, model.metrics_ = meta.get("training", {}), meta.get("metrics", {})
    return model
