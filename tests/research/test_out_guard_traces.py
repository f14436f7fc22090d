"""`whowrote traces REPORT_DIR ...` refuses a non-empty folder that is not an earlier trace report
(audit: it replaced a user's report.html / summary.json) and still rewrites its own report."""

from __future__ import annotations

import json
from pathlib import Path

GOOD = {"completion": "<reason_why>Em dashes \u2014 everywhere.</reason_why>\n<answer>\nCLAUDE\n</answer>",
        "gold": "CLAUDE", "pred": "CLAUDE", "correct": True}


def _traces(path: Path) -> Path:
    path.write_text("".join(json.dumps({**GOOD, "prompt_id": f"p{i}"}) + "\n" for i in range(3)), encoding="utf-8")
    return path


def test_traces_refuses_a_users_folder(tmp_path, run_cli):
    src, d = _traces(tmp_path / "t.jsonl"), tmp_path / "userdir"
    d.mkdir()
    files = {"report.html": b"<p>my report</p>\n", "summary.json": b'{"mine": 1}\n'}
    for name, data in files.items():
        (d / name).write_bytes(data)
    code, err = run_cli(["traces", str(d), str(src)])
    assert code == 1 and err.count("\n") == 1 and "not empty" in err, err
    assert {p.name: p.read_bytes() for p in d.iterdir()} == files


def test_traces_rewrites_its_own_report(tmp_path, run_cli):
    src, out = _traces(tmp_path / "t.jsonl"), tmp_path / "report"
    for _ in range(2):
        code, err = run_cli(["traces", str(out), str(src)])
        assert code == 0, err
    assert json.loads((out / "summary.json").read_text())["t"]["n"] == 3
