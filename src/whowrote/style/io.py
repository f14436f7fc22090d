"""Saving and loading a :class:`StyleModel` without pickle: ``model.json`` + ``model.npz``.

``model.json`` holds the settings, class names, feature names (checked on load against this
version's feature set, so a model never silently reads shifted columns), temperature, training
metadata and metrics; ``model.npz`` holds only numeric arrays and is read with
``allow_pickle=False``.
"""

from __future__ import annotations

import json
import math
import zipfile
import zlib
from pathlib import Path

import numpy as np

from whowrote.style.model import PARAM_TYPES, SWITCHED_PARAMS, StyleModel
from whowrote.style.ood import FeatureDensity
from whowrote.style.trees import ARRAY_FIELDS, TreeEnsemble
from whowrote.types import WhowroteError

# /2 adds node expectations and the distance's arrays; /3 the distance-dependent temperature
# (``temperature_slope``; a /2 reader would ignore it and print wrong probabilities, hence the bump).
FORMAT = "whowrote-style-model/3"
WITH_DISTANCE = ("whowrote-style-model/2", FORMAT)
READABLE = ("whowrote-style-model/1", *WITH_DISTANCE)
# Settings of files written before they existed: raw text, 50/50 average, (genre, label) cells balanced,
# the fixed 0.5 abstain threshold and no distance check.
LEGACY_PARAMS = {"canonical": False, "canonical_lists": False, "tree_weight": 0.5, "weighting": "cell", "abstain_below": 0.5,
                 "ood_quantile": 1.0}
DEFAULT_DIR = Path(__file__).with_name("default_model")


def saved_params(model: StyleModel) -> dict:
    """The settings a model file records: the later ones (``SWITCHED_PARAMS``) only when switched on."""
    return {k: v for k, v in model.get_params().items() if k not in SWITCHED_PARAMS or getattr(model, SWITCHED_PARAMS[k])}


def save_model(model: StyleModel, path: str | Path) -> Path:
    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)
    meta = {
        "format": FORMAT,
        "params": saved_params(model),
        "classes": [str(c) for c in model.classes_],
        "feature_names": model.feature_names_,
        "temperature": model.temperature_,
        "temperature_slope": getattr(model, "temperature_slope_", 0.0),
        "abstain_below": model.abstain_below_,
        "ood_threshold": model.ood_threshold_ if np.isfinite(model.ood_threshold_) else None,
        "has_trees": model.trees_ is not None,
        "training": model.training_,
        "metrics": model.metrics_,
    }
    arrays = {"mean": model.mean_, "scale": model.scale_, "coef": model.coef_, "intercept": model.intercept_,
              "norms": model.norms_}
    if model.trees_ is not None:
        arrays.update(model.trees_.to_arrays())
    if getattr(model, "density_", None) is not None:
        arrays.update(model.density_.to_arrays())
    (out / "model.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    # Stored, not deflated: inflating and checking the archive was most of the load (8.1 against 3.2 ms on the
    # bundled model, session 34), at 1.4 MB instead of 0.8 MB on disk.
    np.savez(out / "model.npz", **arrays)
    return out


MAX_JSON_BYTES = 20_000_000
MAX_CLASSES, MAX_NODES = 64, 20_000_000  # far above any real model; bounds memory for hostile files
LR_ARRAYS = ("mean", "scale", "coef", "intercept", "norms")
TREE_ARRAYS = tuple(f"tree_{f}" for f in (*ARRAY_FIELDS, "baseline"))


def load_model(path: str | Path | None = None) -> StyleModel:
    """Load a saved model directory (``None``: the default model bundled in the package).

    Any malformed file raises :class:`WhowroteError` with a one-line message, never a traceback:
    bad or deeply nested JSON, missing keys, a non-npz or truncated ``model.npz``, arrays the
    format does not name (rejected unread), arrays of the wrong shape (checked from the npy
    header, before anything is allocated), non-finite weights, trees with cycles.
    """
    d = Path(path) if path is not None else DEFAULT_DIR
    if d.is_file():
        if d.name not in ("model.json", "model.npz"):  # name the file given, not the folder it is in
            raise WhowroteError(f"{d} is a file, not a model folder (model.json and model.npz)")
        d = d.parent
    try:
        meta = _read_json(d / "model.json")
        if not isinstance(meta, dict) or meta.get("format") not in READABLE:
            found = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
            raise WhowroteError(f"{d}: unknown model format {found!r}")
        arrays = _read_arrays(d / "model.npz", _expected_shapes(meta))
    except FileNotFoundError:
        raise WhowroteError(f"no model at {d} (expected model.json and model.npz)") from None
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error, RecursionError) as e:  # UnicodeDecodeError: a ValueError
        why = ("model.npz is not an .npz archive of plain arrays" if "pickle" in str(e)
               else "model.json is nested too deeply" if isinstance(e, RecursionError) else e)
        raise WhowroteError(f"cannot read model at {d}: {why}") from None
    except WhowroteError as e:
        raise WhowroteError(str(e) if str(e).startswith(str(d)) else f"{d}: {e}") from None
    try:
        return _build(meta, arrays)
    except WhowroteError as e:
        raise WhowroteError(f"{d}: {e}") from None
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise WhowroteError(f"{d}: malformed model ({type(e).__name__}: {e})") from None


def _read_json(path: Path) -> object:
    if path.stat().st_size > MAX_JSON_BYTES:
        raise WhowroteError(f"model.json is larger than {MAX_JSON_BYTES // 1_000_000} MB")
    # NaN/Infinity are not JSON: a metric saved as NaN becomes null, so the card stays valid JSON.
    return json.loads(path.read_text(encoding="utf-8"), parse_constant=lambda _: None)


def _expected_shapes(meta: dict) -> dict[str, tuple[int | None, ...]]:
    """Shape of every array the format names for this model (None: any length up to MAX_NODES)."""
    classes, names = meta.get("classes"), meta.get("feature_names")
    if not isinstance(classes, list) or not isinstance(names, list) or not 0 < len(classes) <= MAX_CLASSES:
        raise WhowroteError(f"model.json needs 'classes' (1-{MAX_CLASSES}) and 'feature_names' lists")
    k, d = len(classes), len(names)
    shapes: dict[str, tuple[int | None, ...]] = {"mean": (d,), "scale": (d,), "coef": (k, d), "intercept": (k,),
                                                 "norms": (k, d)}
    if meta.get("has_trees"):
        shapes.update({name: (None,) for name in TREE_ARRAYS})
        shapes["tree_baseline"] = (k,)
        if meta.get("format") in WITH_DISTANCE:
            shapes["tree_expected"] = (None,)
    if meta.get("format") in WITH_DISTANCE:
        shapes.update({"ood_centers": (None, d), "ood_inv_var": (None, d)})
    return shapes


def _read_arrays(path: Path, shapes: dict[str, tuple[int | None, ...]]) -> dict[str, np.ndarray]:
    """The named arrays of ``path``, each read only after its npy header was checked."""
    with zipfile.ZipFile(path) as zf:
        members = {name.removesuffix(".npy"): name for name in zf.namelist()}
        extra = sorted(set(members) - set(shapes))
        if extra:
            raise WhowroteError(f"model.npz holds arrays the format does not name: {', '.join(extra[:5])}")
        missing = sorted(set(shapes) - set(members))
        if missing:
            raise WhowroteError(f"model.npz lacks {', '.join(missing)}")
        arrays = {}
        for key, want in shapes.items():
            with zf.open(members[key]) as f:
                version = np.lib.format.read_magic(f)
                read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
                shape, fortran, dtype = read(f)
                if dtype.kind not in "biuf" or len(shape) != len(want) or any(
                        (n != w) if w is not None else n > MAX_NODES for n, w in zip(shape, want, strict=True)):
                    raise WhowroteError(f"model.npz: {key} is {dtype} {shape}, expected "
                                        f"{'x'.join('n' if w is None else str(w) for w in want)} numbers")
                arrays[key] = _array_body(f, key, shape, fortran, dtype)
    for key, arr in arrays.items():
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            raise WhowroteError(f"model.npz: {key} holds NaN or infinite values")
    return arrays


def _array_body(f, key: str, shape: tuple[int, ...], fortran: bool, dtype: np.dtype) -> np.ndarray:
    """The data after an npy header (already checked against the expected shape), as
    ``np.load`` gives it: a writable array of that dtype, shape and order. Read in the same
    pass over the archive member as the header."""
    count = math.prod(shape)
    data = f.read(count * dtype.itemsize)
    if len(data) != count * dtype.itemsize:
        raise ValueError(f"model.npz: {key} is cut short ({len(data)} of {count * dtype.itemsize} bytes)")
    return np.frombuffer(bytearray(data), dtype=dtype).reshape(shape, order="F" if fortran else "C")


def _build(meta: dict, arrays: dict[str, np.ndarray]) -> StyleModel:
    params = meta["params"]
    if not isinstance(params, dict) or set(params) - set(PARAM_TYPES):
        raise ValueError(f"params must be a mapping of {', '.join(PARAM_TYPES)}")
    for k, v in params.items():
        want = PARAM_TYPES[k]
        if not isinstance(v, (int, float) if want is float else want) or (want is not bool and isinstance(v, bool)):
            raise ValueError(f"params.{k} should be a {want.__name__}, not {v!r}")
    model = StyleModel(**{**LEGACY_PARAMS, **params})
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
    model.density_ = None
    if "ood_centers" in arrays:
        model.density_ = FeatureDensity.from_arrays(arrays)
        if model.density_.inv_var.shape != model.density_.centers.shape or not len(model.density_.centers):
            raise ValueError("ood arrays have inconsistent shapes")
    model.abstain_below_ = float(meta.get("abstain_below", model.abstain_below))
    threshold = meta.get("ood_threshold")
    model.ood_threshold_ = float("inf") if threshold is None or model.density_ is None else float(threshold)
    model.temperature_ = float(meta["temperature"])
    if not np.isfinite(model.temperature_) or model.temperature_ <= 0:
        raise ValueError(f"temperature must be positive, got {model.temperature_}")
    slope = meta.get("temperature_slope", 0.0) if meta["format"] == FORMAT else 0.0
    if isinstance(slope, bool) or not isinstance(slope, (int, float)) or not 0.0 <= slope <= 10.0:
        raise ValueError(f"temperature_slope must be a number in [0, 10], got {slope!r}")
    model.temperature_slope_ = float(slope) if model.density_ is not None else 0.0
    model.training_, model.metrics_ = meta.get("training", {}), meta.get("metrics", {})
    return model
