"""RTF documents read as the Markdown their formatting shows (whowrote.style.rtf_reader): pandoc's RTF
(tests/fixtures/documents), a document in TextEdit's layout and one in Word's (written out here:
neither program runs in the test), hostile input in linear time, and `whowrote predict` on a file,
stdin and a folder."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from test_docx_reader import MD
from typer.testing import CliRunner

from whowrote.cli import app
from whowrote.style.documents import RTF_WARNING, document_to_markdown
from whowrote.style.rtf_reader import rtf_markdown

runner = CliRunner()
PANDOC = Path(__file__).resolve().parents[1] / "fixtures" / "documents" / "pandoc-3.9.rtf"


def test_pandocs_rtf_reads_back_as_the_markdown_it_shows():
    """pandoc joins a paragraph's soft break and keeps no code language; the rest comes back."""
    expected = MD.replace(").\nA soft break.", "). A soft break.").replace("|---|---|", "| --- | --- |").replace(
        "```python", "```").strip()
    assert document_to_markdown(PANDOC) == (expected, RTF_WARNING)
    assert document_to_markdown(PANDOC.read_bytes())[0] == expected


def test_a_loose_list_stays_loose():
    """pandoc 3.9's RTF body of "- first item\\n\\n- second item\\n\\n- third item\\n\\nAfter.": every item
    of a loose list is spaced after (\\sa180); a tight list's last item only, which spaces nothing."""
    loose = ("{\\rtf1 {\\pard \\ql \\f0 \\sa180 \\li360 \\fi-360 \\bullet \\tx360\\tab first item\\par}\n"
             "{\\pard \\ql \\f0 \\sa180 \\li360 \\fi-360 \\bullet \\tx360\\tab second item\\par}\n"
             "{\\pard \\ql \\f0 \\sa180 \\li360 \\fi-360 \\bullet \\tx360\\tab third item\\sa180\\par}\n"
             "{\\pard \\ql \\f0 \\sa180 \\li0 \\fi0 After.\\par}}")
    assert rtf_markdown(loose) == "- first item\n\n- second item\n\n- third item\n\nAfter."
    assert rtf_markdown(loose.replace("\\sa180 \\li360", "\\sa0 \\li360")) == "- first item\n- second item\n- third item\n\nAfter."


# TextEdit's layout (Cocoa RTF): a font table without braces per font, a bold face of its own, a list
# table, list items marked by {\listtext ...} groups, paragraphs ended by a backslash and a line break,
# headings that are only larger bold type, Unicode escapes with \uc0
TEXTEDIT = r"""{\rtf1\ansi\ansicpg1252\cocoartf2761
\cocoatextscaling0\cocoaplatform0{\fonttbl\f0\fswiss\fcharset0 Helvetica;\f1\fswiss\fcharset0 Helvetica-Bold;\f2\fmodern\fcharset0 Courier;
}
{\colortbl;\red255\green255\blue255;}
{\*\expandedcolortbl;;}
{\*\listtable{\list\listtemplateid1\listhybrid{\listlevel\levelnfc23\levelnfcn23\leveljc0\leveljcn0\levelfollow0\levelstartat1\levelspace360\levelindent0{\*\levelmarker \{disc\}}{\leveltext\leveltemplateid1\'01\uc0\u8226 ;}{\levelnumbers;}\fi-360\li720\lin720 }{\listname ;}\listid1}}
{\*\listoverridetable{\listoverride\listid1\listoverridecount0\ls1}}
\paperw11900\paperh16840\margl1440\margr1440\vieww11520\viewh8400\viewkind0
\pard\tx566\tx1133\pardirnatural\partightenfactor0

\f1\b\fs36 \cf0 A plan for the garden\
\pard\tx566\tx1133\pardirnatural\partightenfactor0

\f0\b0\fs24 \cf0 Start small, and let the soil tell you what it wants. I\uc0\u8217 d begin with
\f1\b  three beds
\f0\b0 :\
\pard\tx220\tx720\pardeftab720\li720\fi-720\pardirnatural\partightenfactor0
\ls1\ilvl0\cf0 {\listtext	\uc0\u8226 	}herbs by the door\
{\listtext	\uc0\u8226 	}beans along the fence\
\pard\tx566\tx1133\pardirnatural\partightenfactor0
\cf0 \
Water in the morning, not at night.\
\pard\tx566\pardirnatural\partightenfactor0

\f2 \cf0 water(beds, litres=10)\
}"""
TEXTEDIT_MD = ("# A plan for the garden\n\nStart small, and let the soil tell you what it wants. I\u2019d begin with "
               "**three beds**:\n\n- herbs by the door\n- beans along the fence\n\nWater in the morning, not at night.\n\n"
               "```\nwater(beds, litres=10)\n```")

# Word's layout: a style sheet, document info and theme data before the body, headings by outline
# level, list items marked by {\listtext ...} groups in the Symbol font (\'b7), a nested level, a table
# whose cells end with \cell and no \par, a hyperlink field, cp1252 bytes and a \u escape's fallback
WORD = r"""{\rtf1\adeflang1025\ansi\ansicpg1252\uc1\adeff31507\deff0{\fonttbl{\f0\froman\fcharset0\fprq2 Times New Roman;}
{\f3\fbidi \froman\fcharset2\fprq2 Symbol;}{\f11\fmodern\fcharset0 Courier New;}}
{\colortbl;\red0\green0\blue0;}{\*\defchp \fs22}{\stylesheet{\ql \li0\ri0 \fs22 \snext0 Normal;}{\s1\ql \outlinelevel0 \b\fs32 \sbasedon0 \snext0 heading 1;}}
{\*\rsidtbl \rsid1}{\info{\title Notes}{\author A. Writer}}{\*\themedata 504b030414000600080000002100e9de0f}
{\*\xmlnstbl {\xmlns1 http://schemas.microsoft.com/office/word/2003/wordml}}
\pard\plain \s1\ql \outlinelevel0 \b\fs32 Notes on the caf\'e9\par
\pard\plain \ql \fs22 The owner\u8217\'92s rule: {\b no laptops} at lunch, and {\i always} a {\field{\*\fldinst {HYPERLINK "https://example.org/menu"}}{\fldrslt {\ul menu}}} on the table.\par
{\listtext\pard\plain \f3\fs22 \'b7\tab}\pard\plain \ls1\ilvl0 \fi-360\li720 \fs22 coffee until eleven\par
{\listtext\pard\plain \f11\fs22 o\tab}\pard\plain \ls1\ilvl1 \fi-360\li1440 \fs22 then tea\par
\trowd \cellx3000\cellx6000
\pard\plain \intbl \fs22 Day\cell Open\cell \row
\trowd \cellx3000\cellx6000
\pard\plain \intbl \fs22 Monday\cell 8\cell \row
\pard\plain \fs22 See you there.\par}"""
WORD_MD = ("# Notes on the caf\u00e9\n\nThe owner\u2019s rule: **no laptops** at lunch, and *always* a "
           "[menu](https://example.org/menu) on the table.\n\n- coffee until eleven\n  - then tea\n\n"
           "| Day | Open |\n| --- | --- |\n| Monday | 8 |\n\nSee you there.")


def test_a_textedit_document_reads_as_its_markdown():
    assert rtf_markdown(TEXTEDIT) == TEXTEDIT_MD


def test_a_word_document_reads_as_its_markdown():
    assert rtf_markdown(WORD) == WORD_MD
    assert rtf_markdown(WORD.encode("ascii")) == WORD_MD


def test_a_character_beyond_the_bmp_reads_as_itself():
    """Pandoc, Word and TextEdit write an emoji as two \\uN, its UTF-16 surrogates (pandoc: the
    fallback after a space); a lone half is one replacement character, not a pairing with a later one."""
    assert rtf_markdown("{\\rtf1\\ansi\\uc1 Ship it \\u55357 ?\\u56960 ? today.}") == "Ship it 🚀 today."
    assert rtf_markdown("{\\rtf1\\ansi\\uc1 Go \\u55357?x and \\u56960?.}") == "Go \ufffdx and \ufffd."
    assert rtf_markdown("{\\rtf1\\ansi\\uc1 \\u-10179?\\u-8704?}") == "😀"  # (negative: a signed 16-bit value)



def test_8_bit_text_written_raw_reads_in_the_documents_code_page():
    """Outlook's rich-text mails write cp1252 quotes as raw bytes, not as \\'93; a file's bytes are read
    in its \\ansicpg (a pasted source is text already)."""
    assert rtf_markdown(b"{\\rtf1\\ansi\\ansicpg1252 \x93Well,\x94 caf\xe9.}") == "\u201cWell,\u201d caf\u00e9."
    assert rtf_markdown(b"{\\rtf1\\ansi\\ansicpg1251 \xcf\xf0\xe8\xe2\xe5\xf2}") == "\u041f\u0440\u0438\u0432\u0435\u0442"
    assert rtf_markdown("{\\rtf1\\ansi caf\u00e9 \u201cok\u201d}") == "caf\u00e9 \u201cok\u201d"


def test_double_byte_code_pages_and_a_fonts_character_set():
    """A Chinese document in \\ansicpg936 writes each character as two \\'xx bytes (read alone, each
    was a replacement character: striprtf's test documents); Word writes Cyrillic or Chinese runs in
    a font whose \\fcharset names their code page while the document says \\ansicpg1252."""
    assert rtf_markdown(b"{\\rtf1\\ansi\\ansicpg936 \\'b2\\'e2\\'ca\\'d4: ok}") == "\u6d4b\u8bd5: ok"
    word = (b"{\\rtf1\\ansi\\ansicpg1252{\\fonttbl{\\f0 Arial;}{\\f1\\fcharset204 Arial CYR;}{\\f2\\fcharset134 SimSun;}}"
            b"\\f0 caf\\'e9 {\\f1 \\'cf\\'f0\\'e8\\'e2\\'e5\\'f2} {\\f2 \\'b2\\'e2\\'ca\\'d4}\\par}")
    assert rtf_markdown(word) == "caf\u00e9 \u041f\u0440\u0438\u0432\u0435\u0442 \u6d4b\u8bd5"

HOSTILE = {"groups": "{\\rtf1 " + "{" * 1_000_000 + "deep" + "}" * 1_000_000 + "}",
           "unclosed": "{\\rtf1 " + "{\\b " * 300_000 + "text",
           "words": "{\\rtf1 " + "\\" + "a" * 1_000_000 + " text}",
           "bin": "{\\rtf1 {\\pict\\bin999999999 " + "x" * 100_000 + "}} after}",
           "escapes": "{\\rtf1 " + "\\'e9\\u8217?" * 200_000 + "}",
           "broken_escapes": "{\\rtf1 caf\\'zz " + "\\'" * 100_000 + "}"}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_rtf_stays_linear(name):
    t0 = time.perf_counter()
    out = rtf_markdown(HOSTILE[name])
    assert time.perf_counter() - t0 < 10
    assert ("deep" in out) if name == "groups" else out.startswith("caf?") if name == "broken_escapes" else True


def test_predict_reads_an_rtf_file_stdin_and_folder(tmp_path):
    (tmp_path / "plan.rtf").write_text(TEXTEDIT)
    (tmp_path / "plan.md").write_text(TEXTEDIT_MD)
    found = [json.loads(x) for x in runner.invoke(app, ["predict", str(tmp_path), "--jsonl"]).stdout.splitlines()]
    assert [Path(r["path"]).name for r in found] == ["plan.md", "plan.rtf"]
    assert found[1]["warnings"][0] == RTF_WARNING and found[0]["probabilities"] == found[1]["probabilities"]
    via_stdin = runner.invoke(app, ["predict", "-", "--jsonl"], input=TEXTEDIT.encode())
    assert json.loads(via_stdin.stdout)["probabilities"] == found[1]["probabilities"]
