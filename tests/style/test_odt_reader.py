"""OpenDocument texts read as the Markdown their formatting shows (whowrote.style.odt_reader, through
whowrote.style.documents), and ``whowrote predict`` on .odt files."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from test_docx_reader import READ_BACK
from typer.testing import CliRunner

from whowrote.cli import app
from whowrote.style.documents import ODT_WARNING, DocumentError, document_to_markdown

ROOT = Path(__file__).resolve().parents[2]
NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
      'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
      'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
      'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
      'xmlns:xlink="http://www.w3.org/1999/xlink"')


def _odt(body: str, automatic: str = "", styles: str = "", faces: str = "",
         mimetype: bytes = b"application/vnd.oasis.opendocument.text") -> bytes:
    """An .odt of these parts, written by hand (as LibreOffice writes them: automatic styles on top of
    named ones, font faces declared apart, lists styled by their paragraphs)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("mimetype", mimetype)
        zf.writestr("content.xml", f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {NS}>'
                                   f"<office:font-face-decls>{faces}</office:font-face-decls>"
                                   f"<office:automatic-styles>{automatic}</office:automatic-styles>"
                                   f"<office:body><office:text>{body}</office:text></office:body></office:document-content>")
        zf.writestr("styles.xml", f'<?xml version="1.0" encoding="UTF-8"?><office:document-styles {NS}>'
                                  f"<office:styles>{styles}</office:styles></office:document-styles>")
    return out.getvalue()


STYLES = ('<style:style style:name="Standard" style:family="paragraph"/>'
          '<style:style style:name="Quotations" style:family="paragraph" style:parent-style-name="Standard"/>'
          '<style:style style:name="Preformatted_20_Text" style:display-name="Preformatted Text" style:family="paragraph"/>'
          '<style:style style:name="Strong_20_Emphasis" style:display-name="Strong Emphasis" style:family="text">'
          '<style:text-properties fo:font-weight="bold"/></style:style>'
          '<style:style style:name="Source_20_Text" style:family="text">'  # its face is declared in content.xml
          '<style:text-properties style:font-name="Code Face"/></style:style>'
          '<style:style style:name="LoopA" style:family="paragraph" style:parent-style-name="LoopB"/>'
          '<style:style style:name="LoopB" style:family="paragraph" style:parent-style-name="LoopA"/>')
FACES = '<style:font-face style:name="Code Face" svg:font-family="\'DejaVu Sans Mono\'"/>'
AUTOMATIC = ('<style:style style:name="T1" style:family="text"><style:text-properties fo:font-weight="700"/></style:style>'
             '<style:style style:name="T2" style:family="text"><style:text-properties fo:font-style="italic"/></style:style>'
             '<style:style style:name="T3" style:family="text"><style:text-properties style:font-name="Code Face"/></style:style>'
             '<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Quotations"/>'
             '<style:style style:name="P2" style:family="paragraph" style:parent-style-name="Standard" style:list-style-name="L1"/>'
             '<text:list-style style:name="L1"><text:list-level-style-bullet text:level="1" text:bullet-char="•"/>'
             '<text:list-level-style-number text:level="2" style:num-format="1"/></text:list-style>'
             '<text:list-style style:name="L2"><text:list-level-style-number text:level="1" style:num-format="1"/></text:list-style>')


def test_a_document_pandoc_wrote_reads_as_the_word_one_does():
    md, warning = document_to_markdown(ROOT / "tests" / "fixtures" / "documents" / "pandoc-3.9.odt")
    assert md == READ_BACK and warning == ODT_WARNING


def test_libreoffice_structure_is_read():
    body = "".join([
        '<text:h text:outline-level="2">A   heading\n  over lines</text:h>',
        '<text:p text:style-name="Standard">A <text:span text:style-name="T1">bold</text:span> and '
        '<text:span text:style-name="T2">italic</text:span> and <text:span text:style-name="T3">mono</text:span> '
        'and <text:span text:style-name="Strong_20_Emphasis">strong</text:span> '
        '<text:span text:style-name="Source_20_Text">src</text:span> word,<text:s text:c="3"/>spaced,'
        '<text:tab/>tabbed<text:line-break/>next line<text:note><text:note-body><text:p>a footnote</text:p>'
        '</text:note-body></text:note><office:annotation><text:p>a comment</text:p></office:annotation>'
        ' and a <text:a xlink:href="https://example.org/">link</text:a>.</text:p>',
        '<text:tracked-changes><text:changed-region><text:deletion><text:p>deleted</text:p></text:deletion>'
        '</text:changed-region></text:tracked-changes>',
        '<text:list><text:list-item><text:p text:style-name="P2">bullet one</text:p>'
        '<text:list><text:list-item><text:p text:style-name="P2">number under it</text:p></text:list-item>'
        '<text:list-item><text:p text:style-name="P2">and another</text:p></text:list-item></text:list>'
        '</text:list-item><text:list-item><text:p text:style-name="P2">bullet two</text:p>'
        '<text:p text:style-name="P2">its second paragraph</text:p></text:list-item></text:list>',
        '<text:list text:style-name="L2"><text:list-item><text:p>first</text:p></text:list-item>'
        '<text:list-item><text:p>second</text:p></text:list-item></text:list>',
        '<text:p text:style-name="P1">A quotation.</text:p>',
        '<text:section text:name="S1"><text:p text:style-name="LoopA">In a section, in a loop of styles.</text:p></text:section>',
        '<text:p text:style-name="Preformatted_20_Text">x  =  1</text:p>',
        '<text:p text:style-name="Standard"/>',
        '<table:table><table:table-header-rows><table:table-row><table:table-cell><text:p>a|b</text:p></table:table-cell>'
        '<table:table-cell><text:p>c</text:p></table:table-cell></table:table-row></table:table-header-rows>'
        '<table:table-row><table:table-cell><text:p>1</text:p><text:p>one</text:p></table:table-cell>'
        '<table:table-cell><text:p>2</text:p></table:table-cell></table:table-row></table:table>',
    ])
    md, _ = document_to_markdown(_odt(body, AUTOMATIC, STYLES, FACES))
    assert md == ("## A heading over lines\n\n"
                  "A **bold** and *italic* and `mono` and **strong** `src` word,   spaced, tabbed\nnext line and a "
                  "[link](https://example.org/).\n\n"
                  "- bullet one\n  1. number under it\n  2. and another\n- bullet two\n\nits second paragraph\n\n"
                  "1. first\n2. second\n\n> A quotation.\n\nIn a section, in a loop of styles.\n\n```\nx = 1\n```\n\n"
                  "| a\\|b | c |\n| --- | --- |\n| 1 one | 2 |")


def test_a_paragraph_styles_bold_and_italics_are_its_texts():
    """Bold or italics set on a paragraph's style (odfpy's parastyles.odt; LibreOffice's direct
    formatting of a whole paragraph) show on its text; a heading's bold is its look, not emphasis."""
    automatic = ('<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Standard">'
                 '<style:text-properties fo:font-weight="bold"/></style:style>'
                 '<style:style style:name="P2" style:family="paragraph" style:parent-style-name="Standard">'
                 '<style:text-properties fo:font-style="italic"/></style:style>')
    body = ('<text:h text:outline-level="2" text:style-name="P1">A heading</text:h><text:p text:style-name="P1">Bold</text:p>'
            '<text:p text:style-name="P2">Italic</text:p><text:p text:style-name="Standard">Plain</text:p>')
    assert document_to_markdown(_odt(body, automatic, STYLES))[0] == "## A heading\n\n**Bold**\n\n*Italic*\n\nPlain"


def _with_dtd() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        zf.writestr("content.xml", f'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY e "x">]><office:document-content {NS}>'
                                   "<office:body><office:text><text:p>&e;</text:p></office:text></office:body>"
                                   "</office:document-content>")
    return out.getvalue()


@pytest.mark.parametrize("raw, reason", [
    (_odt("<text:p>x</text:p>", mimetype=b"application/vnd.oasis.opendocument.spreadsheet"), "not a Word or OpenDocument text"),
    (_odt("<text:p>unclosed"), "not well-formed XML"),
    (_with_dtd(), "declares a DTD"),
], ids=["spreadsheet", "broken", "dtd"])
def test_other_or_broken_documents_are_one_line_reasons(raw, reason):
    with pytest.raises(DocumentError, match=reason) as e:
        document_to_markdown(raw)
    assert "\n" not in str(e.value)


def test_deep_nesting_is_a_reason_not_a_crash():
    deep = '<text:span text:style-name="T1">' * 50_000 + "x" + "</text:span>" * 50_000
    try:
        md, _ = document_to_markdown(_odt(f"<text:p>{deep}</text:p>", AUTOMATIC))
    except DocumentError as e:
        assert "nested too deeply" in str(e)
    else:
        assert md == "**x**"


def test_predict_reads_an_opendocument_text(tmp_path):
    """Found in a folder, attributed as its Markdown with a warning: the same verdict as that Markdown."""
    raw = (ROOT / "tests" / "fixtures" / "documents" / "pandoc-3.9.odt").read_bytes()
    (tmp_path / "essay.odt").write_bytes(raw)
    (tmp_path / "essay.md").write_text(READ_BACK, encoding="utf-8")
    res = CliRunner().invoke(app, ["predict", str(tmp_path), "--jsonl"])
    md_rec, odt_rec = (json.loads(x) for x in res.stdout.splitlines())
    assert res.exit_code == 0 and odt_rec["path"].endswith("essay.odt")
    assert odt_rec["probabilities"] == md_rec["probabilities"] and ODT_WARNING in odt_rec["warnings"]
