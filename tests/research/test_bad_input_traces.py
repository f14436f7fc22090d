"""`whowrote traces` on bad input: one line on stderr and exit 1, never a traceback or a silent run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from whowrote.cli import main

GOOD = {"completion": "<answer>\nCLAUDE\n</answer>", "gold": "CLAUDE", "pred": "CLAUDE", "correct": True}


def _fails(capsys, *args: str) -> str:
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(["traces", *args])
    err = capsys.readouterr().err
    assert e.value.code == 1 and "Traceback" not in err and err.count("\n") == 1, err
    return err


def _jsonl(path: Path, *records: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_binary_trace_file_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bin.jsonl"
    bad.write_bytes(b"\x98\xff\xfe" * 100)
    assert "not valid UTF-8" in _fails(capsys, str(tmp_path / "R"), str(bad))


@pytest.mark.parametrize(("key", "value", "want"), [
    ("pred", ["x"], "'pred' must be a string"), ("gold", {"a": 1}, "'gold' must be a string"),
    ("completion", 3, "'completion' must be a string"), ("correct", "yes", "'correct' must be a boolean"),
])
def test_field_of_the_wrong_type_is_named(tmp_path, capsys, key, value, want):
    src = _jsonl(tmp_path / "t.jsonl", GOOD, {**GOOD, key: value})
    err = _fails(capsys, str(tmp_path / "R"), str(src))
    assert want in err and "t.jsonl:2" in err


@pytest.mark.parametrize(("run_json", "want"), [
    ("not json", "invalid JSON"), ("[1, 2]", "must hold a JSON object"), ('{"split": 3}', "'split' must be"),
])
def test_bad_run_json_is_one_line(tmp_path, capsys, run_json, want):
    _jsonl(tmp_path / "ev" / "traces.jsonl", GOOD)
    (tmp_path / "ev" / "run.json").write_text(run_json, encoding="utf-8")
    err = _fails(capsys, str(tmp_path / "R"), str(tmp_path / "ev"))
    assert want in err and "run.json" in err


def test_bad_run_config_is_one_line(tmp_path, capsys):
    src = _jsonl(tmp_path / "run" / "evals" / "step00010.traces.jsonl", GOOD)
    (tmp_path / "run" / "config.grpo.toml").write_text("[data\nval = ", encoding="utf-8")
    err = _fails(capsys, str(tmp_path / "R"), str(src))
    assert "config.grpo.toml: invalid TOML" in err


def test_missing_split_given_on_the_command_line_is_an_error(tmp_path, capsys):
    src = _jsonl(tmp_path / "t.jsonl", GOOD)
    err = _fails(capsys, str(tmp_path / "R"), str(src), "--split", str(tmp_path / "nope.jsonl"))
    assert "split file not found" in err and "nope.jsonl" in err
    assert not (tmp_path / "R").exists()
