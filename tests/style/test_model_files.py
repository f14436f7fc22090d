"""Hostile model files: each is refused with one line, before any walk or large allocation."""

from __future__ import annotations

import io
import json
import resource
import shutil
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from whowrote.style import load_model
from whowrote.style.io import DEFAULT_DIR
from whowrote.types import WhowroteError


def _copy(tmp_path: Path) -> Path:
    d = tmp_path / "m"
    shutil.copytree(DEFAULT_DIR, d)
    return d


def _arrays(d: Path) -> dict[str, np.ndarray]:
    with np.load(d / "model.npz") as z:
        return {k: z[k] for k in z.files}


def _npy_member(shape: tuple[int, ...], header_pad: int = 0) -> bytes:
    """An npy file whose header claims ``shape`` but holds only 8 bytes of data."""
    f = io.BytesIO()
    header = {"descr": "<f8", "fortran_order": False, "shape": shape}
    if header_pad:  # an oversized header: numpy refuses headers over 10,000 bytes by default
        f.write(b"\x93NUMPY\x02\x00")
        text = repr(header).encode() + b" " * header_pad + b"\n"
        f.write(len(text).to_bytes(4, "little") + text)
    else:
        np.lib.format.write_array_header_1_0(f, header)
    f.write(b"\x00" * 8)
    return f.getvalue()


def _with_member(d: Path, name: str, data: bytes) -> None:
    arrays = _arrays(d)
    with zipfile.ZipFile(d / "model.npz", "w") as zf:
        for key, arr in arrays.items():
            if f"{key}.npy" != name:
                buf = io.BytesIO()
                np.save(buf, arr)
                zf.writestr(f"{key}.npy", buf.getvalue())
        zf.writestr(name, data)


def _refused(d: Path, match: str) -> str:
    with pytest.raises(WhowroteError, match=match) as err:
        load_model(d)
    msg = str(err.value)
    assert "\n" not in msg and str(d) in msg
    return msg


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_tree_node_pointing_to_itself(tmp_path):
    d = _copy(tmp_path)
    a = _arrays(d)
    node = int(a["tree_roots"][0])
    a["tree_left"][node] = a["tree_right"][node] = node  # the root is its own child
    np.savez(d / "model.npz", **a)
    before, t0 = _peak_mb(), time.monotonic()
    _refused(d, "reached twice")
    assert time.monotonic() - t0 < 5 and _peak_mb() - before < 500


def test_tree_node_pointing_back_up(tmp_path):
    d = _copy(tmp_path)
    a = _arrays(d)
    root = int(a["tree_roots"][0])
    child = int(a["tree_left"][root])
    assert not a["tree_is_leaf"][child]
    a["tree_right"][child] = root  # a cycle two levels long
    np.savez(d / "model.npz", **a)
    _refused(d, "reached twice")


def test_tree_node_that_no_root_reaches(tmp_path):
    # review, session 33: such nodes passed the shape check and then corrupted the leaves' masks
    # (a row could reach the stray leaf) or made their tables grow with the square of their number
    d = _copy(tmp_path)
    a = _arrays(d)
    for name in ("feature", "left", "right", "missing_left"):
        a[f"tree_{name}"] = np.append(a[f"tree_{name}"], 0).astype(a[f"tree_{name}"].dtype)
    for name, value in (("threshold", 0.0), ("value", 100.0), ("expected", 100.0)):
        a[f"tree_{name}"] = np.append(a[f"tree_{name}"], value)
    a["tree_is_leaf"] = np.append(a["tree_is_leaf"], True)  # a leaf that no tree leads to
    np.savez(d / "model.npz", **a)
    _refused(d, "no root reaches")


def test_unexpected_array_is_rejected_unread(tmp_path):
    d = _copy(tmp_path)
    _with_member(d, "evil.npy", _npy_member((400_000_000,)))  # would be 3.2 GB if loaded
    before = _peak_mb()
    _refused(d, "does not name: evil")
    assert _peak_mb() - before < 500


def test_expected_array_with_a_huge_shape_is_checked_before_allocation(tmp_path):
    d = _copy(tmp_path)
    _with_member(d, "tree_threshold.npy", _npy_member((10**12,)))
    before = _peak_mb()
    _refused(d, "tree_threshold is float64")
    assert _peak_mb() - before < 500


def test_oversized_npy_header(tmp_path):
    d = _copy(tmp_path)
    _with_member(d, "mean.npy", _npy_member((197,), header_pad=200_000))
    _refused(d, "cannot read model")


def test_deeply_nested_model_json(tmp_path):
    d = _copy(tmp_path)
    meta = (d / "model.json").read_text()
    (d / "model.json").write_text(meta[:-2] + ', "x": ' + "[" * 200_000 + "]" * 200_000 + "}\n")
    _refused(d, "nested too deeply")


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_non_finite_weights(tmp_path, value):
    d = _copy(tmp_path)
    a = _arrays(d)
    a["coef"][1, 3] = value
    np.savez(d / "model.npz", **a)
    _refused(d, "coef holds NaN or infinite")


def test_nan_in_model_json_becomes_null_not_invalid_json(tmp_path):
    d = _copy(tmp_path)
    meta = json.loads((d / "model.json").read_text())
    meta.setdefault("metrics", {})["made_up"] = float("nan")
    (d / "model.json").write_text(json.dumps(meta))  # json.dumps writes the non-JSON token NaN
    model = load_model(d)
    assert model.metrics_["made_up"] is None
    json.dumps(model.metrics_, allow_nan=False)


def test_nan_temperature_is_refused(tmp_path):
    d = _copy(tmp_path)
    meta = json.loads((d / "model.json").read_text())
    meta["temperature"] = float("nan")
    (d / "model.json").write_text(json.dumps(meta))
    _refused(d, "malformed model")


def test_the_bundled_model_still_loads_and_predicts():
    model = load_model()
    p = model.predict_proba(np.zeros((2, len(model.feature_names_))))
    assert p.shape == (2, len(model.classes_)) and np.allclose(p.sum(axis=1), 1)
    with zipfile.ZipFile(DEFAULT_DIR / "model.npz") as z:  # shipped as save_model writes it: stored
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_STORED}
