"""The CLI contract: `whowrote data audit PATH...` and `whowrote data split PATH... --out DIR [--seed N]`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from whowrote.cli import main
from whowrote.types import WhowroteError

from .helpers import sample_rows, write_jsonl


def run(args: list[str], capsys) -> tuple[int, str, str]:
    """The real entry point in-process: exit code, stdout, stderr."""
    try:
        main(args)
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


def _rows(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.mark.slow
def test_split_all_four_files_installed_script(corpus_files, tmp_path):
    out = tmp_path / "split"
    proc = subprocess.run(
        ["whowrote", "data", "split", *map(str, corpus_files.values()), "--out", str(out), "--seed", "0",
         "--format", "jsonl,qa"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "train" in proc.stdout and "val_ood" in proc.stdout
    splits = {name: _rows(out / f"{name}.jsonl") for name in ("train", "val", "val_ood")}
    for name, rows in splits.items():
        assert rows, name
        for row in rows[:50]:
            assert {"id", "text", "provider", "model", "category", "topic", "genre"} <= set(row)
    topics = {name: {(r["genre"], r["topic"]) for r in rows} for name, rows in splits.items()}
    assert not topics["train"] & topics["val"] and not topics["train"] & topics["val_ood"]
    qa = _rows(out / "qa" / "val.jsonl")
    assert len(qa) == len(splits["val"]) and {"question", "answer", "info"} == set(qa[0])
    assert "task" not in qa[0]["info"] and qa[0]["info"]["source_model"]
    assert not list(tmp_path.glob(".split.tmp-*"))


@pytest.mark.slow
def test_split_is_deterministic_and_seed_matters(corpus_files, tmp_path, capsys):
    paths = [str(write_jsonl(sample_rows(corpus_files[stem], n=90, every=every), tmp_path / f"{stem}.jsonl"))
             for stem, every in (("blogs", 2), ("longform", 9))]
    args = ["data", "split", *paths, "--format", "jsonl", "--strip-frac", "0.4"]
    for name, seed in (("a", "3"), ("b", "3"), ("c", "4")):
        code, _, err = run([*args, "--out", str(tmp_path / name), "--seed", seed], capsys)
        assert code == 0, err
    for split in ("train.jsonl", "val.jsonl", "val_ood.jsonl"):
        assert (tmp_path / "a" / split).read_bytes() == (tmp_path / "b" / split).read_bytes()
    assert (tmp_path / "a" / "val.jsonl").read_bytes() != (tmp_path / "c" / "val.jsonl").read_bytes()
    # Re-running into the same folder replaces the earlier split.
    code, _, err = run([*args, "--out", str(tmp_path / "a"), "--seed", "4", "--no-ood"], capsys)
    assert code == 0, err
    assert not (tmp_path / "a" / "val_ood.jsonl").exists()


def test_split_hf_layout_is_one_datasetdict_and_load_dataset_agrees(corpus_files, tmp_path, capsys):
    datasets = pytest.importorskip("datasets")
    paths = [str(write_jsonl(sample_rows(corpus_files[stem], n=120, every=every), tmp_path / f"{stem}.jsonl"))
             for stem, every in (("blogs", 1), ("fiction", 7))]
    out = tmp_path / "o"
    code, _, err = run(["data", "split", *paths, "--out", str(out), "--scheme", "binary"], capsys)
    assert code == 0, err
    rows = {name: len(_rows(out / f"{name}.jsonl")) for name in ("train", "val", "val_ood")}
    assert all(rows.values())
    want = {"train": rows["train"], "validation": rows["val"], "val_ood": rows["val_ood"]}
    saved = datasets.load_from_disk(str(out / "hf"))
    assert isinstance(saved, datasets.DatasetDict) and saved.num_rows == want
    assert set(saved["train"].column_names) == {"question", "answer", "info"}
    assert set(saved["train"]["answer"]) == {"CLAUDE", "CHATGPT"}
    assert saved["validation"][0]["info"]["task_type"] == "binary"
    loaded = datasets.load_dataset(str(out))  # the README's configs: val and val_ood stay apart
    assert loaded.num_rows == want
    val_ids = {r["info"]["id"] for r in loaded["validation"]}
    assert val_ids == {r["id"] for r in _rows(out / "val.jsonl")}
    assert not val_ids & {r["info"]["id"] for r in loaded["val_ood"]}


def test_logo_hf_layout_has_one_config_per_genre(corpus_files, tmp_path, capsys):
    datasets = pytest.importorskip("datasets")
    paths = [str(write_jsonl(sample_rows(corpus_files[stem], n=40, every=3), tmp_path / f"{stem}.jsonl"))
             for stem in ("blogs", "longform")]
    out = tmp_path / "o"
    code, _, err = run(["data", "split", *paths, "--out", str(out), "--scheme", "logo"], capsys)
    assert code == 0, err
    for genre in ("blog", "longform"):
        test_rows = len(_rows(out / genre / "test.jsonl"))
        assert datasets.load_from_disk(str(out / "hf" / genre))["test"].num_rows == test_rows
        assert datasets.load_dataset(str(out), genre)["test"].num_rows == test_rows


def test_push_to_hub_pushes_the_datasetdict_offline(corpus_files, tmp_path, capsys, monkeypatch):
    datasets = pytest.importorskip("datasets")
    calls = []

    def fake_push(self, repo_id, **kwargs):  # nothing leaves the machine
        calls.append((repo_id, kwargs, dict(self.num_rows)))

    monkeypatch.setattr(datasets.DatasetDict, "push_to_hub", fake_push)
    src = write_jsonl(sample_rows(corpus_files["fiction"], n=200, every=7), tmp_path / "fiction.jsonl")
    out = tmp_path / "o"
    code, stdout, err = run(["data", "split", str(src), "--out", str(out), "--format", "jsonl",
                             "--push-to-hub", "me/whowrote-fiction", "--private"], capsys)
    assert code == 0, err
    assert calls == [("me/whowrote-fiction", {"config_name": "default", "private": True},
                      {"train": len(_rows(out / "train.jsonl")), "validation": len(_rows(out / "val.jsonl")),
                       "val_ood": len(_rows(out / "val_ood.jsonl"))})]
    assert "pushed the DatasetDict to https://huggingface.co/datasets/me/whowrote-fiction" in stdout

    def failing_push(self, repo_id, **kwargs):
        raise RuntimeError("401 Client Error: Unauthorized for url\nmore detail")

    monkeypatch.setattr(datasets.DatasetDict, "push_to_hub", failing_push)
    code, _, err = run(["data", "split", str(src), "--out", str(out), "--push-to-hub", "me/x"], capsys)
    assert code == 1 and err.strip() == "whowrote: error: push to me/x failed: 401 Client Error: Unauthorized for url"


def test_logo_scheme_writes_one_folder_per_genre(corpus_files, tmp_path, capsys):
    files = {}
    for stem in ("blogs", "longform"):
        files[stem] = write_jsonl(sample_rows(corpus_files[stem], n=40, every=3), tmp_path / f"{stem}.jsonl")
    code, _, err = run(["data", "split", *map(str, files.values()), "--out", str(tmp_path / "o"),
                        "--scheme", "logo", "--format", "jsonl"], capsys)
    assert code == 0, err
    for genre in ("blog", "longform"):
        test = _rows(tmp_path / "o" / genre / "test.jsonl")
        assert {r["genre"] for r in test} == {genre}


def test_logo_genre_names_cannot_escape_the_output_folder(corpus_files, tmp_path, capsys):
    rows = sample_rows(corpus_files["debates"], n=40)
    for i, r in enumerate(rows):
        r["genre"] = "../escaped" if i < 20 else "debate"
        r["subgenre"] = r["genre"]  # with both columns (as split files have) `genre` is read as the genre
    src = write_jsonl(rows, tmp_path / "in.jsonl")
    out = tmp_path / "deep" / "o"
    code, _, err = run(["data", "split", str(src), "--out", str(out), "--scheme", "logo", "--format", "jsonl"], capsys)
    assert code == 0, err
    assert not (tmp_path / "deep" / "escaped").exists()
    assert (out / "_escaped" / "test.jsonl").exists() and (out / "debate" / "test.jsonl").exists()


def test_audit_prints_tables_and_problems(corpus_files, tmp_path, capsys):
    rows = sample_rows(corpus_files["debates"], n=30)
    rows.append(dict(rows[0], id="planted", text="As an AI language model, I must say " + rows[1]["text"]))
    rows.append(dict(rows[0], id="new", model="mystery-model-9"))
    src = write_jsonl(rows, tmp_path / "debates.jsonl")
    code, out, err = run(["data", "audit", str(src), "--json", str(tmp_path / "r.json"),
                          "--clean-out", str(tmp_path / "clean.jsonl")], capsys)
    assert code == 0, err
    assert "Texts per genre and provider" in out and "debate" in out
    assert "self_identification" in out and "planted" in out
    assert "mystery-model-9" in out and "unknown_model" in out
    assert "exact_duplicate" in out  # "new" repeats row 0's text
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["problem_counts"]["self_identification"] == 1
    clean = _rows(tmp_path / "clean.jsonl")
    assert len(clean) == len(rows) - 2 and "planted" not in {r["id"] for r in clean}


def test_audit_json_to_stdout_keeps_stdout_machine_readable(corpus_files, tmp_path, capsys):
    src = write_jsonl(sample_rows(corpus_files["debates"], n=30), tmp_path / "debates.jsonl")
    code, out, err = run(["data", "audit", str(src), "--json", "-"], capsys)
    assert code == 0, err
    assert json.loads(out)["n_rows"] == 30 and not (tmp_path / "-").exists()
    assert "Texts per genre and provider" in err  # the tables go to stderr


def test_progress_only_on_a_terminal_and_a_summary_line(corpus_files, tmp_path, capsys, monkeypatch):
    src = write_jsonl(sample_rows(corpus_files["fiction"], n=120, every=9), tmp_path / "fiction.jsonl")
    code, out, err = run(["data", "split", str(src), "--out", str(tmp_path / "o"), "--format", "jsonl"], capsys)
    assert code == 0, err
    assert err == ""  # piped: no progress display at all
    last = out.strip().splitlines()[-1]
    assert last.startswith("wrote train.jsonl, val.jsonl, val_ood.jsonl to ") and " s (" in last
    code, out, err = run(["data", "audit", str(src), "--no-near-duplicates"], capsys)
    assert code == 0 and err.startswith("audit: 120 texts, ") and err.count("\n") == 1

    import io

    class Tty(io.StringIO):
        def isatty(self):
            return True

    from whowrote.study.progress import Steps

    fake = Tty()
    monkeypatch.setattr(sys, "stderr", fake)
    with Steps() as steps, steps.step("reading corpus", total=3) as advance:
        advance(3)
    assert "reading corpus" in fake.getvalue() and "3/3" in fake.getvalue()


def test_providers_command(capsys):
    code, out, _ = run(["data", "providers", "o3", "gemma-2-9b", "zzz-model"], capsys)
    assert code == 0
    assert "o3\tCHATGPT" in out and "gemma-2-9b\tOTHER" in out and "unknown model" in out


def test_convert_roundtrip(corpus_files, tmp_path, capsys):
    src = write_jsonl(sample_rows(corpus_files["longform"], n=10), tmp_path / "longform.jsonl")
    for suffix in (".parquet", ".csv", ".jsonl"):
        out = tmp_path / f"table{suffix}"
        code, _, err = run(["data", "convert", str(src), "--out", str(out)], capsys)
        assert code == 0, err
        code, text, err = run(["data", "audit", str(out), "--no-near-duplicates"], capsys)
        assert code == 0 and "10 texts" in text, err


def test_split_without_datasets_api_and_cli_agree(corpus_files, tmp_path, capsys, monkeypatch):
    """Without `datasets`, the CLI and ``write_splits`` both write the JSONL contract, skip hf/ with
    a note naming the extra, and both refuse an explicit hf format with the same message."""
    from whowrote.data import build_splits, load_corpus, write_splits

    src = write_jsonl(sample_rows(corpus_files["fiction"], n=120, every=9), tmp_path / "fiction.jsonl")
    result = build_splits(load_corpus(src))
    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets -> ImportError
    code, _, err = run(["data", "split", str(src), "--out", str(tmp_path / "o")], capsys)
    assert code == 0, err
    assert "hf layout not written" in err and "pip install '.[data]' in the whowrote checkout" in err
    with pytest.warns(UserWarning, match=r"hf layout not written.*'\.\[data\]' in the whowrote checkout"):
        write_splits(result.splits, tmp_path / "api", result.info)
    for folder in (tmp_path / "o", tmp_path / "api"):
        assert (folder / "train.jsonl").exists() and (folder / "qa" / "train.jsonl").exists()
        assert not (folder / "hf").exists()
    assert (tmp_path / "o" / "train.jsonl").read_bytes() == (tmp_path / "api" / "train.jsonl").read_bytes()
    code, _, err = run(["data", "split", str(src), "--out", str(tmp_path / "p"), "--format", "hf"], capsys)
    assert code == 1 and "pip install '.[data]' in the whowrote checkout" in err and not (tmp_path / "p").exists()
    with pytest.raises(WhowroteError, match=r"pip install '\.\[data\]' in the whowrote checkout"):
        write_splits(result.splits, tmp_path / "q", result.info, formats=["hf"])
    assert not (tmp_path / "q").exists()


def test_task_type_follows_the_kept_labels(corpus_files, tmp_path, capsys):
    src = write_jsonl(sample_rows(corpus_files["fiction"], n=120, every=5), tmp_path / "fiction.jsonl")
    args = ["data", "split", str(src), "--format", "qa", "--no-ood"]
    for labels, want in ((None, "4way"), ("CLAUDE,CHATGPT,GEMINI", "3way")):
        out = tmp_path / want
        code, _, err = run([*args, "--out", str(out), *(["--labels", labels] if labels else [])], capsys)
        assert code == 0, err
        rows = [json.loads(line) for line in (out / "qa" / "train.jsonl").read_text().splitlines()]
        assert {r["info"]["task_type"] for r in rows} == {want}
        assert ("OTHER" in {r["answer"] for r in rows}) == (want == "4way")


def test_convert_to_parquet_with_mixed_metadata_types(corpus_files, tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rows = sample_rows(corpus_files["debates"], n=3)
    for row, meta in zip(rows, (1, "x", {"a": 1}), strict=True):
        row["meta"] = meta
    src = write_jsonl(rows, tmp_path / "debates.jsonl")
    code, _, err = run(["data", "convert", str(src), "--out", str(tmp_path / "c.parquet")], capsys)
    assert code == 0, err
    assert pd.read_parquet(tmp_path / "c.parquet")["meta"].tolist() == ["1", "x", '{"a": 1}']


def test_names_from_the_data_are_not_rich_markup(tmp_path, capsys):
    rows = [{"text": "hello there my friend", "model": "[/INST]", "category": "[bold]cat"},
            {"text": "another text over here", "model": "gpt-4o", "category": "[bold]cat"}]
    rows += [{"text": f"plain text number {i} by {m}", "model": m, "category": "plain", "topic": f"t{i}"}
             for i in range(4) for m in ("[/INST]", "gpt-4o")]  # train and val must not be empty
    src = write_jsonl(rows, tmp_path / "markup.jsonl")
    code, out, err = run(["data", "audit", str(src)], capsys)
    assert code == 0, err
    assert "[/INST]" in out and "[bold]cat" in out
    code, out, err = run(["data", "split", str(src), "--out", str(tmp_path / "o"), "--format", "jsonl",
                          "--ood-category", "[bold]cat"], capsys)
    assert code == 0, err
    assert "val_ood holds out: [bold]cat" in out
