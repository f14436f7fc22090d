"""`whowrote data generate --out DIR` refuses a non-empty folder that is not a generation run
(audit: it appended to a user's generated.jsonl) and still resumes its own runs."""

from __future__ import annotations

from pathlib import Path

from whowrote.data.outdir import OWNER

from .conftest import read_rows, write_plan


def test_generate_refuses_a_users_folder(tmp_path, server, keys, run_cli):
    plan = write_plan(tmp_path, server().url, ("openai-compatible",))
    d = tmp_path / "foreign"
    d.mkdir()
    files = {"generated.jsonl": b'{"id": "mine", "text": "my own row"}\n', "notes.md": b"# notes\n"}
    for name, data in files.items():
        (d / name).write_bytes(data)
    code, err = run_cli(["data", "generate", "--plan", str(plan), "--out", str(d), "-q"])
    assert code == 1 and err.count("\n") == 1 and "not empty" in err, err
    assert {p.name: p.read_bytes() for p in d.iterdir()} == files


def test_generate_resumes_its_own_folder(tmp_path, server, keys, run_cli):
    plan = write_plan(tmp_path, server().url, ("openai-compatible",))
    out: Path = tmp_path / "out"
    assert run_cli(["data", "generate", "--plan", str(plan), "--out", str(out), "-q"])[0] == 0
    rows = read_rows(out / "generated.jsonl")
    (out / OWNER).unlink()  # a run folder written before folders were marked
    assert run_cli(["data", "generate", "--plan", str(plan), "--out", str(out), "-q"])[0] == 0
    assert read_rows(out / "generated.jsonl") == rows and rows  # nothing generated twice
