"""``whowrote data generate`` as users run it: dry run, exit codes, and keys that never reach
the disk or the terminal."""

from __future__ import annotations

import json

import pytest

from whowrote.cli import main

from .conftest import read_rows, write_plan


def test_dry_run_prints_cells_and_budget_and_sends_nothing(tmp_path, server, keys, capsys):
    srv = server()
    plan = write_plan(tmp_path, srv.url, ("openai", "anthropic"), genres=("blog", "essay"),
                      extra="[concurrency]\nopenai = 2")
    with pytest.raises(SystemExit) as code:
        main(["data", "generate", "--plan", str(plan), "--out", str(tmp_path / "out"), "--dry-run"])
    assert code.value.code == 0
    out = capsys.readouterr().out
    assert "gpt-5.5" in out and "claude-opus-4-6" in out and "dry run" in out
    totals = json.loads(out.strip().splitlines()[-1])
    assert totals["cells"] == 8 and totals["done"] == 0 and totals["max_output_tokens"] == 8 * (2 * 40 + 1024)
    assert srv.requests == [] and not (tmp_path / "out").exists()


def _main(args: list[str]) -> int:
    with pytest.raises(SystemExit) as code:
        main(args)
    return int(code.value.code or 0)


def test_keys_never_reach_files_or_output(tmp_path, server, keys, capfd, caplog):
    srv = server()
    plan = write_plan(tmp_path, srv.url, ("openai", "anthropic", "google", "openai-compatible"))
    caplog.set_level("INFO")
    assert _main(["data", "generate", "--plan", str(plan), "--out", str(tmp_path / "out"), "--markdown-tree"]) == 0
    assert len(read_rows(tmp_path / "out" / "generated.jsonl")) == 8
    files = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert len(files) >= 8 + 3  # rows, dropped, report, markdown files
    cap = capfd.readouterr()  # everything written to the process's stdout / stderr file descriptors
    blobs = [p.read_bytes() for p in files] + [cap.out.encode(), cap.err.encode(), caplog.text.encode()]
    assert b"8 written now" in blobs[-3]
    sent = " ".join(json.dumps(r["headers"]) for r in srv.requests)
    for value in keys.values():
        assert value in sent  # each key was used ...
        assert not any(value.encode() in b for b in blobs)  # ... and written nowhere


def test_auth_failure_exits_1_with_one_line_and_no_key(tmp_path, server, keys, capfd):
    srv = server(key="only-this-key")  # the server's 401 echoes the wrong key it got
    plan = write_plan(tmp_path, srv.url, ("openai",))
    assert _main(["data", "generate", "--plan", str(plan), "--out", str(tmp_path / "out"), "--quiet"]) == 1
    cap = capfd.readouterr()
    assert cap.err.count("\n") == 1 and cap.err.startswith("whowrote: error: openai refused")
    assert "Traceback" not in cap.err and keys["OPENAI_API_KEY"] not in cap.err + cap.out


def test_failed_cells_exit_1_after_writing_the_rest(tmp_path, server, keys, capsys):
    srv = server(faults=["500"] * 3)
    plan = write_plan(tmp_path, srv.url, ("openai",), extra="[concurrency]\nopenai = 1")
    with pytest.raises(SystemExit) as code:
        main(["data", "generate", "--plan", str(plan), "--out", str(tmp_path / "out"), "-q"])
    assert code.value.code == 1
    captured = capsys.readouterr()
    assert "1 cell(s) still failing" in captured.err and "1 written now" in captured.out
    assert len(read_rows(tmp_path / "out" / "generated.jsonl")) == 1


def test_bad_input_is_one_line(tmp_path, server, keys, capsys):
    assert _main(["data", "generate", "--plan", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "o")]) == 1
    assert "plan not found" in capsys.readouterr().err
    plan = write_plan(tmp_path, server().url, ("openai",))
    (tmp_path / "a-file").write_text("x")
    assert _main(["data", "generate", "--plan", str(plan), "--out", str(tmp_path / "a-file")]) == 1
    assert "exists and is not a folder" in capsys.readouterr().err
    assert _main(["data", "generate", "--plan", str(plan), "--out", str(tmp_path / "a-file" / "sub")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("whowrote: error: ") and err.count("\n") == 1 and "Traceback" not in err


REPO = __import__("pathlib").Path(__file__).resolve().parents[2]


def test_shipped_plans_dry_run_without_keys(tmp_path, capsys, monkeypatch):
    for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(k, raising=False)
    want = {"example.toml": 84, "fake_server.toml": 120}
    for name, n in want.items():
        assert _main(["data", "generate", "--plan", str(REPO / "configs" / "generate" / name), "--out", str(tmp_path / name),
                      "--dry-run"]) == 0
        out = capsys.readouterr().out
        assert json.loads(out.strip().splitlines()[-1])["cells"] == n
        assert "missing API keys" in out
