"""Outlook messages (.msg) read as the text their sender wrote (whowrote.style.msg_reader,
whowrote.style.rtf_html): compressed RTF against [MS-OXRTFCP]'s own examples; an HTML mail kept only
as RTF-encapsulated HTML (what Outlook saves), one with its HTML body property, a rich-text mail, a
plain one and an 8-bit one; a reply's quoted block left out; other Compound Files, broken and
oversized ones one line; `whowrote predict` and the page's /v1/read-document on a .msg.

The messages are Compound Files written by whowrote.style.msg_writer with the property streams
[MS-OXMSG] names (Outlook does not run here); the module docstring of msg_reader says which
properties are read. HTML_RTF is written out by hand as Outlook lays an HTML mail out
([MS-OXRTFEX]: htmltag groups, \\htmlrtf fences around the RTF-only twin of each part)."""

from __future__ import annotations

import json
import struct
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from whowrote.cli import app
from whowrote.style import msg_reader
from whowrote.style.documents import document_to_markdown
from whowrote.style.msg_writer import compound_file, compress_rtf, encapsulate_html, outlook_message
from whowrote.style.office_xml import DocumentError
from whowrote.style.rtf_html import decompress_rtf, encapsulated_html

runner = CliRunner()

# [MS-OXRTFCP] 3.1.1 and 3.1.2: a simple compressed RTF, and a reference that crosses the write position
SPEC_SIMPLE = bytes.fromhex("2d0000002b0000004c5a4675f1c5c7a703000a00726370673132354232 0af32068656c09002062770"
                            "5b06c647d0a800fa0".replace(" ", ""))
SPEC_CROSSING = bytes.fromhex("1a0000001c0000004c5a4675e2d44b51410004205758595a0d6e7d010eb0")

HTML_RTF = r"""{\rtf1\ansi\ansicpg1252\fromhtml1 \fbidis \deff0{\fonttbl
{\f0\fswiss Arial;}
{\f1\fmodern Courier New;}}
{\colortbl\red0\green0\blue0;\red5\green99\blue193;}
\uc1\pard\plain\deftab360 \f0\fs24
{\*\htmltag19 <html>}
{\*\htmltag34 <head>}
{\*\htmltag1 <meta http-equiv="Content-Type" content="text/html; charset=utf-8">}
{\*\htmltag41 </head>}
{\*\htmltag50 <body>}\htmlrtf {\htmlrtf0
{\*\htmltag64 <h2>}\htmlrtf {\b\fs32 \htmlrtf0 Caf\'e9 notes\htmlrtf }\htmlrtf0
{\*\htmltag72 </h2>}\htmlrtf \par \htmlrtf0
{\*\htmltag64 <p>}\htmlrtf {\htmlrtf0 Dear Sam, it\u8217?s {\*\htmltag84 <b>}\htmlrtf {\b \htmlrtf0 settled\htmlrtf }\htmlrtf0 {\*\htmltag92 </b>}: 3 {\*\htmltag84 &lt;}\htmlrtf <\htmlrtf0  5.\htmlrtf }\htmlrtf0
{\*\htmltag72 </p>}\htmlrtf \par \htmlrtf0
{\*\mhtmltag84 <img src="cid:logo">}{\*\htmltag84 <img src="logo.png">}
{\*\htmltag64 <ul>}{\*\htmltag64 <li>}\htmlrtf {\pntext\'b7\tab}\htmlrtf0 bread{\*\htmltag72 </li>}{\*\htmltag64 <li>}milk{\*\htmltag72 </li>}{\*\htmltag72 </ul>}
{\*\htmltag64 <p>}Jo{\*\htmltag72 </p>}\htmlrtf }\htmlrtf0
{\*\htmltag58 </body>}
{\*\htmltag27 </html>}}"""
HTML_MARKDOWN = "## Café notes\n\nDear Sam, it’s **settled**: 3 < 5.\n\n- bread\n- milk\n\nJo"


def message(html: bytes | None = None, rtf: bytes | None = None, **more) -> bytes:
    """A .msg with ``html`` as its HTML body property and ``rtf`` as its compressed RTF body."""
    return outlook_message(rtf=rtf, html_property=html, **more)


def test_compressed_rtf_reads_as_the_specification_examples():
    assert decompress_rtf(SPEC_SIMPLE) == b"{\\rtf1\\ansi\\ansicpg1252\\pard hello world}\r\n"
    assert decompress_rtf(SPEC_CROSSING) == b"{\\rtf1 WXYZWXYZWXYZWXYZWXYZ}"
    assert decompress_rtf(compress_rtf(HTML_RTF.encode())) == HTML_RTF.encode()
    stored = struct.pack("<IIII", 17, 5, 0x414C454D, 0) + b"{\\rtf}"
    assert decompress_rtf(stored) == b"{\\rtf"
    with pytest.raises(DocumentError, match="unknown compression"):
        decompress_rtf(struct.pack("<IIII", 12, 5, 0x1234, 0))


def test_an_html_mail_kept_as_encapsulated_rtf_reads_as_its_html():
    """Outlook's usual .msg: no HTML property, the HTML inside the compressed RTF body. The RTF-only
    parts (the bullet's \\pntext, the bold run's RTF twin, the header tables) and the mhtmltag copy
    are left out; the code page's \\'e9 and a \\u character with its fallback read as one letter."""
    html = encapsulated_html(HTML_RTF.encode())
    assert "Caf\u00e9 notes</h2>" in html and "\\" not in html and "Arial" not in html and "cid:logo" not in html
    text, warning = document_to_markdown(message(rtf=HTML_RTF.encode(), plain="Cafe notes\r\n\r\nDear Sam ..."))
    assert text == HTML_MARKDOWN
    assert warning == ("an Outlook message: its HTML body was attributed, with its headings, lists and emphasis "
                       "read as Markdown (not its headers or attachments)")


def test_html_encapsulated_by_the_writer_reads_back_exactly():
    """msg_writer's encapsulation (the email benchmark's Outlook reading) gives the reader its HTML
    back: tags, escapes, a character beyond the BMP; a line break in the source as CRLF."""
    page = '<div dir="ltr"><h2>Café 😀</h2><p>a {b} \\ c<br>d</p>\n<ul><li>x</li></ul></div>'
    assert encapsulated_html(encapsulate_html(page)) == page.replace("\n", "\r\n")
    assert document_to_markdown(outlook_message(html=page))[0] == "## Café 😀\n\na {b} \\ c\nd\n\n- x"


def test_the_html_body_property_is_read_first_in_its_code_page_and_a_reply_keeps_only_the_new_text():
    reply = ("<html><body><p>Thanks – I’ll send the <i>final</i> draft today.</p><div style='border-top:solid 1pt'>"
             "<p><b>From:</b> Sam<br><b>Sent:</b> Monday<br><b>To:</b> Jo</p></div><p>Could you send the draft?</p>"
             "</body></html>")
    raw = message(html=reply.encode("utf-8"), rtf=b"{\\rtf1\\ansi\\fromhtml1 {\\*\\htmltag <p>}other}", plain="other",
                  longs={msg_reader.INTERNET_CODEPAGE: 65001})
    text, warning = document_to_markdown(raw)
    assert text == "Thanks – I’ll send the *final* draft today."
    assert warning.endswith("(not its headers or attachments); the quoted message below it left out")
    latin = "<p>Caf\xe9 cr\xe8me</p>".encode("cp1252")
    assert document_to_markdown(message(html=latin))[0] == "Café crème"  # (no code page: UTF-8 fails, Windows-1252)
    assert document_to_markdown(message(html=b'<meta charset="koi8-r"><p>\xf0\xd2\xc9\xd7\xc5\xd4</p>'))[0] == "Привет"


def test_rich_text_plain_and_8_bit_bodies():
    rich = b"{\\rtf1\\ansi{\\fonttbl{\\f0 Arial;}}\\f0\\fs24 {\\b Plans} for the week.\\par Then rest.\\par}"
    text, warning = document_to_markdown(message(rtf=rich, plain="Plans for the week.\r\nThen rest."))
    assert (text, warning.split(",")[0]) == ("**Plans** for the week.\n\nThen rest.", "an Outlook message: its rich-text body was attributed")
    from_text = b"{\\rtf1\\ansi\\fromtext \\pard plain mail\\par}"
    text, warning = document_to_markdown(message(rtf=from_text, plain="A plain mail.\r\nIts second line.\r\n\r\n-- \r\nJo"))
    assert text == "A plain mail.\nIts second line."
    assert warning == "an Outlook message: its text body was attributed (not its headers or attachments); the signature left out"
    empty_html = b"{\\rtf1\\ansi\\fromhtml1 {\\*\\htmltag <html><body>}{\\*\\htmltag </body></html>}}"
    assert document_to_markdown(message(rtf=empty_html, plain="The body is here."))[0] == "The body is here."  # (the next body with text)
    cyrillic = document_to_markdown(message(plain8="Привет, мир".encode("cp1251"), longs={msg_reader.MESSAGE_CODEPAGE: 1251}))
    assert cyrillic[0] == "Привет, мир"


def test_other_compound_files_and_broken_messages_are_one_line(monkeypatch):
    cases = {
        compound_file({"WordDocument": b"\x00" * 600, "1Table": b"\x00" * 100}): "a Compound File whose WordDocument stream is not a Word document's",
        compound_file({"Workbook": b"\x00" * 100}): "an old-style Excel workbook (.xls), not a text",
        compound_file({"Contents": b"x"}): "an Office compound file that is not an Outlook message, Word, Excel or PowerPoint file",
        message(): "an Outlook message with no text body",
        message(plain="hello " * 100)[:2000]: "an Office compound file (an Outlook .msg, an old .doc) that cannot be read (OleFileError: incomplete OLE sector)",
        message(plain="hello")[:512] + b"\xff" * 3072: "an Office compound file that is not an Outlook message",
    }
    for raw, reason in cases.items():
        with pytest.raises(DocumentError) as e:
            document_to_markdown(raw)
        assert str(e.value).startswith(reason), (str(e.value), reason)
        assert "\n" not in str(e.value)
    monkeypatch.setattr(msg_reader, "MAX_STREAM_BYTES", 100)
    with pytest.raises(DocumentError, match="a body over"):
        document_to_markdown(message(plain="a long body " * 20))


def test_hostile_rtf_bodies_stay_linear_and_capped():
    t0 = time.perf_counter()
    assert encapsulated_html(b"{\\rtf1\\fromhtml1 " + b"{" * 1_000_000 + b"x" + b"}" * 1_000_000 + b"}") == "x"
    claims_much = struct.pack("<IIII", 20, 2**31, 0x75465A4C, 0) + b"\xff" + b"\x00\x0f" * 8  # 8 references of 17 bytes
    assert len(decompress_rtf(claims_much)) == 8 * 17  # (the output is what the input holds, not what it claims)
    assert time.perf_counter() - t0 < 20


def test_predict_reads_a_msg_file_a_folder_and_stdin_and_the_page_reads_one(tmp_path):
    raw = message(rtf=HTML_RTF.encode())
    (tmp_path / "notes.msg").write_bytes(raw)
    (tmp_path / "notes.md").write_text(HTML_MARKDOWN)
    (tmp_path / "old.msg").write_bytes(compound_file({"Workbook": b"\x00" * 600}))
    result = runner.invoke(app, ["predict", str(tmp_path), "--jsonl"])
    rows = [json.loads(x) for x in result.stdout.splitlines()]
    assert [Path(r["path"]).name for r in rows] == ["notes.md", "notes.msg", "old.msg"]
    assert rows[0]["probabilities"] == rows[1]["probabilities"]
    assert rows[1]["warnings"][0].startswith("an Outlook message: its HTML body was attributed")
    assert "an old-style Excel workbook (.xls), not a text" in rows[2]["error"]
    assert result.exit_code == 3  # (some inputs could not be read)
    alone = runner.invoke(app, ["predict", str(tmp_path / "old.msg")])
    assert alone.exit_code != 0 and "Traceback" not in alone.output
    via_stdin = runner.invoke(app, ["predict", "-", "--jsonl"], input=raw)
    assert json.loads(via_stdin.stdout)["probabilities"] == rows[0]["probabilities"]


def test_the_fixture_is_what_this_test_writes():
    """tests/fixtures/documents/written-outlook-html.msg (the page's browser test opens it) is this
    module's HTML mail, byte for byte."""
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "documents" / "written-outlook-html.msg"
    assert fixture.read_bytes() == message(rtf=HTML_RTF.encode())


def test_the_page_reads_a_dropped_msg():
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from whowrote.serve.app import create_app

    client = TestClient(create_app())
    r = client.post("/v1/read-document", content=message(rtf=HTML_RTF.encode()),
                    headers={"Content-Type": "application/vnd.ms-outlook"})
    assert r.status_code == 200 and r.json()["text"] == HTML_MARKDOWN
    bad = client.post("/v1/read-document", content=message(), headers={"Content-Type": "application/vnd.ms-outlook"})
    assert bad.status_code == 422 and bad.json()["error"] == "an Outlook message with no text body"


def test_the_writers_files_read_back_with_olefile():
    """The test writer's files read back with olefile (the library whowrote reads them with) with
    no defect raised, streams under and over the mini-stream cutoff alike."""
    import io

    import olefile

    streams = {"small": b"abc", "big": bytes(range(256)) * 20, "empty": b""}
    with olefile.OleFileIO(io.BytesIO(compound_file(streams)), raise_defects=olefile.DEFECT_INCORRECT) as ole:
        assert {name: ole.openstream(name).read() for name in streams} == streams
