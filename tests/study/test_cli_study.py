"""``whowrote study``: bad input gives a one-line error and exit code 1; the command is registered."""

from __future__ import annotations

import pytest

from whowrote.cli import main


def _run(argv, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    return e.value.code, capsys.readouterr()


def test_missing_file_is_one_line_error(tmp_path, capsys):
    code, cap = _run(["study", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o")], capsys)
    assert code == 1
    assert cap.err.strip() == f"whowrote: error: no such corpus file: {tmp_path / 'nope.jsonl'}"
    assert "Traceback" not in cap.err


def test_bad_labels_and_caps(tmp_path, corpus_files, capsys):
    blogs = str(corpus_files["blogs"])
    code, cap = _run(["study", blogs, "--out", str(tmp_path / "o"), "--labels", "CLAUDE"], capsys)
    assert code == 1 and cap.err.count("\n") == 1 and "--labels" in cap.err
    code, cap = _run(["study", blogs, "--out", str(tmp_path / "o"), "--labels", "CLAUDE,BARD"], capsys)
    assert code == 1 and "--labels" in cap.err
    code, cap = _run(["study", blogs, "--out", str(tmp_path / "o"), "--max-per-class", "-1"], capsys)
    assert code == 1 and "--max-per-class" in cap.err


def test_out_must_be_a_directory(tmp_path, corpus_files, capsys):
    f = tmp_path / "file.txt"
    f.write_text("x")
    code, cap = _run(["study", str(corpus_files["blogs"]), "--out", str(f)], capsys)
    assert code == 1 and "not a directory" in cap.err


def test_one_provider_corpus_is_refused(tmp_path, capsys):
    src = tmp_path / "one.jsonl"
    src.write_text('{"id": "a", "text": "Hello there. General text.", "model": "claude-opus-4.8"}\n'
                   '{"id": "b", "text": "Another text, quite short.", "model": "claude-opus-4.8"}\n')
    code, cap = _run(["study", str(src), "--out", str(tmp_path / "o")], capsys)
    assert code == 1 and "at least 2 providers" in cap.err


def test_help_lists_options(capsys):
    code, cap = _run(["study", "--help"], capsys)
    assert code == 0
    for opt in ("--out", "--seed", "--max-per-class", "--labels"):
        assert opt in cap.out
