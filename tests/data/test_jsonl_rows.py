"""The one JSONL row reader (``whowrote.data.readers.iter_json_rows``): corpus loading, task
examples and training splits read JSONL(.gz) through it and fail with the same one-line errors."""

from __future__ import annotations

import gzip

import pytest

from whowrote.data import load_corpus
from whowrote.data.readers import iter_json_rows
from whowrote.task.examples import load_examples
from whowrote.train.data import read_rows
from whowrote.types import WhowroteError

GOOD = '{"id": "a", "text": "A short made-up note.", "provider": "CLAUDE", "model": "claude-x"}\n'


def _write(path, text: str):
    if path.suffix == ".gz":
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


READERS = {
    "corpus": lambda p: load_corpus(p),
    "examples": lambda p: load_examples(p),
    "train rows": lambda p: read_rows(p),
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("name", ["rows.jsonl", "rows.jsonl.gz"])
@pytest.mark.parametrize("bad, match", [
    ("{oops\n", r"rows\.jsonl(\.gz)?:3: invalid JSON \(Expecting property name"),
    ("[1, 2]\n", r"rows\.jsonl(\.gz)?:3: each line must be a JSON object, got list$"),
    ("[" * 100_000 + "\n", r"rows\.jsonl(\.gz)?:3: invalid JSON"),
])
def test_every_reader_gives_the_same_one_line_error(tmp_path, reader, name, bad, match):
    path = _write(tmp_path / name, GOOD + "\n" + bad)  # line 2 is blank: numbers count it
    with pytest.raises(WhowroteError, match=match) as e:
        READERS[reader](path)
    assert "\n" not in str(e.value)


def test_gzip_bom_and_surrogates(tmp_path):
    text = "\ufeff" + GOOD + '{"id": "b", "text": "cut emoji \\ud83d here", "provider": "GEMINI"}\n'
    for name in ("r.jsonl", "r.jsonl.gz"):
        rows = list(iter_json_rows(_write(tmp_path / name, text)))
        assert [n for n, _ in rows] == [1, 2]
        assert rows[0][1]["id"] == "a" and rows[1][1]["text"] == "cut emoji \ufffd here"
        assert [r["id"] for r in read_rows(tmp_path / name)] == ["a", "b"]


def test_damaged_gzip_and_bad_bytes_are_one_line_errors(tmp_path):
    whole = gzip.compress((GOOD * 200).encode())
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(WhowroteError, match=r"cut\.jsonl\.gz: cannot read"):
        read_rows(cut)
    notgz = tmp_path / "plain.jsonl.gz"
    notgz.write_text(GOOD)
    with pytest.raises(WhowroteError, match=r"plain\.jsonl\.gz: cannot read"):
        list(iter_json_rows(notgz))
    latin = tmp_path / "latin.jsonl.gz"
    latin.write_bytes(gzip.compress(b'{"text": "caf\xe9"}\n'))
    with pytest.raises(WhowroteError, match=r"latin\.jsonl\.gz: not valid UTF-8"):
        load_examples(latin)


def test_lines_end_at_newline_only_not_at_a_raw_cr(tmp_path):
    # JSON allows a raw CR as whitespace between tokens; universal newlines would cut the row in two.
    text = '{"id": "a",\r"text": "one",\r"provider": "CLAUDE"}\r\n' + GOOD.replace('"a"', '"b"')
    for name in ("cr.jsonl", "cr.jsonl.gz"):
        rows = list(iter_json_rows(_write(tmp_path / name, text)))
        assert [(n, r["id"]) for n, r in rows] == [(1, "a"), (2, "b")]


def test_split_output_with_unicode_line_separators_reads_back_row_for_row(corpus_files, tmp_path, capsys):
    """``data split`` writes U+2028 / U+0085 / U+000B raw (valid JSON); every reader of its output
    must count the same rows (``str.splitlines`` would break each such row in two)."""
    from whowrote.cli import main

    from .helpers import sample_rows, write_jsonl

    rows = sample_rows(corpus_files["fiction"], n=200, every=7)
    seps = ("\u2028", "\u0085", "\x0b", "\u2029", "\x1c", "\r")
    for i, row in enumerate(rows):  # real texts with separators inside a paragraph and in metadata
        cut = len(row["text"]) // 2
        row["text"] = row["text"][:cut] + seps[i % len(seps)] + row["text"][cut:]
        row["note"] = f"x{seps[i % len(seps)]}y"
    src = write_jsonl(rows, tmp_path / "fiction.jsonl")
    try:
        main(["data", "split", str(src), "--out", str(tmp_path / "o"), "--scheme", "binary", "--format", "jsonl,qa"])
    except SystemExit as e:
        assert e.code in (0, None), capsys.readouterr().err
    written = 0
    for path in sorted((tmp_path / "o").rglob("*.jsonl")):
        raw = path.read_text(encoding="utf-8")
        n_rows = raw.count("\n")
        assert len(raw.splitlines()) > n_rows  # the separators really are raw in the file
        assert [n for n, _ in iter_json_rows(path)] == list(range(1, n_rows + 1))
        assert len(read_rows(path)) == n_rows
        if path.parent.name != "qa":
            back = load_corpus(path)
            assert len(back) == n_rows
            assert back["text"].str.contains("|".join(seps[:3])).any()
        written += n_rows
    assert written > 50
