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


def test_one_provider_in_training_rows_is_one_line_error(tmp_path, corpus_files, capsys):
    import json

    with open(corpus_files["debates"], encoding="utf-8") as f:
        texts = [json.loads(next(f))["text"] for _ in range(30)]
    rows = [{"text": t, "topic": f"t{i}", "model": "gpt-4o" if i == 0 else "claude-x"} for i, t in enumerate(texts)]
    path = tmp_path / "lopsided.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, cap = _run(["study", str(path), "--out", str(tmp_path / "o"), "--max-per-class", "0", "--no-progress",
                      "--no-full-features", "--no-style-model", "--no-default-model"], capsys)
    assert code == 1 and cap.err.count("\n") == 1 and "one provider" in cap.err, cap.err


def test_out_that_cannot_be_created_is_one_line_error(tmp_path, corpus_files, capsys):
    (tmp_path / "afile").write_text("x")
    code, cap = _run(["study", str(corpus_files["blogs"]), "--out", str(tmp_path / "afile" / "o")], capsys)
    assert code == 1 and cap.err.count("\n") == 1 and "cannot create" in cap.err, cap.err


def test_cache_dir_that_is_a_file_is_one_line_error(tmp_path, corpus_files, capsys):
    (tmp_path / "afile").write_text("x")
    code, cap = _run(["study", str(corpus_files["blogs"]), "--out", str(tmp_path / "o"),
                      "--cache-dir", str(tmp_path / "afile")], capsys)
    assert code == 1 and cap.err.count("\n") == 1 and "--cache-dir" in cap.err, cap.err


def test_damaged_embedding_cache_is_ignored(tmp_path):
    from whowrote.study.embed import EmbeddingCache

    path = tmp_path / "minilm_embeddings.npz"
    path.write_bytes(b"not a zip file")
    assert EmbeddingCache(path).vectors == {}
