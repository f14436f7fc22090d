"""scripts/gpu/step_split.py: medians of the logged step split, first step left out, torn lines skipped."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gpu" / "step_split.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


def test_medians_leave_out_the_first_step_and_torn_lines(tmp_path: Path) -> None:
    d = tmp_path / "grpo_split_4096"
    d.mkdir()
    recs = [{"kind": "start", "step": 0}]
    for step, (st, ro, gen) in enumerate([(30.0, 29.0, 20.0), (7.0, 5.0, 3.0), (8.0, 5.5, 3.5), (7.5, 6.0, 4.0)], 1):
        recs.append({"kind": "train", "step": step, "step_time": st, "time/rollouts_s": ro,
                     "time/vllm_generate_s": gen, "time/vllm_sync_s": 0.25})
    text = "".join(json.dumps(r) + "\n" for r in recs) + '{"kind": "train", "step": 5, "step_ti'
    (d / "metrics.jsonl").write_text(text)
    old = tmp_path / "old"
    old.mkdir()
    (old / "metrics.jsonl").write_text(json.dumps({"kind": "train", "step": 1, "step_time": 7.2}) + "\n"
                                       + json.dumps({"kind": "train", "step": 2, "step_time": 7.4}) + "\n")
    res = _run(str(d / "metrics.jsonl"), str(old / "metrics.jsonl"))
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    # steps 2-4: step_time 7.0/8.0/7.5 -> 7.5; rollouts 5.0/5.5/6.0 -> 5.5; optimisation 2.0/2.5/1.5 -> 2.0
    assert lines[1] == "grpo_split_4096 | 4 | 7.50 | 5.50 | 3.50 | 0.25 | 2.00"
    assert lines[2] == "old | 2 | 7.40 | — | — | — | —"  # a run from before the split was logged
    # --skip 2 (a run that profiled step 2): steps 3-4 -> step_time 7.75, rollouts 5.75, optimisation 2.0
    res = _run(str(d / "metrics.jsonl"), "--skip", "2")
    assert res.returncode == 0 and "first 2 steps left out" in res.stdout
    assert res.stdout.splitlines()[1] == "grpo_split_4096 | 4 | 7.75 | 5.75 | 3.75 | 0.25 | 2.00"
    assert _run(str(d / "metrics.jsonl"), "--skip", "-1").returncode == 2
    png = tmp_path / "split.png"
    res = _run(str(d / "metrics.jsonl"), str(old / "metrics.jsonl"), "--plot", str(png))
    assert res.returncode == 0, res.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_usage_and_missing_file(tmp_path: Path) -> None:
    assert _run().returncode == 2
    assert _run(str(tmp_path / "x.jsonl"), "--plot").returncode == 2
    res = _run(str(tmp_path / "nope.jsonl"))
    assert res.returncode == 1 and "not found" in res.stderr and "Traceback" not in res.stderr
