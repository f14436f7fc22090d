"""PDFs read as the Markdown their layout shows (whowrote.style.pdf_reader), and ``whowrote
predict`` on .pdf files. The fixtures were printed by Chromium (tests/fixtures/documents/README.md)."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter
from test_docx_reader import MD
from typer.testing import CliRunner

from whowrote.cli import app
from whowrote.style import pdf_reader
from whowrote.style.documents import PDF_WARNING, DocumentError, document_to_markdown
from whowrote.style.pdf_layout import (
    Layout,
    Line,
    Span,
    drop_furniture,
    layout_markdown,
    line_blocks,
    mark_tables,
)
from whowrote.style.pdf_reader import _mark_lists, pdf_markdown

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "documents"
SHORT = FIXTURES / "chromium-156.pdf"
TWO_PAGES = FIXTURES / "chromium-156-two-pages.pdf"

# What a browser's page shows of MD once printed: the soft break a space, the fence's language
# gone (a PDF keeps neither), a nested item indented as this reader writes lists, the table's
# header rule spaced; headings, emphasis, the link, the quote, code and the rule as written.
SHORT_READ_BACK = (MD.replace(".\nA soft break", ". A soft break").replace("|---|---|", "| --- | --- |")
                   .replace("```python", "```").replace("\n  - nested", "\n   - nested"))

SENTENCES = [
    "The path climbed slowly through a wood of birch and pine, and the morning light came down in long bands.",
    "Nobody had walked it since the rain, so every step left a clear print in the soft ground.",
    "I stopped often, partly to rest and partly because the view kept changing in small ways.",
    "A map is a promise about the world, and the world does not always keep it.",
    "By noon the clouds had thinned, and the valley below looked close enough to touch.",
    "It is easy to forget how much of a long walk is simply paying attention.",
    "The stream at the bottom was louder than I expected, full of snowmelt and small stones.",
    "I ate lunch on a flat rock and watched two ravens argue over something I could not see.",
    "Later the trail turned north, and the wind turned with it.",
    "When I reached the hut the door was open, the stove was cold, and the logbook was full of other people's weather.",
]


def para(start: int, n: int) -> str:
    return " ".join(SENTENCES[(start + k) % len(SENTENCES)] for k in range(n))


# Two printed pages (a paragraph runs across the break; a header and a footer on each page): a
# loose list, a hard line break, a numbered list, a rule.
LONG = "\n\n".join([
    "# Notes from a long walk", para(0, 14), para(3, 9), "## What I carried",
    "- " + para(1, 2) + "\n\n- " + para(4, 1) + "\n\n- " + para(6, 3),
    para(2, 16), "A line that ends early  \nand the next line after a hard break.", "### The second day",
    para(5, 12), "1. " + para(7, 1) + "\n2. " + para(8, 1) + "\n3. " + para(9, 2), para(0, 18), "---",
    para(4, 15), "The end of the notes.",
])


def test_a_browsers_pdf_reads_back_as_the_markdown_it_shows():
    text, pages = pdf_markdown(SHORT.read_bytes())
    assert pages == 1 and text == SHORT_READ_BACK


def test_two_pages_with_headers_and_footers_read_as_one_text():
    """The page furniture Chromium prints (date, title, file address, "1/2") is left out, the
    paragraph across the page break is one paragraph, the loose list keeps its blank lines and the
    hard break its line break (a Markdown soft break: a PDF shows no trailing spaces)."""
    reader = PdfReader(TWO_PAGES)
    assert len(reader.pages) == 2 and "1/2" in reader.pages[0].extract_text()  # (the furniture is there)
    text, pages = pdf_markdown(TWO_PAGES)
    assert pages == 2 and text == LONG.replace("early  \n", "early\n")


def test_document_to_markdown_reads_a_pdf_with_its_warning():
    md, warning = document_to_markdown(SHORT)
    assert md == SHORT_READ_BACK and warning == PDF_WARNING
    assert document_to_markdown(SHORT.read_bytes()) == (md, warning)


def _pdf(writer: PdfWriter) -> bytes:
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_broken_encrypted_and_image_only_pdfs_are_one_line_reasons():
    with pytest.raises(DocumentError, match=r"^a PDF that cannot be read \(") as e:
        pdf_markdown(b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n" + b"x" * 100)
    assert "\n" not in str(e.value)
    blank = PdfWriter()
    blank.add_blank_page(612, 792)
    with pytest.raises(DocumentError, match="no text to read"):
        pdf_markdown(_pdf(blank))
    locked = PdfWriter(clone_from=SHORT)
    locked.encrypt(user_password="secret", owner_password="owner", algorithm="AES-128")
    with pytest.raises(DocumentError, match="an encrypted PDF"):
        pdf_markdown(_pdf(locked))
    owner_only = PdfWriter(clone_from=SHORT)  # opens without a password: read
    owner_only.encrypt(user_password="", owner_password="owner", algorithm="AES-128")
    assert pdf_markdown(_pdf(owner_only))[0] == SHORT_READ_BACK


def test_only_the_first_max_pages_are_read_and_the_warning_says_so(monkeypatch):
    monkeypatch.setattr(pdf_reader, "MAX_PAGES", 1)
    text, pages = pdf_markdown(TWO_PAGES)
    assert pages == 2 and text.startswith("# Notes from a long walk") and "The end of the notes." not in text
    _, warning = document_to_markdown(TWO_PAGES)
    assert warning == PDF_WARNING + "; its first 1 of 2 pages"


def test_reading_time_grows_linearly_with_pages():
    """A long PDF (the two pages 8 and 32 times) costs its length, not its square."""
    def pages(times: int) -> bytes:
        w = PdfWriter()
        for _ in range(times):
            w.append(TWO_PAGES)
        return _pdf(w)

    def cost(raw: bytes) -> float:
        t = time.perf_counter()
        pdf_markdown(raw)
        return time.perf_counter() - t

    small, big = pages(8), pages(32)
    assert min(cost(big) for _ in range(2)) < 8 * min(cost(small) for _ in range(2))  # linear: ~4x


def _line(page: int, y: float, *spans: tuple[float, str], size: float = 12.0, bold: bool = False) -> Line:
    return Line(page, [Span(text, x, y, size, bold, False, False) for x, text in spans])


def test_tables_are_columns_shared_by_rows_not_words_that_line_up_by_chance():
    rows = [_line(0, 700 - 20 * i, (40, f"cell {i}"), (200, f"value {i}"), (360, f"note {i}")) for i in range(3)]
    mark_tables(rows, 12.0)
    assert all(line.table == [40, 200, 360] for line in rows)
    # a paragraph whose lines each start a styled word somewhere, two of them at x = 150 by chance
    prose = [_line(0, 500, (40, "A line with "), (150, "bold words"), (230, " in it")),
             _line(0, 486, (40, "and another "), (150, "styled run"), (260, " here")),
             _line(0, 472, (40, "then a third "), (310, "emphasis"), (390, " and more"))]
    mark_tables(prose, 12.0)
    assert all(line.table is None for line in prose)


def test_page_furniture_is_left_out_and_text_is_kept():
    pages = []
    for p in range(4):
        pages.append([_line(p, 760, (30, f"Report draft, {p + 1} December"), size=12.0),
                      *[_line(p, 700 - 14 * i, (40, f"Body text line {i} on page {p}.")) for i in range(10)],
                      _line(p, 30, (300, f"Page {p + 1} of 4"))])
    drop_furniture(pages, 12.0)
    texts = [line.text for page in pages for line in page]
    assert len(texts) == 40 and all(t.startswith("Body text line") for t in texts)
    alone = [[_line(0, 700, (40, "A one-page letter opens with this line.")), _line(0, 686, (40, "It ends here."))]]
    drop_furniture(alone, 12.0)
    assert len(alone[0]) == 2  # (a one-page text's own first and last lines are not furniture)


def test_predict_reads_a_pdf_file_stdin_and_folder(tmp_path):
    res = runner.invoke(app, ["predict", str(SHORT), "--jsonl"])
    (rec,) = [json.loads(x) for x in res.stdout.splitlines()]
    assert res.exit_code == 0 and rec["warnings"][0] == PDF_WARNING and rec["n_words"] > 20
    via_stdin = runner.invoke(app, ["predict", "-", "--jsonl"], input=SHORT.read_bytes())
    assert json.loads(via_stdin.stdout)["probabilities"] == rec["probabilities"]
    (tmp_path / "essay.pdf").write_bytes(TWO_PAGES.read_bytes())
    (tmp_path / "notes.md").write_text(LONG)
    found = [json.loads(x) for x in runner.invoke(app, ["predict", str(tmp_path), "--jsonl"]).stdout.splitlines()]
    assert [Path(r["path"]).name for r in found] == ["essay.pdf", "notes.md"]
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\n" + b"garbage " * 40)
    res = runner.invoke(app, ["predict", str(broken), "--jsonl"])
    (rec,) = [json.loads(x) for x in res.stdout.splitlines()]
    assert res.exit_code != 0 and rec["error"].startswith("a PDF that cannot be read (")
    assert rec["error"].endswith("(copy its text into a .md or .txt file instead)")


def test_list_markers_set_as_characters_start_items():
    """A word processor sets its bullets as characters (•, or Symbol's private-use \\uf0b7) and its
    numbers as text, then a tab: each starts an item, and a marker-like word inside a line does not."""
    lines = [_line(0, 700, (40, "Shopping, in order:")),
             _line(0, 686, (58, "•"), (70, "\t"), (76, "bread from the corner shop")),
             _line(0, 672, (58, "\uf0b7"), (76, "milk")),
             _line(0, 658, (58, "2."), (76, "eggs, if they have them")),
             _line(0, 644, (40, "Then home • before the rain."))]
    _mark_lists(lines, [])
    assert [line.marker for line in lines] == [None, "-", "-", "2.", None]
    blocks = line_blocks(lines, Layout(12.0, 14.0, 40.0, 572.0, None))
    assert [b.text for b in blocks] == ["Shopping, in order:", "- bread from the corner shop", "- milk",
                                        "2. eggs, if they have them", "Then home • before the rain."]


def _page_pdf(content: bytes) -> bytes:
    """A one-page PDF drawing ``content`` (a content stream) with Helvetica as /F1."""
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(612, 792)
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica")})
    page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
    stream = DecodedStreamObject()
    stream.set_data(content)
    page[NameObject("/Contents")] = writer._add_object(stream)
    return _pdf(writer)


def test_bullets_drawn_as_shapes_start_items_unless_the_page_is_a_drawing():
    words = [b"apples", b"pears", b"plums"]
    text = b"".join(b"BT /F1 12 Tf 90 %d Td (%s) Tj ET\n" % (700 - 14 * i, w) for i, w in enumerate(words))
    bullets = b"".join(b"78 %d 4 4 re f\n" % (702 - 14 * i) for i in range(3))
    assert pdf_markdown(_page_pdf(text + bullets))[0] == "- apples\n- pears\n- plums"
    drawing = b"".join(b"%d %d 3 3 re f\n" % (100 + (i % 50) * 8, 100 + (i // 50) * 8) for i in range(pdf_reader.MAX_SHAPES + 1))
    t = time.perf_counter()
    assert pdf_markdown(_page_pdf(text + bullets + drawing))[0] == "apples pears plums"  # (no items; one paragraph)
    assert time.perf_counter() - t < 5  # (the shapes are not matched to the lines one by one)


def test_a_bullet_set_apart_in_its_own_size_still_starts_its_item():
    """A producer that sets the bullet in its own text object, larger and 2 pt lower than the item's
    text, and steps to the next line after each (ReportLab's ``T*``) gives pypdf two lines on one
    baseline: read as one item."""
    words = [b"apples", b"pears"]
    content = b"".join(b"BT /F1 12 Tf 14.4 TL 1 0 0 1 78 %d Tm (-) Tj T* ET BT /F1 10 Tf 12 TL 1 0 0 1 90 %d Tm (%s) Tj T* ET\n"
                       % (698 - 14 * i, 700 - 14 * i, w) for i, w in enumerate(words))
    assert pdf_markdown(_page_pdf(content))[0] == "- apples\n- pears"


def test_a_malformed_link_or_font_descriptor_is_read_past():
    """A link annotation with a broken rectangle, or a font descriptor with a non-number weight,
    costs the link or the descriptor's hints, not the document."""
    from pypdf.generic import ArrayObject, DictionaryObject, NameObject, NumberObject, TextStringObject

    raw = _page_pdf(b"BT /F1 12 Tf 90 700 Td (A short note.) Tj ET")
    writer = PdfWriter(clone_from=io.BytesIO(raw))
    page = writer.pages[0]
    page[NameObject("/Annots")] = ArrayObject([DictionaryObject({
        NameObject("/Subtype"): NameObject("/Link"), NameObject("/Rect"): ArrayObject([TextStringObject("x")] * 4),
        NameObject("/A"): DictionaryObject({NameObject("/URI"): TextStringObject("https://example.org")})})])
    font = page["/Resources"]["/Font"]["/F1"].get_object()
    font[NameObject("/FontDescriptor")] = DictionaryObject({NameObject("/FontWeight"): TextStringObject("heavy"),
                                                            NameObject("/Flags"): NumberObject(0)})
    assert pdf_markdown(_pdf(writer))[0] == "A short note."


def test_a_page_of_many_links_over_many_words_reads_in_about_the_time_of_its_words():
    """Each link annotation looks only at the spans in its own height band, and only the first
    MAX_ANNOTS annotations of a page are read: 3,000 page-wide links over 3,000 words (every link
    over every word) used to cost 9 million comparisons a page."""
    from pypdf.generic import ArrayObject, DictionaryObject, FloatObject, NameObject, TextStringObject

    words = b"".join(b"BT /F1 4 Tf %d %d Td (w%d) Tj ET\n" % (20 + (i % 60) * 9, 780 - (i // 60) * 5, i) for i in range(3000))
    raw = _page_pdf(words)
    writer = PdfWriter(clone_from=io.BytesIO(raw))
    whole_page = ArrayObject([FloatObject(0), FloatObject(0), FloatObject(612), FloatObject(792)])
    first_word = ArrayObject([FloatObject(19), FloatObject(778), FloatObject(28), FloatObject(784)])
    writer.pages[0][NameObject("/Annots")] = ArrayObject([writer._add_object(DictionaryObject({
        NameObject("/Subtype"): NameObject("/Link"), NameObject("/Rect"): first_word if i == pdf_reader.MAX_ANNOTS - 1 else whole_page,
        NameObject("/A"): DictionaryObject({NameObject("/URI"): TextStringObject(f"https://example.org/{i}")})}))
        for i in range(3000)])
    linked = _pdf(writer)
    t = time.perf_counter()
    plain_text = pdf_markdown(raw)[0]
    plain = time.perf_counter() - t
    t = time.perf_counter()
    text = pdf_markdown(linked)[0]
    assert time.perf_counter() - t < 3 * plain + 1
    last, before = (f"https://example.org/{pdf_reader.MAX_ANNOTS - i}" for i in (1, 2))
    assert f"[w0]({last})" in text and f"[w1]({before})" in text and f"[w2999]({before})" in text
    assert f"/{pdf_reader.MAX_ANNOTS}" not in text  # (the annotations after the first MAX_ANNOTS are not read)
    assert text.replace(f"]({last})", "").replace(f"]({before})", "").replace("[", "") == plain_text


def test_a_first_line_indent_is_a_paragraph_and_a_set_in_paragraph_a_quote():
    """LaTeX indents each paragraph's first line by about an em (py-pdf's sample pdfLaTeX documents
    read as quotes, "> Hello, here is ..."): a paragraph is a quote when all its lines are set in,
    a one-line paragraph when set in further than 1.5 em."""
    words = "word " * 12
    lines = [_line(0, 700, (55, "First paragraph, " + words)), _line(0, 686, (40, words)), _line(0, 672, (40, words)),
             _line(0, 658, (40, words)), _line(0, 644, (40, words + "end.")),
             _line(0, 630, (55, "Second paragraph, " + words)), _line(0, 616, (40, "its end.")),
             _line(0, 592, (80, "A quoted line " + words)), _line(0, 578, (80, "and its second line.")),
             _line(0, 554, (55, "A one-line paragraph.")), _line(0, 530, (80, "A one-line quote."))]
    text = layout_markdown([lines], [[]], 612.0)
    assert text.startswith("First paragraph,") and "\n\nSecond paragraph," in text
    assert "\n\n> A quoted line" in text and "\n\nA one-line paragraph." in text and text.endswith("\n\n> A one-line quote.")
