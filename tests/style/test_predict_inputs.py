"""The predict inputs (whowrote.cli.inputs): JSONL split on newlines only, non-string text, FIFOs, cuts inside a
UTF-8 character, Parquet, and tables streamed row by row."""

from __future__ import annotations

import io
import json
import os
import sys
import threading

import pytest

from whowrote.cli import inputs
from whowrote.cli.inputs import iter_items

TEXT = "A plain sentence about gardens and the weather in spring. " * 5


def test_jsonl_rows_with_unicode_line_separators_stay_one_row(tmp_path):
    # json.dumps(ensure_ascii=False) writes U+2028/U+0085 raw (valid JSON), as `data split` does.
    rows = [{"id": "a", "text": "one\u2028two\x85three\x1cfour\rfive"}, {"id": "b", "text": TEXT}]
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    items = list(iter_items([str(tmp_path / "t.jsonl")]))
    assert [(it.id, it.text, it.error) for it in items] == [("a", rows[0]["text"], None), ("b", TEXT, None)]
    assert [it.path for it in items] == [f"{tmp_path / 't.jsonl'}:1", f"{tmp_path / 't.jsonl'}:2"]


@pytest.mark.parametrize(("value", "kind"), [(42, "a number"), (1.5, "a number"), (["a", "b"], "a list"),
                                             ({"x": 1}, "an object"), (True, "a boolean")])
def test_non_string_text_is_a_clear_row_error(tmp_path, value, kind):
    (tmp_path / "t.jsonl").write_text(json.dumps({"text": value}) + "\n" + json.dumps({"text": TEXT}) + "\n")
    bad, good = iter_items([str(tmp_path / "t.jsonl")])
    assert bad.error == f"column 'text' holds {kind}, not text" and bad.text == ""
    assert good.error is None and good.text == TEXT


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_inside_a_folder_is_skipped_with_a_warning(tmp_path):
    (tmp_path / "a.md").write_text(TEXT)
    os.mkfifo(tmp_path / "pipe.md")
    warned: list[str] = []
    result: list = []
    t = threading.Thread(target=lambda: result.extend(iter_items([str(tmp_path)], warn=warned.append)), daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "reading the folder blocked on the FIFO"
    assert [it.path for it in result] == [str(tmp_path / "a.md")]
    assert warned == [f"skipped {tmp_path / 'pipe.md'}: not a regular file"]


def test_cut_inside_a_utf8_character_is_not_an_undecodable_byte(tmp_path, monkeypatch):
    monkeypatch.setattr(inputs, "MAX_BYTES", 101)
    data = ("é" * 200).encode()  # 2 bytes each: the cap falls inside a character
    (tmp_path / "a.md").write_bytes(data)
    (item,) = iter_items([str(tmp_path / "a.md")])
    assert item.text == "é" * 50 and not any("UTF-8" in w for w in item.warnings)
    assert any("only the first" in w for w in item.warnings)
    (item,) = iter_items(["-"], stdin=io.BytesIO("€".encode() * 100))  # 3 bytes each
    assert item.text == "€" * 33 and not any("UTF-8" in w for w in item.warnings)


def test_a_real_bad_byte_before_the_cut_is_still_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(inputs, "MAX_BYTES", 100)
    (tmp_path / "a.md").write_bytes("café ".encode() + b"caf\xe9 " + b"word " * 50)  # (UTF-8 with one bad byte)
    (item,) = iter_items([str(tmp_path / "a.md")])
    assert any("1 undecodable byte" in w for w in item.warnings) and item.text.startswith("café caf\ufffd word")
    (tmp_path / "a.md").write_bytes(b"caf\xe9 " + b"word " * 50)  # (no UTF-8 character at all: an 8-bit file)
    (item,) = iter_items([str(tmp_path / "a.md")])
    assert "not UTF-8: read as Windows-1252 (1 non-ASCII byte(s))" in item.warnings and item.text.startswith("café word")


def test_legacy_encodings_read_as_their_text(tmp_path):
    """A Windows-1252 file (curly quotes and dashes as single bytes) and UTF-16 without a
    byte-order mark (either order) read as the same text as its UTF-8; a file that mixes UTF-8
    characters with bad bytes stays UTF-8, its bad bytes replaced."""
    text = "It\u2019s \u201cdone\u201d \u2014 caf\u00e9, na\u00efve. " * 20
    for name, data in (("cp1252.md", text.encode("cp1252")), ("le.md", text.encode("utf-16-le")),
                       ("be.md", text.encode("utf-16-be"))):
        (tmp_path / name).write_bytes(data)
        (item,) = iter_items([str(tmp_path / name)])
        assert item.text == text and item.error is None, name
    (tmp_path / "mixed.md").write_bytes(text.encode() + b"\x93bad\x94")
    (item,) = iter_items([str(tmp_path / "mixed.md")])
    assert item.text == text + "\ufffdbad\ufffd" and item.warnings == ["not valid UTF-8: 2 undecodable byte(s) replaced"]
    (tmp_path / "nul.bin").write_bytes(bytes(range(256)) * 64)  # (NULs, but not every other byte: binary)
    (item,) = iter_items([str(tmp_path / "nul.bin")])
    assert item.error == "binary file, not text"


def test_parquet_is_read(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.table({"id": [1, 2, 3], "body": [TEXT, None, TEXT + " More."], "n": [1, 2, 3]})
    pq.write_table(table, tmp_path / "t.parquet")
    items = list(iter_items([str(tmp_path / "t.parquet")], column="body"))
    assert [(it.id, it.text) for it in items] == [("1", TEXT), ("2", ""), ("3", TEXT + " More.")]
    pq.write_table(pa.table({"text": [b"raw bytes", b"more"]}), tmp_path / "b.parquet")
    assert [it.error for it in iter_items([str(tmp_path / "b.parquet")])] == ["column 'text' holds bytes, not text"] * 2


def test_parquet_without_pyarrow_is_one_line(tmp_path, monkeypatch):
    (tmp_path / "t.parquet").write_bytes(b"PAR1 not really")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    (item,) = iter_items([str(tmp_path / "t.parquet")])
    assert item.error == "reading Parquet needs the data extra (pyarrow): pip install '.[data]' in the whowrote checkout"


def test_plain_inputs_do_not_import_pyarrow(tmp_path):
    import subprocess

    (tmp_path / "a.md").write_text(TEXT)
    code = ("import sys; from whowrote.cli.inputs import iter_items; "
            f"list(iter_items([{str(tmp_path / 'a.md')!r}])); print('pyarrow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_tables_are_streamed(tmp_path, monkeypatch):
    """Rows come out before the whole file is read: the reader never holds the table."""
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": TEXT}) + "\n" for i in range(5000)))
    reads = []
    real_open = open

    def counting_open(*args, **kwargs):
        f = real_open(*args, **kwargs)
        reads.append(f)
        return f

    monkeypatch.setattr("builtins.open", counting_open)
    it = iter_items([str(path)])
    first = next(it)
    assert first.id == "0" and reads and reads[-1].tell() < path.stat().st_size // 2


def test_arguments_naming_no_file_are_typed_items_not_strings(tmp_path):
    from whowrote.cli.inputs import Missing, expand

    assert list(expand([str(tmp_path / "nope.md"), str(tmp_path / "*.txt")])) == [
        Missing(str(tmp_path / "nope.md"), "no such file or folder"),
        Missing(str(tmp_path / "*.txt"), "no file matches this pattern")]
    (item,) = iter_items([str(tmp_path / "nope.md")])
    assert (item.path, item.error) == (str(tmp_path / "nope.md"), "no such file or folder")


def test_predict_and_the_corpus_loader_pick_the_same_text_column(tmp_path):
    """One set of column names: whichever candidate a table uses, both readers take the text from it."""
    pytest.importorskip("pandas")
    from whowrote.data import load_corpus
    from whowrote.formats import COLUMN_CANDIDATES

    for name in COLUMN_CANDIDATES["text"]:
        path = tmp_path / f"{name}.jsonl"
        path.write_text(json.dumps({"note": "not this", name: TEXT, "id": "r1", "model": "gpt-4o"}) + "\n")
        (item,) = iter_items([str(path)])
        assert item.text == TEXT, name
        assert load_corpus(path)["text"].tolist() == [TEXT], name


def test_gzipped_tables_are_read_like_the_corpus_loader_reads_them(tmp_path):
    import gzip

    with gzip.open(tmp_path / "t.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write(json.dumps({"id": "a", "text": TEXT}) + "\n" + json.dumps({"id": "b", "text": "two\u2028rows?"}) + "\n")
    items = list(iter_items([str(tmp_path / "t.jsonl.gz")]))
    assert [(it.id, it.text, it.error) for it in items] == [("a", TEXT, None), ("b", "two\u2028rows?", None)]
    (tmp_path / "cut.jsonl.gz").write_bytes(gzip.compress(b'{"text": "x"}\n' * 100)[:30])
    (item,) = iter_items([str(tmp_path / "cut.jsonl.gz")])
    assert item.error and item.error.startswith("cannot read")


def test_utf8_files_decode_as_the_utf8_sig_codec(corpus_files):
    """``decode`` drops one BOM and decodes UTF-8 as ``bytes.decode("utf-8-sig")`` does (on corpus
    texts with and without BOMs); bad bytes still take the replacing path with a warning."""
    from whowrote.cli.decoding import decode

    with open(corpus_files["fiction"], encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for _, line in zip(range(50), f, strict=False)]
    bom = b"\xef\xbb\xbf"
    for t in texts + ["", "\ufeff", "caf\u00e9", "\ud7ff x"]:
        raw = t.encode("utf-8")
        for data in (raw, bom + raw, bom + bom + raw):
            item = decode(data, "x")
            assert item.error is None and item.text == data.decode("utf-8-sig") and not item.warnings
    item = decode(bom + b"ab\xff cd", "x")
    assert item.text == (bom + b"ab\xff cd").decode("utf-8", "replace") and item.warnings


def test_a_saved_web_page_in_a_folder_is_attributed_by_its_visible_text(tmp_path, capsys):
    from whowrote.cli import main

    (tmp_path / "a.md").write_text(TEXT)
    (tmp_path / "b.html").write_text(f"<!DOCTYPE html><html><head><style>p {{color: red}}</style></head>"
                                     f"<body><p>{TEXT}</p><script>var x = 1;</script></body></html>")
    (tmp_path / "c.json").write_text("[]")  # a table in a folder is not an input
    with pytest.raises(SystemExit) as done:
        main(["predict", str(tmp_path), "--jsonl", "--no-progress"])
    assert done.value.code in (0, None)
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["path"] for r in rows] == [str(tmp_path / "a.md"), str(tmp_path / "b.html")]
    page = rows[1]
    assert any("looks like HTML" in w for w in page["warnings"]) and not page.get("error")
    # the page's words are the text's (none of its style sheet or script): the same words, the same verdict
    assert page["n_words"] == rows[0]["n_words"] == len(TEXT.split())
    assert page["provider"] == rows[0]["provider"]
