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
    assert cap.err.strip() == f"whowrote: error: {tmp_path / 'nope.jsonl'}: no such file or folder"
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
    assert code == 1 and cap.err.strip().endswith("at least 2 providers, got {'CLAUDE': 2}")  # no numpy reprs


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
    assert code == 1 and cap.err.count("\n") == 1 and f"is under a file ({tmp_path / 'afile'})" in cap.err, cap.err


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


# --- every source load_corpus reads (save_to_disk folder, Parquet, hub id), no network -------------

ROWS = [{"id": f"r{i}", "text": f"Made-up note number {i}. It says little, briefly.",
         "model": "claude-opus-4" if i % 2 else "gpt-4o", "topic": f"t{i % 3}"} for i in range(6)]


@pytest.fixture
def fake_study(monkeypatch):
    """Stands in for run_study (minutes of embedding): records the corpus the CLI loaded."""
    import whowrote.study.run as run

    seen = {}

    def fake(corpus, out, **kwargs):
        seen["corpus"] = corpus
        probe = {"val": {"accuracy": 1.0}}
        return {"style_probe": probe, "content_probe": probe}

    monkeypatch.setattr(run, "run_study", fake)
    return seen


def _saved_dataset(tmp_path):
    datasets = pytest.importorskip("datasets")
    folder = tmp_path / "saved"
    datasets.Dataset.from_list(ROWS).save_to_disk(str(folder))
    return folder


def _check_loaded(code, cap, seen):
    assert code == 0, cap.err
    corpus = seen["corpus"]
    assert sorted(corpus["id"]) == sorted(r["id"] for r in ROWS)
    assert set(corpus["provider"]) == {"CLAUDE", "CHATGPT"}
    assert "style probe accuracy" in cap.out


def test_study_reads_a_save_to_disk_folder(tmp_path, fake_study, capsys):
    folder = _saved_dataset(tmp_path)
    code, cap = _run(["study", str(folder), "--out", str(tmp_path / "o"), "--no-progress"], capsys)
    _check_loaded(code, cap, fake_study)


def test_study_reads_parquet(tmp_path, fake_study, capsys):
    import pandas as pd

    path = tmp_path / "rows.parquet"
    pd.DataFrame(ROWS).to_parquet(path)
    code, cap = _run(["study", str(path), "--out", str(tmp_path / "o"), "--no-progress"], capsys)
    _check_loaded(code, cap, fake_study)


def test_study_reads_a_hub_id_through_load_corpus(tmp_path, fake_study, monkeypatch, capsys):
    """A hub id is not a local path; the hub is faked with a local dataset (no network)."""
    datasets = pytest.importorskip("datasets")
    folder = _saved_dataset(tmp_path)
    asked = []

    def load_dataset(name, split=None, **kwargs):
        asked.append((name, split))
        return datasets.load_from_disk(str(folder))

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    monkeypatch.chdir(tmp_path)  # "someone/notes" must not exist as a local path
    code, cap = _run(["study", "someone/notes:train", "--out", str(tmp_path / "o"), "--no-progress"], capsys)
    _check_loaded(code, cap, fake_study)
    assert asked == [("someone/notes", "train")]


def test_unreadable_sources_are_one_line_errors(tmp_path, monkeypatch, capsys):
    datasets = pytest.importorskip("datasets")
    garbage = tmp_path / "rows.parquet"
    garbage.write_bytes(b"this is not parquet at all" * 50)
    code, cap = _run(["study", str(garbage), "--out", str(tmp_path / "o")], capsys)
    assert code == 1 and cap.err.count("\n") == 1 and "rows.parquet: cannot read as parquet" in cap.err, cap.err

    def offline(name, split=None, **kwargs):
        raise ConnectionError("Couldn't reach the Hugging Face Hub (offline)\nmore detail")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    monkeypatch.chdir(tmp_path)
    code, cap = _run(["study", "someone/missing", "--out", str(tmp_path / "o")], capsys)
    assert code == 1 and cap.err.count("\n") == 1, cap.err
    assert "someone/missing: cannot load hub dataset: Couldn't reach" in cap.err
    empty = tmp_path / "empty_folder"
    empty.mkdir()
    code, cap = _run(["study", str(empty), "--out", str(tmp_path / "o")], capsys)
    assert code == 1 and cap.err.count("\n") == 1 and "no dataset and no .md/.txt files" in cap.err, cap.err
    assert not (tmp_path / "o").exists()  # nothing is written before the corpus is read
