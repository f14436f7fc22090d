"""Word 97-2003 documents (.doc) read as the Markdown their formatting shows (whowrote.style.doc_reader,
doc_binary): Markdown written as a .doc reads back as the same text written as a .docx does; the
structures Word keeps apart from the text (field codes, hidden and deleted runs, symbols, nested
tables, 8-bit pieces, many property pages) read right; older, encrypted, broken and hostile files
are one line, quickly; `whowrote predict` and the page's /v1/read-document on a .doc.

The documents are written by whowrote.style.doc_writer (Word does not run here); the reader was also
run on 158 public .doc test files Word and other programs wrote (docs/predict.md, "Old Word
documents (.doc)")."""

from __future__ import annotations

import json
import random
import struct
import time
from pathlib import Path

import olefile
import pytest
from typer.testing import CliRunner

from whowrote.cli import app
from whowrote.style import doc_binary as binary
from whowrote.style.doc_writer import DocText, assemble, markdown_doc, sprm
from whowrote.style.documents import document_to_markdown
from whowrote.style.msg_writer import compound_file
from whowrote.style.office_xml import DocumentError

pytest.importorskip("docx")  # (the writer lays out python-docx's document)
runner = CliRunner()

MD = """# A heading

Some **bold**, *italic* and `code` with [a link](https://example.org/x).

- one
- two
  1. nested
  2. again

> a quote

```
x = 1
y = 2
```

| a | b |
| --- | --- |
| 1 | 2 |

Six drops 🩸🩸🩸🩸🩸🩸 and then

## Go

The end."""


def test_markdown_written_as_a_doc_reads_back_as_its_docx_does():
    from whowrote.style.docx_writer import markdown_docx

    text, warning = document_to_markdown(markdown_doc(MD))
    assert text == document_to_markdown(markdown_docx(MD))[0]
    assert text == MD  # (every mark survives; the emoji's two UTF-16 units keep the next paragraph's style in place)
    assert warning.startswith("a Word 97-2003 document (.doc): its text was attributed, with its headings, lists")


def test_the_fixture_is_what_this_test_writes():
    """tests/fixtures/documents/written-word97.doc (the page's browser test opens it) is MD written
    by this module's writer, byte for byte."""
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "documents" / "written-word97.doc"
    assert fixture.read_bytes() == markdown_doc(MD)


def _read(text: DocText, compressed: bool = False) -> str:
    return document_to_markdown(assemble(text, compressed))[0]


def test_fields_hidden_and_deleted_runs_and_symbols():
    doc = DocText()
    doc.add("Page \x13 PAGE \\* MERGEFORMAT \x14")
    doc.add("\x13 SEQ \x143\x15")  # a field in a field's result
    doc.add("\x15 of the report; see ")
    doc.add('\x13 HYPERLINK "https://example.org/a b" \x14the site\x15')
    doc.add(" now.")
    doc.add(" (hidden note)", sprm(binary.C_HIDDEN, 1, 1))
    doc.add(" (struck out)", sprm(binary.C_DELETED, 1, 1))
    doc.end_paragraph()
    doc.add("Dose: 15 ")
    doc.add("(", sprm(binary.C_SYMBOL, 0xF06D << 16, 4))  # Symbol's "m": mu
    doc.add("g, picture\x01 and\ttab.")
    doc.add("(", sprm(binary.C_SYMBOL, 0xD800 << 16, 4))  # (a surrogate code is no character: dropped)
    doc.end_paragraph()
    assert _read(doc) == "Page 3 of the report; see [the site](https://example.org/a b) now.\n\nDose: 15 μg, picture and tab."


def test_an_8_bit_piece_and_a_table_inside_a_cell():
    doc = DocText()
    doc.add("Café – naïve “quotes”")
    doc.end_paragraph(1)
    outer = sprm(binary.P_IN_TABLE, 1, 1) + sprm(binary.P_ITAP, 1, 4)
    inner = sprm(binary.P_IN_TABLE, 1, 1) + sprm(binary.P_ITAP, 2, 4)
    doc.add("left")
    doc.end_paragraph(0, outer, "\x07")
    doc.add("in 1")
    doc.end_paragraph(0, inner, "\x07")
    doc.add("in 2")
    doc.end_paragraph(0, inner, "\x07")
    doc.end_paragraph(0, inner + sprm(0x244C, 1, 1), "\x07")  # the inner row's end
    doc.end_paragraph(0, outer, "\x07")  # the cell holding the inner table ends
    doc.end_paragraph(0, outer + sprm(binary.P_TTP, 1, 1), "\x07")
    doc.add("After.")
    doc.end_paragraph()
    expected = "# Café – naïve “quotes”\n\n| left | in 1 in 2 |\n| --- | --- |\n\nAfter."
    assert _read(doc, compressed=True) == expected
    assert _read(doc) == expected
    broken = DocText()  # a row whose end mark is missing (a broken file): its cells are kept, not lost
    for cell in ("one", "two"):
        broken.add(cell)
        broken.end_paragraph(0, outer, "\x07")
    broken.add("Then text.")
    broken.end_paragraph()
    assert _read(broken) == "| one | two |\n| --- | --- |\n\nThen text."


def test_properties_over_many_pages():
    """400 paragraphs, every other one bold and a list item: the runs fill several FKP pages."""
    doc = DocText()
    for i in range(400):
        doc.add(f"Paragraph {i}.", sprm(binary.C_BOLD, 1, 1) if i % 2 else b"")
        doc.end_paragraph(0, sprm(binary.P_ILFO, 1, 2) if i % 2 else b"")
    raw = assemble(doc)
    with olefile.OleFileIO(raw) as ole:
        word, table = ole.openstream("WordDocument").read(), ole.openstream("1Table").read()
    fib = binary.fib(word)
    assert len({fc // binary.PAGE for fc in binary.fkp_runs(word, table, fib, paragraphs=True).starts}) > 1
    paragraphs = document_to_markdown(raw)[0].split("\n\n")
    assert len(paragraphs) == 400 and paragraphs[0] == "Paragraph 0." and paragraphs[1] == "- **Paragraph 1.**"
    assert paragraphs[399] == "- **Paragraph 399.**"


def _streams(raw: bytes) -> dict[str, bytes]:
    with olefile.OleFileIO(raw) as ole:
        return {name: ole.openstream(name).read() for name in ("WordDocument", "1Table")}


def test_older_encrypted_and_broken_documents_are_one_line():
    streams = _streams(markdown_doc("Some text."))
    word = streams["WordDocument"]
    cases = {
        compound_file({**streams, "WordDocument": b"\xdc\xa5\x65\x00" + word[4:]}): "a Word 95 or older document (.doc); open it in Word",
        compound_file({**streams, "WordDocument": word[:10] + struct.pack("<H", 0x1300) + word[12:]}): "a password-protected Word document",
        compound_file({**streams, "WordDocument": word[:40]}): "a Word 97-2003 document (.doc) whose header is cut short",
        compound_file({"WordDocument": word}): "a Word 97-2003 document (.doc) without its 1Table stream",
        compound_file({**streams, "1Table": b"\x00" * 4096}): "a Word 97-2003 document (.doc) that cannot be read",
    }
    for raw, reason in cases.items():
        with pytest.raises(DocumentError) as e:
            document_to_markdown(raw)
        assert str(e.value).startswith(reason), (str(e.value), reason)
        assert "\n" not in str(e.value)
    deep = DocText()
    deep.add("\x13" * 40 + "x")
    deep.end_paragraph()
    with pytest.raises(DocumentError, match="fields nest more than 32 deep"):
        document_to_markdown(assemble(deep))


def test_hostile_documents_stay_bounded():
    """A piece table claiming a billion characters reads no more than the stream holds; 300 random
    corruptions of a document each give a text or one line, never another exception."""
    streams = _streams(markdown_doc(MD))
    word, table = streams["WordDocument"], bytearray(streams["1Table"])
    fib = binary.fib(word)
    clx = fib.pairs[binary.CLX][0]
    struct.pack_into("<I", table, clx + 5 + 4, 1 << 30)  # the one piece's end
    claimed = bytearray(word)
    struct.pack_into("<i", claimed, 32 + 2 + 28 + 2 + 12, 1 << 30)  # ccpText
    t0 = time.perf_counter()
    text = document_to_markdown(compound_file({"WordDocument": bytes(claimed), "1Table": bytes(table)}))[0]
    assert len(text) < 2 * len(word) and time.perf_counter() - t0 < 5
    long_code = DocText()  # a field code of 20,000 runs: capped, not copied over and over
    long_code.add("x\x13")
    for i in range(20_000):
        long_code.add("code " * 10, sprm(binary.C_BOLD, i % 2, 1))
    long_code.add("\x14shown\x15")
    long_code.end_paragraph()
    t0 = time.perf_counter()
    assert document_to_markdown(assemble(long_code))[0] == "xshown" and time.perf_counter() - t0 < 5
    loop = bytearray(streams["1Table"])  # a fast-save block whose size is negative as a signed number
    loop[clx:clx + 3] = b"\x01" + struct.pack("<h", -3)
    t0 = time.perf_counter()
    with pytest.raises(DocumentError, match="without a piece table"):
        document_to_markdown(compound_file({"WordDocument": word, "1Table": bytes(loop)}))
    assert time.perf_counter() - t0 < 5
    rng = random.Random(0)
    raw = bytearray(markdown_doc(MD))
    t0 = time.perf_counter()
    for _ in range(300):
        broken = bytearray(raw)
        for _ in range(rng.randint(1, 20)):
            broken[rng.randrange(len(broken))] = rng.randrange(256)
        try:
            assert isinstance(document_to_markdown(bytes(broken))[0], str)
        except DocumentError as e:
            assert "\n" not in str(e)
    assert time.perf_counter() - t0 < 60


def test_predict_reads_a_doc_file_a_folder_and_stdin_and_the_page_reads_one(tmp_path):
    raw = markdown_doc(MD)
    (tmp_path / "notes.doc").write_bytes(raw)
    (tmp_path / "notes.md").write_text(MD)
    (tmp_path / "old.doc").write_bytes(b"\xdb\xa5\x2d\x00" + b"\x00" * 200)  # Word 2.0's first bytes
    result = runner.invoke(app, ["predict", str(tmp_path), "--jsonl"])
    rows = [json.loads(x) for x in result.stdout.splitlines()]
    assert [Path(r["path"]).name for r in rows] == ["notes.doc", "notes.md", "old.doc"]
    assert rows[0]["probabilities"] == rows[1]["probabilities"]
    assert rows[0]["warnings"][0].startswith("a Word 97-2003 document (.doc)")
    assert rows[2]["error"].startswith("a Word 2.0 document (.doc)")
    assert result.exit_code == 3
    via_stdin = runner.invoke(app, ["predict", "-", "--jsonl"], input=raw)
    assert json.loads(via_stdin.stdout)["probabilities"] == rows[1]["probabilities"]
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from whowrote.serve.app import create_app

    r = TestClient(create_app()).post("/v1/read-document", content=raw, headers={"Content-Type": "application/msword"})
    assert r.status_code == 200 and r.json()["text"] == MD

