"""EPUB e-books read as the Markdown their chapters show (whowrote.style.epub_reader): pandoc's EPUB 3
and EPUB 2 (tests/fixtures/documents), a book in a converter's layout (class-styled emphasis in the
book's style sheet, a cover outside the reading order, chapters split across files), broken books,
and `whowrote predict` on a file, stdin and a folder."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from test_docx_reader import MD
from typer.testing import CliRunner

from whowrote.cli import app
from whowrote.style import epub_reader
from whowrote.style.documents import EPUB_WARNING, DocumentError, document_to_markdown
from whowrote.style.office_xml import open_zip

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "documents"
PANDOC = FIXTURES / "pandoc-3.9.epub"
TWO_CHAPTERS = FIXTURES / "pandoc-3.9-two-chapters.epub"

# MD as pandoc writes it into a book: its title page first, the soft break rewrapped (pandoc's own
# wrapping), the code's language from pandoc's "sourceCode python" classes and its line anchors dropped
PANDOC_MD = "# A book\n\n" + MD.replace(").\nA soft break.", "). A soft break.").replace("|---|---|", "| --- | --- |").strip()


def test_pandocs_epub3_and_epub2_read_back_as_the_markdown_they_show():
    for name in ("pandoc-3.9.epub", "pandoc-3.9-epub2.epub"):
        text, warning = document_to_markdown(FIXTURES / name)
        assert text == PANDOC_MD and warning == EPUB_WARNING, name


TWO_MD = """# The harbour

The boats came in at dusk, *one by one*, and the gulls followed them.
Nobody on the quay said much.

## Morning

- nets to mend
- a letter to answer

# The hill

A path climbs from the church to the **old signal station**, where the wind never stops.

> It was always colder up there than anyone expected.

The end of the walk is a bench with a view of [the bay](https://example.org/bay).
"""


def test_chapters_in_reading_order_without_the_table_of_contents():
    """TWO_MD as pandoc --toc writes it (two chapter files): the navigation document is in the spine,
    but a reader's app shows it as a menu, not as the running text, so it is left out (the chapter
    titles would otherwise be read twice)."""
    text, _ = document_to_markdown(TWO_CHAPTERS.read_bytes())
    assert text == "# Two chapters\n\nA. Writer\n\n" + TWO_MD.replace("them.\nNobody", "them. Nobody").strip()


# A book in a converter's layout (Calibre's, written here; no converter runs in the test): the
# package at the root, emphasis only by classes of stylesheet.css, a cover page outside the reading
# order, the chapter split across two files, one in a folder with a space in its name.
CONTAINER = ('<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
             '<rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>')
OPF = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Notes</dc:title></metadata>
<manifest>
<item id="cover" href="titlepage.xhtml" media-type="application/xhtml+xml"/>
<item id="html1" href="index_split_000.html" media-type="application/xhtml+xml"/>
<item id="html2" href="part%20two/index_split_001.html#start" media-type="application/xhtml+xml"/>
<item id="css" href="stylesheet.css" media-type="text/css"/>
<item id="img" href="cover.jpeg" media-type="image/jpeg"/>
<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
</manifest>
<spine toc="ncx"><itemref idref="cover" linear="no"/><itemref idref="html1"/><itemref idref="img"/><itemref idref="html2"/></spine>
</package>"""
CSS = """.calibre { display: block; font-size: 1em }
.calibre1 { margin: 0 0 1em }  /* a paragraph */
.bold { font-weight: bold }
.italic { font-style: italic }
span.calibre7 { font-weight: 700; font-style: italic }
.calibre7 { font-weight: normal }
a:hover { font-weight: bold }
"""
PART1 = """<?xml version='1.0' encoding='utf-8'?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Notes</title>
<link rel="stylesheet" type="text/css" href="stylesheet.css"/></head>
<body class="calibre"><h1 class="calibre2" id="c1">Getting started</h1>
<p class="calibre1">Start with <span class="bold">one habit</span> and keep it <span class="italic">small</span>.</p>
<ul class="calibre3"><li class="calibre4">write it down</li><li class="calibre4">tick it off</li></ul>
</body></html>"""
PART2 = """<?xml version='1.0' encoding='utf-8'?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Notes</title></head>
<body class="calibre"><p class="calibre1">After a month, <span class="calibre7">review</span> what stuck;
<b class="calibre7">drop</b> the rest.</p></body></html>"""
CONVERTER_MD = ("# Getting started\n\nStart with **one habit** and keep it *small*.\n\n- write it down\n- tick it off\n\n"
                "After a month, ***review*** what stuck;\ndrop the rest.")


def _book(files: dict[str, str | bytes], mimetype: bool = True) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        if mimetype:
            zf.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        for name, data in files.items():
            zf.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
    return buf.getvalue()


def _converter_book(**changes: str | bytes | None) -> bytes:
    files = {"META-INF/container.xml": CONTAINER, "content.opf": OPF, "stylesheet.css": CSS,
             "titlepage.xhtml": "<html><body><p>COVER PAGE</p></body></html>", "index_split_000.html": PART1,
             "part two/index_split_001.html": PART2, "cover.jpeg": b"\xff\xd8\xff"}
    files.update(changes)
    return _book({k: v for k, v in files.items() if v is not None})


def test_a_converters_book_reads_its_emphasis_from_the_books_style_sheet():
    """`.bold` / `.italic` spans are bold and italic only by stylesheet.css; `span.calibre7` applies to
    a span, not to a `<b>` (whose own `.calibre7` rule says normal); the cover (linear="no") and the
    image in the spine are not text."""
    assert document_to_markdown(_converter_book()) == (CONVERTER_MD, EPUB_WARNING)
    without_sheet = document_to_markdown(_converter_book(**{"stylesheet.css": ""}))[0]
    assert without_sheet == CONVERTER_MD.replace("**", "").replace("*small*", "small").replace("*review*", "review").replace(
        "drop", "**drop**")


def test_a_books_missing_chapter_and_the_size_cap_are_said(monkeypatch):
    text, warning = document_to_markdown(_converter_book(**{"part two/index_split_001.html": None}))
    assert text == CONVERTER_MD.split("\n\nAfter")[0]
    assert warning == f"{EPUB_WARNING}; 1 of its 2 chapters missing from the archive"
    monkeypatch.setattr(epub_reader, "MAX_BOOK_BYTES", len(PART1.encode()) + 10)
    text, warning = document_to_markdown(_converter_book())
    assert text == CONVERTER_MD.split("\n\nAfter")[0]
    assert warning == f"{EPUB_WARNING}; its first 1 of 2 chapters (0 MB)"


@pytest.mark.parametrize(("changes", "reason"), [
    ({"META-INF/container.xml": None}, "an EPUB without META-INF/container.xml (not an e-book, or a broken one)"),
    ({"META-INF/container.xml": "<container><rootfiles/></container>"}, "an EPUB whose META-INF/container.xml names no package document"),
    ({"content.opf": None}, "an EPUB whose package document content.opf is missing"),
    ({"content.opf": "<package><manifest/><spine/></package>"}, "an EPUB whose spine lists no XHTML chapter"),
    ({"content.opf": '<!DOCTYPE p [<!ENTITY a "aaaa">]><package/>'}, "an EPUB whose content.opf declares a DTD"),
    ({"content.opf": "<package><manifest>"}, "an EPUB whose content.opf is not well-formed XML"),
    ({"index_split_000.html": '<html><body><img src="p1.jpeg"/></body></html>', "part two/index_split_001.html":
      '<html><body><svg><image href="p2.jpeg"/></svg></body></html>'}, "an EPUB with no text to read (its pages are pictures)"),
])
def test_broken_books_are_one_line_reasons(changes, reason):
    with pytest.raises(DocumentError) as e:
        document_to_markdown(_converter_book(**changes))
    assert str(e.value).startswith(reason) and "\n" not in str(e.value)


def test_an_archive_that_is_neither_office_nor_epub_is_refused_by_name():
    sheet = _book({"xl/workbook.xml": "<workbook/>"}, mimetype=False)
    with pytest.raises(DocumentError, match="not a Word or OpenDocument text or an EPUB"):
        document_to_markdown(sheet)
    # an EPUB without its mimetype entry (some tools leave it out) is still read by its container
    book = _book({"META-INF/container.xml": CONTAINER, "content.opf": OPF, "index_split_000.html": PART1}, mimetype=False)
    assert document_to_markdown(book)[0].startswith("# Getting started\n\nStart with one habit")


def test_a_contents_page_the_guide_names_is_left_out():
    """EPUB 2 books (Calibre's, Sigil's) list a contents page in the spine and name it in the guide."""
    contents = "<html><body><h1>Contents</h1><p><a href='index_split_000.html'>Getting started</a></p></body></html>"
    opf = OPF.replace('<itemref idref="html1"/>', '<itemref idref="toc"/><itemref idref="html1"/>').replace(
        "</manifest>", '<item id="toc" href="contents.html" media-type="application/xhtml+xml"/></manifest>')
    guided = opf.replace("</package>", '<guide><reference type="toc" title="Contents" href="contents.html"/></guide></package>')
    assert document_to_markdown(_converter_book(**{"content.opf": guided, "contents.html": contents}))[0] == CONVERTER_MD
    unguided = document_to_markdown(_converter_book(**{"content.opf": opf, "contents.html": contents}))[0]
    assert unguided == "# Contents\n\n[Getting started](index_split_000.html)\n\n" + CONVERTER_MD


def test_reading_order_names_chapters_and_style_sheets():
    with open_zip(_converter_book()) as zf:
        assert epub_reader.reading_order(zf) == (["index_split_000.html", "part two/index_split_001.html"], ["stylesheet.css"])
    with open_zip(TWO_CHAPTERS) as zf:
        chapters, sheets = epub_reader.reading_order(zf)
    assert chapters == ["EPUB/text/title_page.xhtml", "EPUB/text/ch001.xhtml", "EPUB/text/ch002.xhtml"]
    assert sheets == ["EPUB/styles/stylesheet1.css"]


def test_predict_reads_an_epub_file_stdin_and_folder(tmp_path):
    res = runner.invoke(app, ["predict", str(TWO_CHAPTERS), "--jsonl"])
    (rec,) = [json.loads(x) for x in res.stdout.splitlines()]
    assert res.exit_code == 0 and rec["warnings"][0] == EPUB_WARNING and rec["n_words"] > 60
    via_stdin = runner.invoke(app, ["predict", "-", "--jsonl"], input=TWO_CHAPTERS.read_bytes())
    assert json.loads(via_stdin.stdout)["probabilities"] == rec["probabilities"]
    (tmp_path / "book.epub").write_bytes(PANDOC.read_bytes())
    (tmp_path / "notes.md").write_text(MD)
    found = [json.loads(x) for x in runner.invoke(app, ["predict", str(tmp_path), "--jsonl"]).stdout.splitlines()]
    assert [Path(r["path"]).name for r in found] == ["book.epub", "notes.md"]
    broken = tmp_path / "broken.epub"
    broken.write_bytes(_converter_book(**{"content.opf": None}))
    res = runner.invoke(app, ["predict", str(broken), "--jsonl"])
    (rec,) = [json.loads(x) for x in res.stdout.splitlines()]
    assert res.exit_code != 0 and rec["error"] == ("an EPUB whose package document content.opf is missing "
                                                   "(copy its text into a .md or .txt file instead)")
