"""scripts/gpu/pick_lr.py: the session's lr rule applied to run folders' in-loop evals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts" / "gpu"))

import pick_lr  # noqa: E402


def _run(root: Path, lr: str, evals: list[tuple[int, float, float]], collapse_at: int | None = None) -> Path:
    d = root / f"grpo_s0_lr{lr}"
    d.mkdir(parents=True)
    recs = [{"kind": "eval", "step": s, "accuracy": a, "n_examples": 120,
             "per_provider": {"CLAUDE": {"recall": lo}, "CHATGPT": {"recall": 0.6}, "GEMINI": {"recall": 0.6}}}
            for s, a, lo in evals]
    if collapse_at is not None:
        recs.append({"kind": "collapse", "step": collapse_at, "kinds": ["class"]})
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs) + '{"torn')
    return d


def test_the_best_at_the_last_common_step_wins_by_more_than_a_text(tmp_path: Path) -> None:
    a = _run(tmp_path, "1e-6", [(0, 0.3, 0.3), (10, 0.40, 0.3), (18, 0.45, 0.3)])
    b = _run(tmp_path, "5e-6", [(0, 0.3, 0.3), (10, 0.45, 0.2), (20, 0.46, 0.15)])
    out = pick_lr.pick([a, b])
    assert out["step"] == 10 and out["chosen_lr"] == 5e-6  # 18 and 20 are not common: step 10 decides
    # with a per-class floor above b's smallest recall at step 10, the lowest lr stays
    assert pick_lr.pick([a, b], min_recall=0.25)["chosen_lr"] == 1e-6
    # one text is not enough (margin 1 text of 120)
    c = _run(tmp_path / "c", "5e-6", [(10, 0.40 + 1 / 120, 0.3)])
    assert pick_lr.pick([a, c])["chosen_lr"] == 1e-6


def test_a_collapse_before_the_compared_step_disqualifies(tmp_path: Path) -> None:
    a = _run(tmp_path, "1e-6", [(10, 0.40, 0.3)])
    b = _run(tmp_path, "5e-6", [(10, 0.60, 0.3)], collapse_at=8)
    assert pick_lr.pick([a, b])["chosen_lr"] == 1e-6
    late = _run(tmp_path / "late", "5e-6", [(10, 0.60, 0.3)], collapse_at=12)
    assert pick_lr.pick([a, late])["chosen_lr"] == 5e-6


def test_cli_and_one_line_errors(tmp_path: Path) -> None:
    a = _run(tmp_path, "1e-6", [(10, 0.40, 0.3)])
    b = _run(tmp_path, "5e-6", [(10, 0.50, 0.3)])
    res = subprocess.run([sys.executable, str(REPO / "scripts" / "gpu" / "pick_lr.py"), str(a), str(b)],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and res.stdout.splitlines()[-1].startswith("chosen: lr 5e-06")
    with pytest.raises(SystemExit, match="does not end in _lrLR"):
        pick_lr.lr_of(tmp_path / "grpo_s0")
    d = _run(tmp_path / "d", "2e-6", [(0, 0.3, 0.3)])
    with pytest.raises(SystemExit, match="share no eval step"):
        pick_lr.pick([a, d])
