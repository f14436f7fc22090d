"""benchmarks/blog_shift.py: verdicts and per-cue CLAUDE-over-CHATGPT support on blog posts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import blog_shift  # noqa: E402

from whowrote.style.io import DEFAULT_DIR  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
POST = (REPO / "examples" / "post.md").read_text()


def _blogs(tmp_path: Path) -> Path:
    rows = [{"id": f"b{i}", "content": POST if i % 2 == 0 else POST.replace("'", "’").upper(),
             "model": m, "category": "tech", "topic": f"t{i}", "title": "T", "length": 1}
            for i, m in enumerate(["claude-opus-4.8", "gpt-5.5", "claude-opus-4.8", "gpt-5.5"])]
    path = tmp_path / "blogs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_cue_supports_add_up_and_one_model_twice_shifts_nothing(tmp_path: Path) -> None:
    model = DEFAULT_DIR
    out = tmp_path / "shift.json"
    assert blog_shift.main(["--blogs", str(_blogs(tmp_path)), "--base", str(model), "--with", str(model),
                            "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    base = res["base"]
    assert res["n"] == 4
    assert {g: sum(v.values()) for g, v in base["verdicts_3way"].items()} == {"CLAUDE": 2, "CHATGPT": 2}
    # the cues partition the features: their mean supports sum to the mean total support
    assert sum(base["claude_support_by_cue"].values()) == pytest.approx(base["claude_support_total"], abs=1e-9)
    assert np.count_nonzero(list(base["claude_support_by_cue"].values())) > 3
    assert all(v == 0.0 for v in res["shift_toward_chatgpt"].values())
    assert res["with"] == base
