"""`whowrote study --out DIR` refuses a non-empty folder it did not write (audit: it replaced a
user's summary.md / report.html) and still reruns into its own report folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROWS = [{"id": f"r{i}", "text": f"Made-up note number {i}. It says little, briefly.",
         "model": "claude-opus-4" if i % 2 else "gpt-4o", "topic": f"t{i % 3}"} for i in range(6)]


@pytest.fixture
def corpus_file(tmp_path) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


@pytest.fixture
def fake_study(monkeypatch):
    """Stands in for run_study (minutes of embedding): writes what a study writes."""
    import whowrote.study.run as run

    def fake(corpus, out, **kwargs):
        probe = {"val": {"accuracy": 1.0}}
        summary = {"config": {}, "style_probe": probe, "content_probe": probe}
        for name in ("summary.md", "report.html"):
            (Path(out) / name).write_text("study output\n")
        (Path(out) / "summary.json").write_text(json.dumps(summary))
        return summary

    monkeypatch.setattr(run, "run_study", fake)


def test_study_refuses_a_users_folder(tmp_path, corpus_file, fake_study, run_cli):
    d = tmp_path / "userdir"
    d.mkdir()
    files = {"summary.md": b"# my summary\n", "report.html": b"<p>mine</p>\n"}
    for name, data in files.items():
        (d / name).write_bytes(data)
    code, err = run_cli(["study", str(corpus_file), "--out", str(d), "--no-progress"])
    assert code == 1 and err.count("\n") == 1 and "not empty" in err, err
    assert {p.name: p.read_bytes() for p in d.iterdir()} == files


def test_study_reruns_into_its_own_folder(tmp_path, corpus_file, fake_study, run_cli):
    out = tmp_path / "o"
    for _ in range(2):
        code, err = run_cli(["study", str(corpus_file), "--out", str(out), "--no-progress"])
        assert code == 0, err
    legacy = tmp_path / "legacy"  # written before folders were marked: known by its summary.json
    legacy.mkdir()
    (legacy / "summary.json").write_text((out / "summary.json").read_text())
    code, err = run_cli(["study", str(corpus_file), "--out", str(legacy), "--no-progress"])
    assert code == 0, err
