"""Values that used to give silent garbage or a traceback: non-string text (JSONL numbers and
lists, Parquet lists and bytes), broken CSV quoting, unknown provider labels, and corpora that
cannot give a held-out split."""

from __future__ import annotations

import csv

import pandas as pd
import pytest

from whowrote.data import load_corpus

from .helpers import sample_rows, write_jsonl
from .test_bad_input import _fails
from .test_cli import run


@pytest.mark.parametrize("value, kind", [(42, "int"), (["para one", "para two"], "list"), ({"t": "x"}, "dict"),
                                         (True, "bool")])
def test_non_string_jsonl_text_is_an_error(corpus_files, tmp_path, capsys, value, kind):
    rows = sample_rows(corpus_files["debates"], n=8)
    rows[3]["text"] = value
    src = write_jsonl(rows, tmp_path / "debates.jsonl")
    _fails(["data", "audit", str(src)], capsys, f"1 non-string value(s) (first in data row 4: {kind})")
    _fails(["data", "split", str(src), "--out", str(tmp_path / "o")], capsys, "texts must be strings", tmp_path / "o")


@pytest.mark.parametrize("shape", ["list", "bytes"])
def test_parquet_with_list_or_bytes_text_is_a_one_line_error(corpus_files, tmp_path, capsys, shape):
    rows = sample_rows(corpus_files["longform"], n=6)
    for r in rows:
        r["text"] = r["text"].split("\n\n") if shape == "list" else r["text"].encode("utf-8")
    path = tmp_path / "longform.parquet"
    pd.DataFrame(rows).to_parquet(path)
    _fails(["data", "audit", str(path)], capsys, f"6 non-string value(s) (first in data row 1: {shape})")


def _csv(rows: list[dict], path):
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["id", "text", "model"])
        w.writeheader()
        for r in rows:
            w.writerow({"id": r["id"], "text": r["content"], "model": r["model"]})
    return path


def test_unterminated_csv_quote_names_the_line_instead_of_swallowing_rows(corpus_files, tmp_path, capsys):
    rows = sample_rows(corpus_files["blogs"], n=6)  # real multi-paragraph texts: quoted, newlines inside
    for r in rows:  # without commas in the texts pandas does not even notice (below)
        r["content"] = r["content"].replace(",", ";")
    good = _csv(rows, tmp_path / "good.csv")
    assert len(load_corpus(good)) == 6  # legitimate quoted newlines read as they are
    raw = good.read_text(encoding="utf-8")
    start = raw.index(rows[2]["id"])  # drop the closing quote of row 3's text
    close = raw.index('",', start)
    bad = tmp_path / "bad.csv"
    bad.write_text(raw[:close] + raw[close + 1:], encoding="utf-8")
    line = raw[:start].count("\n") + 1
    # pandas alone reads this without an error, as rows made of text fragments
    assert len(pd.read_csv(bad)) != 6
    _fails(["data", "audit", str(bad)], capsys, f"bad.csv:{line}: broken CSV quoting")


def test_unknown_provider_labels_are_reported_with_counts(corpus_files, tmp_path, capsys):
    rows = sample_rows(corpus_files["debates"], n=12)
    for i, r in enumerate(rows):
        del r["model"]
        if i < 3:
            r["provider"] = "MISTRAL"
        elif i < 4:
            r["provider"] = "llama"
    corpus = load_corpus(write_jsonl(rows, tmp_path / "debates.jsonl"))
    assert (corpus["provider"] == "OTHER").sum() >= 4
    note = next(n for n in corpus.attrs["load_notes"] if "warning" in n)
    assert "4 rows" in note and "'MISTRAL' (3)" in note and "'LLAMA' (1)" in note
    code, out, err = run(["data", "audit", str(tmp_path / "debates.jsonl"), "--no-near-duplicates"], capsys)
    assert code == 0 and "'MISTRAL' (3)" in out


def test_single_topic_corpus_fails_instead_of_an_empty_val(corpus_files, tmp_path, capsys):
    rows = sample_rows(corpus_files["debates"], n=40)
    for r in rows:
        r["topic"] = "one-proposition"
    src = write_jsonl(rows, tmp_path / "debates.jsonl")
    _fails(["data", "split", str(src), "--out", str(tmp_path / "o")], capsys,
           "split(s) val are empty: holding out topics needs at least two topics per genre (topics per genre: "
           "debate 1)", tmp_path / "o")
    _fails(["data", "split", str(src), "--out", str(tmp_path / "o"), "--scheme", "logo"], capsys,
           "leave-one-genre-out needs at least two genres", tmp_path / "o")
