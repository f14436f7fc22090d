"""Loss-free and resumable: a real ``whowrote data generate`` process killed with SIGKILL, then
run again; partial last lines; re-runs that send nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from whowrote.data.generate import load_plan, run
from whowrote.data.generate.plan import cells
from whowrote.data.generate.store import Appender, recover
from whowrote.types import WhowroteError

from .conftest import read_rows, write_plan

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _cli(plan: Path, out: Path, env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "from whowrote.cli import main; main()", "data", "generate",
                             "--plan", str(plan), "--out", str(out)],
                            env={**env, "PYTHONPATH": SRC}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_sigkill_mid_run_then_resume_loses_nothing_and_duplicates_nothing(tmp_path, server, keys):
    srv = server(delay=0.25)
    topics = tuple(f"Topic number {i}" for i in range(10))
    plan_path = write_plan(tmp_path, srv.url, ("openai-compatible",), topics=topics,
                           extra="[concurrency]\nopenai-compatible = 2")
    out = tmp_path / "out"
    rows_file = out / "generated.jsonl"
    env = dict(os.environ)
    proc = _cli(plan_path, out, env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(read_rows(rows_file)) < 3 and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    before = rows_file.read_bytes()
    n_before = len(before.splitlines())
    assert 3 <= n_before < 10 and before.endswith(b"\n")
    sent_before = len(srv.requests)
    # A kill can also land inside a row's write: leave the half line such a kill would leave.
    with open(rows_file, "ab") as f:
        f.write(b'{"id": "gen-half", "text": "a row cut off by the ki')

    proc = _cli(plan_path, out, env)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr.decode()
    assert b"partial last line" in stderr
    after = rows_file.read_bytes()
    assert after.startswith(before)  # nothing already written was rewritten
    rows = [json.loads(line) for line in after.splitlines()]  # every line is a whole row
    want = {c.id for c in cells(load_plan(plan_path))}
    assert [r["id"] for r in rows if r["id"] not in want] == []
    assert sorted(r["id"] for r in rows) == sorted(want)  # each cell exactly once
    # The second run asked only for what the first had not finished: at most the 2 in flight were lost.
    resent = len(srv.requests) - sent_before
    assert resent == 10 - n_before
    assert sent_before <= n_before + 2
    assert b"10 cells: %d already done" % n_before in stdout


def test_rerun_of_a_finished_plan_sends_nothing(tmp_path, server, keys):
    srv = server()
    plan = load_plan(write_plan(tmp_path, srv.url, ("openai",)))
    first = run(plan, tmp_path / "out", log=lambda m: None)
    n = len(srv.requests)
    second = run(plan, tmp_path / "out", log=lambda m: None)
    assert first.written == 2 and second.written == 0 and second.already_done == 2 and len(srv.requests) == n
    assert len(read_rows(tmp_path / "out" / "generated.jsonl")) == 2


def test_growing_a_plan_generates_only_the_new_cells(tmp_path, server, keys):
    srv = server()
    run(load_plan(write_plan(tmp_path, srv.url, ("openai",), samples=1)), tmp_path / "out", log=lambda m: None)
    report = run(load_plan(write_plan(tmp_path, srv.url, ("openai",), samples=2)), tmp_path / "out",
                 log=lambda m: None)
    assert report.already_done == 2 and report.written == 2 and len(srv.requests) == 4
    rows = read_rows(tmp_path / "out" / "generated.jsonl")
    assert sorted(r["sample"] for r in rows) == [0, 0, 1, 1]


def test_recover_cuts_only_a_partial_last_line(tmp_path):
    path = tmp_path / "rows.jsonl"
    with Appender(path) as app:
        app.write({"id": "a", "text": "x"})
        app.write({"id": "b", "text": "y"})
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"id": "c", "te')
    notes: list[str] = []
    assert [r["id"] for r in recover(path, notes.append)] == ["a", "b"]
    assert path.read_bytes() == whole and "15 bytes" in notes[0]


def test_recover_refuses_a_damaged_middle_line_and_changes_nothing(tmp_path):
    path = tmp_path / "rows.jsonl"
    damaged = b'{"id": "a"}\nnot json\n{"id": "b"}\n'
    path.write_bytes(damaged)
    with pytest.raises(WhowroteError, match=r"rows.jsonl:2: not a JSON row"):
        recover(path, lambda m: None)
    assert path.read_bytes() == damaged


def test_dry_run_counts_done_cells_and_changes_no_file(tmp_path, server, keys, capsys):
    from whowrote.cli import main

    srv = server()
    plan_path = write_plan(tmp_path, srv.url, ("openai",))
    run(load_plan(plan_path), tmp_path / "out", log=lambda m: None)
    rows_file = tmp_path / "out" / "generated.jsonl"
    with open(rows_file, "ab") as f:
        f.write(b'{"id": "half')
    before = rows_file.read_bytes()
    with pytest.raises(SystemExit) as code:
        main(["data", "generate", "--plan", str(plan_path), "--out", str(tmp_path / "out"), "--dry-run"])
    assert code.value.code == 0 and rows_file.read_bytes() == before
    captured = capsys.readouterr()
    assert json.loads(captured.out.strip().splitlines()[-1])["done"] == 2
    assert "will be cut off by the next run" in captured.err
