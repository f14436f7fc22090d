"""Word documents read as the Markdown their formatting shows (whowrote.style.docx_reader), the
``docx_file`` edit that writes and reads them back, and ``whowrote predict`` on .docx files."""

from __future__ import annotations

import io
import json
import time
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from whowrote.cli import app
from whowrote.style.documents import DOCX_WARNING, DocumentError
from whowrote.style.docx_reader import docx_to_markdown
from whowrote.style.docx_writer import markdown_docx
from whowrote.style.edits import markdown_docx_file
from whowrote.style.office_xml import MAX_PART_BYTES

runner = CliRunner()

ROOT = Path(__file__).resolve().parents[2]

MD = """# A title

Intro with **bold**, *italic*, ***both***, `code` and a [link](https://example.org/a).
A soft break.

## A section

- one
- two
  - nested
- three

1. first
2. second

> a quote

| a | b |
|---|---|
| 1 | 2 |

```python
print("hi")
x = 1
```

---

The end."""

# What Word shows once the rendered Markdown is pasted into it: the soft break a space, a fence's
# language and a rule gone, a table's header rule spaced, everything else as written.
READ_BACK = (MD.replace(".\nA soft break", ". A soft break").replace("|---|---|", "| --- | --- |")
             .replace("```python", "```").replace("---\n\nThe end.", "The end."))


def test_markdown_written_into_word_reads_back_as_markdown():
    assert docx_to_markdown(markdown_docx(MD)) == READ_BACK
    assert markdown_docx_file(MD) == READ_BACK
    assert markdown_docx_file(READ_BACK) == READ_BACK  # a fixed point: nothing drifts on a second trip


W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _docx(body: str, styles: str = "", numbering: str = "", rels: str = "", extra: dict[str, bytes] | None = None) -> bytes:
    """A .docx of these parts, written by hand (as other editors write them: direct numbering on
    the paragraph, outline levels, character styles), not by python-docx."""
    def part(root: str, inner: str) -> str:
        return f'<?xml version="1.0" encoding="UTF-8"?><w:{root} xmlns:w="{W_NS}" xmlns:r="{R_NS}">{inner}</w:{root}>'

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr("word/document.xml", part("document", f"<w:body>{body}</w:body>"))
        if styles:
            zf.writestr("word/styles.xml", part("styles", styles))
        if numbering:
            zf.writestr("word/numbering.xml", part("numbering", numbering))
        if rels:
            zf.writestr("word/_rels/document.xml.rels",
                        f'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{rels}</Relationships>')
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return out.getvalue()


def _p(inner: str, ppr: str = "") -> str:
    return f"<w:p>{f'<w:pPr>{ppr}</w:pPr>' if ppr else ''}{inner}</w:p>"


def _r(text: str, rpr: str = "") -> str:
    return f'<w:r>{f"<w:rPr>{rpr}</w:rPr>" if rpr else ""}<w:t xml:space="preserve">{text}</w:t></w:r>'


NUMBERING = ('<w:abstractNum w:abstractNumId="7"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl>'
             '<w:lvl w:ilvl="1"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>'
             '<w:abstractNum w:abstractNumId="8"><w:lvl w:ilvl="0"><w:numFmt w:val="lowerRoman"/></w:lvl></w:abstractNum>'
             '<w:num w:numId="3"><w:abstractNumId w:val="7"/></w:num><w:num w:numId="4"><w:abstractNumId w:val="8"/></w:num>')
STYLES = ('<w:style w:type="paragraph" w:styleId="Kop2"><w:name w:val="heading 2"/></w:style>'  # a Dutch Word's id
          '<w:style w:type="paragraph" w:styleId="Mine"><w:name w:val="My Heading"/><w:basedOn w:val="Kop2"/></w:style>'
          '<w:style w:type="character" w:styleId="Strong"><w:name w:val="Strong"/></w:style>'
          '<w:style w:type="character" w:styleId="Code"><w:name w:val="Code Char"/><w:rPr><w:rFonts w:ascii="Consolas"/></w:rPr></w:style>'
          '<w:style w:type="paragraph" w:styleId="BlockText"><w:name w:val="Block Text"/></w:style>'  # pandoc's quotes
          '<w:style w:type="paragraph" w:styleId="LoopA"><w:name w:val="loop a"/><w:basedOn w:val="LoopB"/></w:style>'
          '<w:style w:type="paragraph" w:styleId="LoopB"><w:name w:val="loop b"/><w:basedOn w:val="LoopA"/></w:style>')


def test_other_editors_structure_is_read_too():
    num = '<w:numPr><w:ilvl w:val="{}"/><w:numId w:val="{}"/></w:numPr>'
    body = "".join([
        _p(_r("Styled by id"), '<w:pStyle w:val="Kop2"/>'),
        _p(_r("Inherited heading"), '<w:pStyle w:val="Mine"/>'),
        _p(_r("By outline level"), '<w:outlineLvl w:val="2"/>'),
        _p(_r("In a loop of styles"), '<w:pStyle w:val="LoopA"/>'),
        _p(_r("first bullet"), num.format(0, 3)),
        _p(_r("numbered under it"), num.format(1, 3)),
        _p(_r("numbered again"), num.format(1, 3)),
        _p(_r("second bullet"), num.format(0, 3)),
        _p(_r("roman one"), num.format(0, 4)),
        _p(_r("not numbered (numId 0)"), num.format(0, 0)),
        _p(_r("   ")),  # spacing, not a paragraph
        _p(_r("A ") + '<w:r><w:rPr><w:rStyle w:val="Strong"/></w:rPr><w:t>strong</w:t></w:r>' + _r(" and ")
           + '<w:r><w:rPr><w:rStyle w:val="Code"/></w:rPr><w:t>mono</w:t></w:r>' + _r(" word, ")
           + '<w:r><w:rPr><w:b w:val="0"/></w:rPr><w:t>not bold</w:t></w:r>' + _r(", ")
           + '<w:del><w:r><w:delText>deleted </w:delText></w:r></w:del>' + '<w:ins>' + _r("inserted") + "</w:ins>"
           + '<w:moveFrom>' + _r(" moved away") + "</w:moveFrom>" + '<w:moveTo>' + _r(" moved here") + "</w:moveTo>"
           + _r(" hidden", "<w:vanish/>")
           + '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r>'
           + '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
           + _r(" and a ") + '<w:hyperlink r:id="rId9">' + _r("site", "<w:u/>") + "</w:hyperlink>"
           + "<w:r><w:tab/><w:t>tabbed</w:t><w:br/><w:t>next line</w:t></w:r>"),
        '<w:sdt><w:sdtContent>' + _p(_r("Inside a content control")) + "</w:sdtContent></w:sdt>",
        _p(_r("Quoted, as pandoc writes it"), '<w:pStyle w:val="BlockText"/>'),
        '<w:tbl><w:tr><w:tc>' + _p(_r("x|y")) + "</w:tc><w:tc>" + _p(_r("two")) + _p(_r("lines"))
        + "</w:tc></w:tr></w:tbl>",
        "<w:sectPr/>",
    ])
    rels = (f'<Relationship Id="rId9" Type="{R_NS}/hyperlink" Target="https://example.org/" TargetMode="External"/>'
            f'<Relationship Id="rId1" Type="{R_NS}/styles" Target="styles.xml"/>')
    md = docx_to_markdown(_docx(body, STYLES, NUMBERING, rels))
    assert md == ("## Styled by id\n\n## Inherited heading\n\n### By outline level\n\nIn a loop of styles\n\n"
                  "- first bullet\n  1. numbered under it\n  2. numbered again\n- second bullet\n\n1. roman one\n\n"
                  "not numbered (numId 0)\n\n"
                  "A **strong** and `mono` word, not bold, inserted moved here and a [site](https://example.org/) tabbed\nnext line\n\n"
                  "Inside a content control\n\n> Quoted, as pandoc writes it\n\n| x\\|y | two lines |\n| --- | --- |")


def test_a_text_box_is_read_once_after_its_paragraph_and_a_strict_document_reads_as_usual():
    """Word writes a text box twice, as a shape (mc:Choice) and as its VML copy (mc:Fallback): its
    paragraphs are read once, after the paragraph it is anchored in (mammoth's test documents had
    their text-box text read as nothing). A "Strict Open XML" document (another namespace) reads as
    the usual one (it was "has no body")."""
    mc = "http://schemas.openxmlformats.org/markup-compatibility/2006"
    box = _p(_r("Inside the box, ") + _r("bold", "<w:b/>"))
    anchor = (f'<w:r><mc:AlternateContent xmlns:mc="{mc}"><mc:Choice Requires="wps"><w:drawing><wps:txbx '
              f'xmlns:wps="urn:wps"><w:txbxContent>{box}</w:txbxContent></wps:txbx></w:drawing></mc:Choice>'
              f'<mc:Fallback><w:pict><v:textbox xmlns:v="urn:v"><w:txbxContent>{box}</w:txbxContent></v:textbox></w:pict>'
              f'</mc:Fallback></mc:AlternateContent></w:r>')
    raw = _docx(_p(_r("Before the box.") + anchor) + _p(_r("After it.")))
    assert docx_to_markdown(raw) == "Before the box.\n\nInside the box, **bold**\n\nAfter it."
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("word/document.xml", '<w:document xmlns:w="http://purl.oclc.org/ooxml/wordprocessingml/main"><w:body>'
                    + _p(_r("Strict ") + _r("text", "<w:i/>")) + "</w:body></w:document>")
    assert docx_to_markdown(out.getvalue()) == "Strict *text*"


def test_a_link_keeps_the_spaces_around_it_and_a_bare_url_shows_as_itself():
    rels = f'<Relationship Id="rId9" Type="{R_NS}/hyperlink" Target="https://example.org/" TargetMode="External"/>'
    link = '<w:hyperlink r:id="rId9">{}</w:hyperlink>'
    body = _p(_r("see ") + link.format(_r("the site ")) + _r("now, ") + link.format(_r("https://example.org/")))
    assert docx_to_markdown(_docx(body, rels=rels)) == "see [the site](https://example.org/) now, https://example.org/"


def test_a_document_pandoc_wrote_reads_as_ours_does():
    """Another program's Word document (pandoc 3.9: its own list, code and quote styles; tests/fixtures/documents)."""
    assert docx_to_markdown(ROOT / "tests" / "fixtures" / "documents" / "pandoc-3.9.docx") == READ_BACK


def test_a_path_and_bytes_read_alike(tmp_path):
    raw = markdown_docx(MD)
    (tmp_path / "a.docx").write_bytes(raw)
    assert docx_to_markdown(tmp_path / "a.docx") == docx_to_markdown(raw) == READ_BACK


@pytest.mark.parametrize("raw, reason", [
    (b"PK\x03\x04" + b"word/document.xml" * 50, "a ZIP archive that cannot be read"),
    (_docx("", extra={"x": b""}).replace(b"word/document.xml", b"word/elsewhere.xm"), "a ZIP archive but not a Word document"),
    (_docx("<w:p><w:r><w:t>unclosed"), "not well-formed XML"),
])
def test_broken_or_other_archives_are_one_line_reasons(raw, reason):
    with pytest.raises(DocumentError, match=reason) as e:
        docx_to_markdown(raw)
    assert "\n" not in str(e.value)


def test_a_dtd_is_refused_before_parsing():
    """Entity expansion ("billion laughs") needs a DTD; a Word document never has one."""
    bomb = ('<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
            f']><w:document xmlns:w="{W_NS}"><w:body><w:p><w:r><w:t>&b;</w:t></w:r></w:p></w:body></w:document>')
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("word/document.xml", bomb)
    with pytest.raises(DocumentError, match="declares a DTD"):
        docx_to_markdown(out.getvalue())


def test_a_zip_bomb_stops_at_the_part_cap():
    """A part that inflates past the cap is refused whatever its header claims, without inflating it all."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("word/document.xml", b"<" + b"a" * (MAX_PART_BYTES + 10))
    raw = out.getvalue()
    assert len(raw) < 200_000
    with pytest.raises(DocumentError, match="over 32 MB inflated"):
        docx_to_markdown(raw)
    lying = bytearray(raw)  # the same archive with both headers claiming 100 bytes
    for sig, at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        i = lying.find(sig)
        lying[i + at:i + at + 4] = (100).to_bytes(4, "little")
    with pytest.raises(DocumentError):
        docx_to_markdown(bytes(lying))


def test_deep_nesting_is_a_reason_not_a_crash():
    deep = "<w:ins>" * 50_000 + _r("x") + "</w:ins>" * 50_000
    try:
        md = docx_to_markdown(_docx(_p(deep)))
    except DocumentError as e:
        assert "nested too deeply" in str(e)
    else:
        assert md == "x"


def test_reading_is_linear_in_the_paragraphs():
    def seconds(n: int) -> float:
        raw = _docx("".join(_p(_r(f"Paragraph {i} with **some** words."), '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="3"/></w:numPr>')
                            for i in range(n)), numbering=NUMBERING)
        start = time.perf_counter()
        docx_to_markdown(raw)
        return time.perf_counter() - start

    small, large = min(seconds(2_000) for _ in range(3)), min(seconds(16_000) for _ in range(3))
    assert large < 30 * small  # 8x the paragraphs: linear is ~8x, quadratic ~64x


def test_predict_reads_a_word_document_as_its_markdown(tmp_path):
    """A .docx is attributed as the Markdown it shows: the same verdict as that Markdown in a .md
    file, with a warning; found in folders, read from stdin, and from its path when it is over the
    10 MB read cap (pictures)."""
    post = (ROOT / "examples" / "post.md").read_text(encoding="utf-8")
    raw = markdown_docx(post)
    (tmp_path / "essay.docx").write_bytes(raw)
    (tmp_path / "essay.md").write_text(markdown_docx_file(post), encoding="utf-8")
    docx_rec, md_rec = _records(run("predict", str(tmp_path / "essay.docx"), str(tmp_path / "essay.md"), "--jsonl"))
    assert "error" not in docx_rec and docx_rec["n_words"] == md_rec["n_words"] > 300
    assert docx_rec["probabilities"] == md_rec["probabilities"]
    assert DOCX_WARNING in docx_rec["warnings"] and DOCX_WARNING not in md_rec["warnings"]
    (tmp_path / "~$essay.docx").write_bytes(b"\x0bWord user" + b"\x00" * 150)  # Word's lock file while it is open
    res = run("predict", str(tmp_path), "--jsonl")
    assert res.exit_code == 0 and [r["path"] for r in _records(res)] == \
        [str(tmp_path / "essay.docx"), str(tmp_path / "essay.md")]  # a folder's .docx files are found, locks skipped
    (piped,) = _records(runner.invoke(app, ["predict", "-", "--jsonl"], input=raw))
    assert piped["probabilities"] == md_rec["probabilities"]
    big = io.BytesIO()  # the same document with 11 MB of "pictures" stored in it
    with zipfile.ZipFile(io.BytesIO(raw)) as src, zipfile.ZipFile(big, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, src.read(info))
        dst.writestr("word/media/image1.png", bytes(range(256)) * (11 * 4096))
    (tmp_path / "big.docx").write_bytes(big.getvalue())
    assert (tmp_path / "big.docx").stat().st_size > 10 * 1024 * 1024
    (rec,) = _records(run("predict", str(tmp_path / "big.docx"), "--jsonl"))
    assert rec["probabilities"] == md_rec["probabilities"]


def test_predict_refuses_a_broken_word_document_in_one_line(tmp_path):
    (tmp_path / "x.docx").write_bytes(_docx("<w:p><w:r><w:t>unclosed"))
    res = run("predict", str(tmp_path / "x.docx"), "--jsonl")
    (rec,) = _records(res)
    assert res.exit_code != 0 and rec["n_words"] == 0 and "not well-formed XML" in rec["error"]
    assert "Traceback" not in res.output


def run(*args: str):
    return runner.invoke(app, list(args))


def _records(res) -> list[dict]:
    return [json.loads(x) for x in res.stdout.splitlines()]
