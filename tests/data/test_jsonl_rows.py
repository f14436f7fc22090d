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
