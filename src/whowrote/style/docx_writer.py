"""Markdown written into a Word document (.docx) as an assistant's rendered answer looks once pasted
into Word: headings in ``Heading N`` styles, list items in ``List Bullet`` / ``List Number`` (``2``,
``3`` nested), quotes in ``Quote``, bold, italic, code in Courier New, hyperlinks, tables as Word
tables; a soft line break is a space (as the browser showed it), a rule is not text.

The robustness suite's ``docx_file`` edit writes a text this way and reads it back with
:func:`whowrote.style.docx_reader.docx_to_markdown`, as ``whowrote predict`` reads a ``.docx``
(docs/predict.md, "Word documents"). Uses python-docx (the ``[data]`` extra) and markdown-it.
"""

from __future__ import annotations

import io
from typing import Any

from whowrote.formats import install_hint

_MONO = "Courier New"


def _hyperlink(paragraph: Any, url: str) -> Any:
    """A ``w:hyperlink`` element to the URL, appended to the paragraph (python-docx has no call for it)."""
    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    rid = paragraph.part.relate_to(url, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), rid)
    paragraph._p.append(link)
    return link


def _add_run(paragraph: Any, text: str, bold: bool, italic: bool, mono: bool, link: Any) -> None:
    run = paragraph.add_run(text)
    run.bold, run.italic = bold or None, italic or None
    if mono:
        run.font.name = _MONO
    if link is not None:  # move the run into the hyperlink element
        link.append(run._r)


def _inline(paragraph: Any, token: Any) -> None:
    """An inline token's children as runs of the paragraph."""
    bold = italic = 0
    link = None
    for child in token.children or ():
        kind = child.type
        if kind == "text" or kind == "html_inline":
            _add_run(paragraph, child.content, bold > 0, italic > 0, False, link)
        elif kind == "code_inline":
            _add_run(paragraph, child.content, bold > 0, italic > 0, True, link)
        elif kind == "softbreak":
            _add_run(paragraph, " ", False, False, False, link)
        elif kind == "hardbreak":
            paragraph.add_run().add_break()
        elif kind in ("strong_open", "strong_close"):
            bold += 1 if kind.endswith("open") else -1
        elif kind in ("em_open", "em_close"):
            italic += 1 if kind.endswith("open") else -1
        elif kind == "link_open":
            link = _hyperlink(paragraph, str(child.attrGet("href") or ""))
        elif kind == "link_close":
            link = None
        elif kind == "image":
            _add_run(paragraph, child.content, bold > 0, italic > 0, False, link)


def markdown_docx(text: str) -> bytes:
    """The Markdown as a ``.docx`` file's bytes (module docstring)."""
    try:
        import docx
    except ImportError:
        raise ImportError(f"writing a Word document needs python-docx: {install_hint('data')}") from None
    from whowrote.formats import markdown_parser

    document = docx.Document()
    lists: list[str] = []  # "bullet" / "ordered", innermost last
    quotes = 0
    first_in_item = False
    paragraph: Any = None  # where the next inline token is written
    table: list[list[Any]] | None = None  # a table's rows of cell tokens, written when it closes
    for tok in markdown_parser().parse(text):
        kind = tok.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            lists.append("bullet" if kind.startswith("bullet") else "ordered")
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open":
            first_in_item = True
        elif kind == "blockquote_open":
            quotes += 1
        elif kind == "blockquote_close":
            quotes -= 1
        elif kind == "heading_open":
            paragraph = document.add_paragraph(style=f"Heading {min(int(tok.tag[1]), 9)}")
        elif kind == "paragraph_open":
            depth = min(len(lists), 3)
            if lists and first_in_item:
                name = "List Bullet" if lists[-1] == "bullet" else "List Number"
                style = name if depth == 1 else f"{name} {depth}"
            elif lists:
                style = "List Continue" if depth == 1 else f"List Continue {depth}"
            else:
                style = "Quote" if quotes else None
            first_in_item = False
            paragraph = document.add_paragraph(style=style)
        elif kind == "inline":
            if table is not None:
                table[-1].append(tok)
            else:
                _inline(paragraph, tok)
        elif kind in ("fence", "code_block"):
            for line in tok.content.rstrip("\n").split("\n"):
                document.add_paragraph().add_run(line).font.name = _MONO
        elif kind == "html_block":
            document.add_paragraph(tok.content.strip())
        elif kind == "table_open":
            table = []
        elif kind == "tr_open" and table is not None:
            table.append([])
        elif kind == "table_close" and table is not None:
            width = max((len(r) for r in table), default=0)
            if table and width:
                grid = document.add_table(rows=len(table), cols=width)
                for r, cells in enumerate(table):
                    for c, cell in enumerate(cells):
                        _inline(grid.cell(r, c).paragraphs[0], cell)
            table = None
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()
