"""``whowrote predict`` on JSONL/CSV/TSV/JSON tables with nothing to attribute: one clear line naming
the file and what was wrong (no rows, text column missing, text column empty), exit 1, no traceback."""

from __future__ import annotations

import json

import pytest

from whowrote.cli import main

NOTE = ("This is a short note written for the test. It has a few sentences, no more than that, "
        "and it says nothing in particular about anything at all.")


def _run(argv, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    return e.value.code, capsys.readouterr()


def _one_line_error(argv, capsys, expected: str):
    code, cap = _run(argv, capsys)
    assert code == 1, cap
    assert cap.err == f"whowrote: error: {expected}\n", cap.err
    assert cap.out == "" and "Traceback" not in cap.err and "no input texts found" not in cap.err


@pytest.mark.parametrize("name, content", [
    ("rows.jsonl", ""),
    ("rows.jsonl", "\n\n  \n"),  # blank lines only
    ("rows.csv", "id,body\n"),  # a header, no rows
    ("rows.csv", ""),
    ("rows.tsv", "id\tbody\n"),
    ("rows.json", "[]"),
])
def test_table_without_rows(tmp_path, capsys, name, content):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    _one_line_error(["predict", str(path), "--column", "body"], capsys, f"{path}: no rows (the table is empty)")


@pytest.mark.parametrize("name, content", [
    ("rows.jsonl", '{"id": 1, "body": ""}\n{"id": 2, "body": "   "}\n{"id": 3, "body": null}\n'),
    ("rows.csv", 'id,body\n1,\n2,""\n3,"  "\n'),
    ("rows.json", '[{"body": ""}, {"body": " "}, {"body": null}]'),
])
def test_text_column_empty_in_every_row(tmp_path, capsys, name, content):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    _one_line_error(["predict", str(path), "--column", "body"], capsys,
                    f"{path}: column 'body' is empty in all 3 rows")
    # auto-detected ("body" is a known text column): the same, with a hint
    _one_line_error(["predict", str(path), "--jsonl"], capsys,
                    f"{path}: the text column is empty in all 3 rows; use --column to name another")


def test_text_column_missing_or_mixed(tmp_path, capsys):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"id": 1, "story": "x"}\n{"id": 2, "story": "y"}\n', encoding="utf-8")
    _one_line_error(["predict", str(path), "--column", "body"], capsys,
                    f"{path}: no text column ('body') in all 2 rows; use --column")
    path.write_text('{"id": 1, "story": "x"}\n', encoding="utf-8")
    _one_line_error(["predict", str(path), "--json"], capsys,
                    f"{path}: no text column (one of text, content, question, body, blog, completion, response, output, "
                    "or a conversation's turns: messages, conversations, conversation, contents, chat_messages, mapping, "
                    "safeHtmlItem) "
                    "in its only row; use --column")
    path.write_text('{"id": 1, "story": "x"}\n{"id": 2, "body": ""}\n', encoding="utf-8")
    _one_line_error(["predict", str(path), "--column", "body"], capsys,
                    f"{path}: no text in all 2 rows: the text column ('body') is missing in 1, empty in 1")


def test_several_empty_tables_are_named_in_one_line(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.csv"
    a.write_text("", encoding="utf-8")
    b.write_text("body\n\n", encoding="utf-8")
    _one_line_error(["predict", str(a), str(b), "--column", "body"], capsys,
                    f"{a}: no rows (the table is empty); {b}: no rows (the table is empty)")


def test_an_empty_table_among_real_inputs_is_one_error_result(tmp_path, capsys):
    note, empty, good = tmp_path / "note.md", tmp_path / "empty.jsonl", tmp_path / "good.jsonl"
    note.write_text(NOTE, encoding="utf-8")
    empty.write_text('{"body": ""}\n', encoding="utf-8")
    good.write_text(json.dumps({"id": "g", "body": NOTE}) + "\n", encoding="utf-8")
    code, cap = _run(["predict", str(note), str(empty), str(good), "--column", "body", "--jsonl"], capsys)
    assert code == 3  # partial: the empty table is reported, the others attributed
    recs = [json.loads(line) for line in cap.out.splitlines()]
    assert [r["path"] for r in recs] == [str(note), str(empty), f"{good}:1"]
    assert recs[1]["error"] == "column 'body' is empty in its only row" and recs[1]["uncertain"]
    assert "error" not in recs[0] and "error" not in recs[2]


def test_rows_with_some_text_are_attributed_as_before(tmp_path, capsys):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"body": ""}) + "\n" + json.dumps({"body": NOTE}) + "\n", encoding="utf-8")
    code, cap = _run(["predict", str(path), "--column", "body", "--jsonl"], capsys)
    recs = [json.loads(line) for line in cap.out.splitlines()]
    assert code == 0 and [r["path"] for r in recs] == [f"{path}:1", f"{path}:2"]
    assert any("empty" in w for w in recs[0]["warnings"])
