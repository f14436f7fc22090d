"""Trial map (benchmarks/trial_map.py): deltas against each trial's `current`, skips, the figure."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from trial_map import collect, extract, fold_rows, fold_table, plot, plot_folds, table  # noqa: E402


def _inner(raw: float, first800: float, strip: float, html: float) -> dict:
    """One variant's inner scores in the edit_scores shape (drops = raw minus edit)."""
    drops = {"strip_markdown": strip, "markdown_html": html, "first_800_chars": first800, "lower": 0.0}
    edits = {"raw": {"n": 1469, "accuracy": raw, "accuracy_3way": raw + 0.05}}
    edits |= {e: {"n": 1469, "accuracy": raw - d, "accuracy_3way": raw - d} for e, d in drops.items()}
    return {"edits": edits, "drops": drops, "worst_drop": max(drops.values()),
            "md_drop": max(strip, html)}


def _copy_types_like(tmp_path: Path) -> Path:
    """The shape of results/copy_types/copy_types.json: inner.<variant>, logo.<genre>.<variant>, logo.mean."""
    inner = {"current": _inner(0.80, 0.12, 0.04, 0.06), "plain_text": _inner(0.79, 0.20, 0.03, 0.05)}
    genre = {v: {"n": 100, "accuracy": 0.5, "accuracy_3way": 0.7, "other_auroc": None} for v in inner}
    data = {"n_train": 8094, "n_val": 1469, "inner": inner,
            "logo": {"blog": genre, "mean": {"current": {"accuracy": 0.50, "accuracy_3way": 0.72},
                                             "plain_text": {"accuracy": 0.51, "accuracy_3way": 0.75}}},
            "decision": {}, "wall_seconds": 1.0}
    path = tmp_path / "copy_types.json"
    path.write_text(json.dumps(data))
    return path


def test_deltas_equal_hand_computed_values(tmp_path: Path) -> None:
    [row] = extract("copy_types", _copy_types_like(tmp_path), "inner")
    assert row["trial"] == "copy_types" and row["variant"] == "plain_text"
    assert row["d_raw"] == pytest.approx(-1.0)       # 0.79 - 0.80
    assert row["d_first800"] == pytest.approx(8.0)   # 0.20 - 0.12 (the drop grew)
    assert row["d_md"] == pytest.approx(-1.0)        # max(.03, .05) - max(.04, .06)
    assert row["d_worst"] == pytest.approx(8.0)      # 0.20 - 0.12
    assert row["d_logo3"] == pytest.approx(3.0)      # 0.75 - 0.72


def test_mean_3way_floats_and_a_trial_without_logo(tmp_path: Path) -> None:
    """distance_gate-style logo.mean_3way; augmentation_mix-style `results` without md_drop or LOGO."""
    gate = {"n_val": 1469, "inner": {"current": _inner(0.80, 0.10, 0.05, 0.05), "gated": _inner(0.81, 0.15, 0.07, 0.02)},
            "logo": {"mean_3way": {"current": 0.726, "gated": 0.708}}}
    (tmp_path / "gate.json").write_text(json.dumps(gate))
    mix = {"n_val": 1469, "results": {"current": _inner(0.79, 0.13, 0.03, 0.05), "+chars": _inner(0.80, 0.11, 0.04, 0.07)}}
    for v in mix["results"].values():
        del v["md_drop"]
    (tmp_path / "mix.json").write_text(json.dumps(mix))
    rows, skipped = collect([("gate", "gate.json", "inner"), ("mix", "mix.json", "results")], tmp_path)
    assert skipped == []
    gated, chars = rows
    assert gated["d_md"] == pytest.approx(2.0) and gated["d_logo3"] == pytest.approx(-1.8)
    assert chars["d_raw"] == pytest.approx(1.0) and chars["d_first800"] == pytest.approx(-2.0)
    assert chars["d_md"] == pytest.approx(2.0)  # max(.04, .07) - max(.03, .05), recomputed from drops
    assert chars["d_logo3"] is None
    assert "| mix | +chars | +1.0 | -2.0 | +2.0 | -2.0 | – |" in table(rows)


def test_unfitting_schema_is_skipped_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "calib.json").write_text(json.dumps({"candidates": {"pooled": {"mean_ece": 0.19}}}))
    (tmp_path / "outer.json").write_text(json.dumps({"n_val": 1602, "inner": {"current": _inner(0.8, 0.1, 0.0, 0.0)}}))
    no_current = {"n_val": 1469, "inner": {"blind": _inner(0.8, 0.1, 0.0, 0.0)}}
    (tmp_path / "nocur.json").write_text(json.dumps(no_current))
    both = {"current": _inner(0.8, 0.1, 0.0, 0.0), "v": _inner(0.8, 0.1, 0.0, 0.0)}
    (tmp_path / "noval.json").write_text(json.dumps({"inner": both}))  # a split of unknown size
    (tmp_path / "badlogo.json").write_text(json.dumps({"n_val": 1469, "inner": both, "logo": {"mean": {"current": 0.7}}}))
    (tmp_path / "nologocur.json").write_text(json.dumps({"n_val": 1469, "inner": both, "logo": {"mean_3way": {"v": 0.7}}}))
    trials = [("ok", _copy_types_like(tmp_path).name, "inner"), ("calib", "calib.json", "inner"),
              ("outer", "outer.json", "inner"), ("nocur", "nocur.json", "inner"), ("gone", "gone.json", "inner"),
              ("noval", "noval.json", "inner"), ("badlogo", "badlogo.json", "inner"),
              ("nologocur", "nologocur.json", "inner")]
    rows, skipped = collect(trials, tmp_path)
    assert [r["trial"] for r in rows] == ["ok"]
    reasons = {s["trial"]: s["reason"] for s in skipped}
    assert set(reasons) == {"calib", "outer", "nocur", "gone", "noval", "badlogo", "nologocur"}
    assert "None" in reasons["noval"] and "unreadable LOGO means" in reasons["badlogo"]
    assert "LOGO means have no `current`" in reasons["nologocur"]
    assert "no `inner` object" in reasons["calib"] and "1602" in reasons["outer"]
    assert "no `current`" in reasons["nocur"] and "not found" in reasons["gone"]


def test_plot_writes_a_png(tmp_path: Path) -> None:
    rows = extract("copy_types", _copy_types_like(tmp_path), "inner")
    rows.append({"trial": "mix", "variant": "+chars", "d_raw": 1.0, "d_first800": -2.0, "d_md": 2.0,
                 "d_worst": -2.0, "d_logo3": None})
    out = tmp_path / "fig" / "trials.png"
    plot(rows, out)
    assert out.exists() and out.stat().st_size > 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _noise(diffs: dict[str, tuple[float, float, float]]) -> dict:
    """One variant of a trial_noise.py file: each key's (diff, lo, hi)."""
    return {k: {"diff": d, "lo": lo, "hi": hi, "sd": 0.1} for k, (d, lo, hi) in diffs.items()}


def _fold_round(folder: Path, name: str, variants: dict[str, dict], adopt: dict[str, bool], n_inner: int = 9563) -> str:
    """A round file and its *_noise.json beside it, as tree_settings and trial_noise.py write them."""
    decision = {v: {"checks": {}, "adopt": a} for v, a in adopt.items()} | {"pick": None}
    (folder / f"{name}.json").write_text(json.dumps({"decision": decision}))
    (folder / f"{name}_noise.json").write_text(json.dumps({"n_inner": n_inner, "variants": variants}))
    return f"{name}.json"


def test_fold_rows_read_intervals_and_verdicts_and_drop_repeats(tmp_path: Path) -> None:
    keys = ("raw", "drop first_800_chars", "LOGO 3-way mean")
    leaf = _noise(dict(zip(keys, [(-1.37, -2.06, -0.71), (1.16, 0.05, 2.21), (2.06, 0.48, 3.56)], strict=True)))
    blend = _noise(dict(zip(keys, [(0.09, -0.35, 0.51), (-0.08, -0.71, 0.55), (2.54, 1.32, 3.74)], strict=True)))
    r5 = _fold_round(tmp_path, "round5", {"leaf1000": leaf}, {"leaf1000": False})
    r7 = _fold_round(tmp_path, "round7", {"blend_logit": blend, "leaf1000": leaf}, {"blend_logit": True, "leaf1000": False})
    small = _fold_round(tmp_path, "round4", {"leaf1000": leaf}, {"leaf1000": False}, n_inner=1382)
    (tmp_path / "round9.json").write_text("{}")  # its noise file is missing
    rows, skipped = fold_rows([("r5", r5), ("r7", r7), ("r4", small), ("r9", "round9.json")], tmp_path)
    assert [(r["trial"], r["variant"], r["adopted"]) for r in rows] == [("r5", "leaf1000", False), ("r7", "blend_logit", True)]
    assert rows[1]["logo3"] == [2.54, 1.32, 3.74] and rows[0]["first800"] == [1.16, 0.05, 2.21]
    assert {s["trial"] for s in skipped} == {"r4", "r9"}
    assert "1382" in next(s["reason"] for s in skipped if s["trial"] == "r4")
    assert "| r7 | blend_logit | +0.09 [-0.35, +0.51] | -0.08 [-0.71, +0.55] | +2.54 [+1.32, +3.74] | passes |" in fold_table(rows)
    far = {**rows[0], "variant": "gam", "logo3": [-11.66, -13.59, -9.66]}  # off the figure's scale: named, not drawn
    out = tmp_path / "folds.png"
    plot_folds([*rows, far], out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
