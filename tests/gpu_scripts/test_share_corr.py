"""scripts/gpu/share_corr.py: per-step CLAUDE share of GRPO runs and their pairwise correlation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "gpu" / "share_corr.py"


def _run_folder(root: Path, name: str, shares: list[float], summary_at_end: bool = True) -> None:
    d = root / "qwen05b" / "cs_tellsfirst_ao" / name
    d.mkdir(parents=True)
    recs = [{"kind": "start", "stage": "grpo", "step": 0}, {"kind": "eval", "step": 0, "accuracy": 0.5}]
    recs += [{"kind": "train", "step": s, "rewards/pred_claude/mean": v} for s, v in enumerate(shares, 1)]
    if summary_at_end:  # TRL's end-of-training summary: the last step's number, no metrics
        recs.append({"kind": "train", "step": len(shares), "train_runtime": 1.0})
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


def test_pairs_correlate_over_shared_steps(tmp_path: Path) -> None:
    up = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    _run_folder(tmp_path / "session26", "grpo_s6_lr5e-6_mp05_m17", up)
    _run_folder(tmp_path / "session27", "grpo_s8_lr5e-6_mp05_m34", [2 * v + 0.05 for v in up] + [0.9, 0.9])
    _run_folder(tmp_path / "session27", "grpo_s9_lr5e-6_mp05_m34", up[::-1][:4])  # stopped after 4 steps
    out = tmp_path / "corr.json"
    res = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "session26" / "qwen05b"),
                          str(tmp_path / "session27" / "qwen05b"), "--steps", "6", "--out", str(out)],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    got = json.loads(out.read_text())
    a, b, c = "s26:grpo_s6_lr5e-6_mp05_m17", "s27:grpo_s8_lr5e-6_mp05_m34", "s27:grpo_s9_lr5e-6_mp05_m34"
    assert got["pairs"][f"{a} ~ {b}"] == {"r": 1.0, "n_steps": 6}  # steps 7-8 are past --steps
    assert got["pairs"][f"{a} ~ {c}"]["n_steps"] == 4
    assert got["pairs"][f"{a} ~ {c}"]["r"] == -1.0
    assert list(got["share"][b]) == ["1", "2", "3", "4", "5", "6"] and got["share"][a]["6"] == 0.6


def test_too_few_runs_is_one_line_error(tmp_path: Path) -> None:
    _run_folder(tmp_path / "session27", "grpo_s8_lr5e-6_mp05_m34", [0.1, 0.2, 0.3])
    res = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "session27" / "qwen05b")],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "fewer than two runs" in res.stderr and "Traceback" not in res.stderr
