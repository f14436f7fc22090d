"""Every reader on real rows of ../shared/corpus, converted to each format inside the test."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from whowrote.data import load_corpus
from whowrote.data.readers import read_source
from whowrote.types import CORPUS_COLUMNS

from .helpers import sample_rows, write_jsonl


@pytest.fixture(scope="module")
def fiction_rows(corpus_files):
    return sample_rows(corpus_files["fiction"], n=12, every=37)


def _check(table: pd.DataFrame, rows: list[dict]) -> None:
    assert list(table.columns[: len(CORPUS_COLUMNS)]) == list(CORPUS_COLUMNS)
    assert len(table) == len(rows)
    assert table["text"].tolist() == [r.get("text", r.get("content")) for r in rows]
    assert table["model"].tolist() == [r["model"] for r in rows]
    if "provider" in rows[0]:
        assert table["provider"].tolist() == [r["provider"] for r in rows]


def test_jsonl_real_rows_all_four_files(corpus_files, tmp_path):
    for stem, path in corpus_files.items():
        rows = sample_rows(path, n=8, every=23)
        table = load_corpus(write_jsonl(rows, tmp_path / f"{stem}.jsonl"))
        _check(table, rows)
        assert table["topic"].tolist() == [str(r["topic"]) for r in rows]
        assert set(table["genre"]) == {{"blogs": "blog", "debates": "debate"}.get(stem, stem)}


def test_blogs_content_column_and_provider_from_model(corpus_files, tmp_path):
    rows = sample_rows(corpus_files["blogs"], n=10)
    table = load_corpus(write_jsonl(rows, tmp_path / "blogs.jsonl"))
    assert table["text"].tolist() == [r["content"] for r in rows]
    expect = {"claude-opus-4.8": "CLAUDE", "gpt-5.5": "CHATGPT"}
    assert table["provider"].tolist() == [expect[r["model"]] for r in rows]
    assert table["category"].tolist() == [r["category"] for r in rows]


def test_fiction_subgenre_becomes_category(fiction_rows, tmp_path):
    table = load_corpus(write_jsonl(fiction_rows, tmp_path / "fiction.jsonl"))
    assert table["category"].tolist() == [r["genre"] for r in fiction_rows]
    assert table["subgenre"].tolist() == [r["genre"] for r in fiction_rows]
    assert set(table["genre"]) == {"fiction"}


def test_json_list(fiction_rows, tmp_path):
    path = tmp_path / "fiction.json"
    path.write_text(json.dumps(fiction_rows, ensure_ascii=False), encoding="utf-8")
    _check(load_corpus(path), fiction_rows)


def test_csv_and_tsv(fiction_rows, tmp_path):
    frame = pd.DataFrame(fiction_rows)
    frame.to_csv(tmp_path / "fiction.csv", index=False)
    frame.to_csv(tmp_path / "fiction.tsv", index=False, sep="\t")
    _check(load_corpus(tmp_path / "fiction.csv"), fiction_rows)
    _check(load_corpus(tmp_path / "fiction.tsv"), fiction_rows)


def test_parquet(fiction_rows, tmp_path):
    pd.DataFrame(fiction_rows).to_parquet(tmp_path / "fiction.parquet")
    _check(load_corpus(tmp_path / "fiction.parquet"), fiction_rows)


def test_hf_save_to_disk_dataset_and_dict(corpus_files, tmp_path):
    datasets = pytest.importorskip("datasets")
    rows = sample_rows(corpus_files["debates"], n=9, every=50)
    datasets.Dataset.from_list(rows).save_to_disk(str(tmp_path / "ds"))
    _check(load_corpus(tmp_path / "ds"), rows)
    dd = datasets.DatasetDict({"train": datasets.Dataset.from_list(rows[:5]),
                               "test": datasets.Dataset.from_list(rows[5:])})
    dd.save_to_disk(str(tmp_path / "dd"))
    table = load_corpus(tmp_path / "dd")
    assert sorted(table["id"]) == sorted(r["id"] for r in rows)
    assert set(table["split"]) == {"train", "test"}


def test_hf_question_answer_info_layout(corpus_files, tmp_path):
    """The research row schema: question / answer / info{category, topic, source_model}."""
    datasets = pytest.importorskip("datasets")
    rows = sample_rows(corpus_files["blogs"], n=6)
    qa = [{"question": r["content"], "answer": "CLAUDE" if "claude" in r["model"] else "CHATGPT",
           "info": {"category": r["category"], "topic": r["topic"], "source_model": r["model"]}} for r in rows]
    datasets.Dataset.from_list(qa).save_to_disk(str(tmp_path / "qa"))
    table = load_corpus(tmp_path / "qa")
    assert table["text"].tolist() == [r["content"] for r in rows]
    assert table["model"].tolist() == [r["model"] for r in rows]
    assert table["topic"].tolist() == [r["topic"] for r in rows]
    assert table["provider"].tolist() == [q["answer"] for q in qa]


def test_markdown_tree_research_layout(corpus_files, tmp_path):
    """<root>/<category>/<topic>/<model>__<length>.md with `model:` frontmatter (stripped)."""
    rows = sample_rows(corpus_files["blogs"], n=6)
    root = tmp_path / "blogs_md"
    for r in rows:
        file = root / r["category"] / r["topic"] / f"{r['model']}__short.md"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(f"---\nmodel: {r['model']}\ntitle: \"{r['title']}\"\n---\n\n{r['content']}", encoding="utf-8")
    table = load_corpus(root)
    by_id = table.set_index("id")
    for r in rows:
        row = by_id.loc[f"{r['category']}/{r['topic']}/{r['model']}__short"]
        assert row["text"] == r["content"].lstrip("\n")
        assert not row["text"].startswith("---") and f"model: {r['model']}" not in row["text"][:200]
        assert (row["model"], row["category"], row["topic"], row["length"]) == (
            r["model"], r["category"], r["topic"], "short")
        assert row["provider"] == ("CLAUDE" if r["model"].startswith("claude") else "CHATGPT")


def test_column_override_and_auto_detection(fiction_rows, tmp_path):
    renamed = [{"body": r["text"], "generator": r["model"], "prompt_id": r["topic"]} for r in fiction_rows]
    path = write_jsonl(renamed, tmp_path / "x.jsonl")
    table = load_corpus(path)  # body / generator / prompt_id are auto-detected
    assert table["text"].tolist() == [r["text"] for r in fiction_rows]
    assert table["topic"].tolist() == [r["topic"] for r in fiction_rows]
    other = [{"essay": r["text"], "who": r["model"]} for r in fiction_rows]
    table = load_corpus(write_jsonl(other, tmp_path / "y.jsonl"), columns={"text": "essay", "model": "who"})
    assert table["model"].tolist() == [r["model"] for r in fiction_rows]
    assert table["topic"].tolist() == table["id"].tolist()  # no topic: each text its own


def test_own_split_files_read_back(tmp_path, corpus_files):
    """Files written by the split writer keep their genre (not the file stem) on reading."""
    from whowrote.data.writers import write_jsonl as write_table

    table = load_corpus([corpus_files["longform"]]).head(5)
    write_table(table, tmp_path / "train.jsonl")
    back = load_corpus(tmp_path / "train.jsonl")
    assert set(back["genre"]) == {"longform"}
    assert back["category"].tolist() == table["category"].tolist()


def test_raw_reader_keeps_source_columns(corpus_files, tmp_path):
    rows = sample_rows(corpus_files["debates"], n=3)
    raw = read_source(write_jsonl(rows, tmp_path / "d.jsonl"))
    assert {"proposition", "side", "provider"} <= set(raw.columns)


def test_folder_of_table_files_reads_each_file(corpus_files, tmp_path):
    for stem in ("blogs", "debates"):
        write_jsonl(sample_rows(corpus_files[stem], n=4), tmp_path / f"{stem}.jsonl")
    (tmp_path / "README.md").write_text("# not a corpus row\n", encoding="utf-8")
    table = load_corpus(tmp_path)
    assert len(table) == 8 and set(table["genre"]) == {"blog", "debate"}


def test_missing_relative_file_is_not_taken_for_a_hub_id(tmp_path):
    from whowrote.types import WhowroteError

    with pytest.raises(WhowroteError, match="no such file"):
        load_corpus("data/blogs.jsonl")


def test_lone_surrogate_escape_becomes_replacement_char(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "a cut emoji \\ud83d here", "model": "gpt-4o"}\n', encoding="utf-8")
    corpus = load_corpus(path)
    assert corpus["text"][0] == "a cut emoji \ufffd here"
    corpus["text"][0].encode("utf-8")  # writable


def test_bom_and_indented_json_list(tmp_path):
    rows = [{"text": f"text number {i}", "model": "gpt-4o"} for i in range(3)]
    jsonl = tmp_path / "bom.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8-sig")
    listed = tmp_path / "list.json"
    listed.write_text("\ufeff\n  " + json.dumps(rows, indent=1), encoding="utf-8")
    for path in (jsonl, listed):
        assert load_corpus(path)["text"].tolist() == [r["text"] for r in rows]
