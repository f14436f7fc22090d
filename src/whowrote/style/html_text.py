"""Text-level helpers of the HTML reader (:mod:`whowrote.style.html_reader`): the page's source made
safe for ``html.parser`` (:func:`defuse`), a run of text's spaces as a browser shows them
(:func:`shown_spaces`), a code block's language from its classes (:func:`code_language`), how
many of the last pieces written are blank (:func:`blank_tail`), and the Markdown of a closed list
item (:func:`indent`) and table (:func:`table_text`). All linear in their input.
"""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")


def defuse(html: str) -> str:
    """``html`` with every ``<`` that ``html.parser`` would rescan from escaped as ``&lt;``
    (which the parser turns back into a visible ``<``): one with no ``>`` before the next ``<``,
    an unclosed ``<!--``, and ``<![`` (marked sections, never visible prose); a processing
    instruction (``<?xml ...?>``) and Word's ``<![if !supportLists]>`` / ``<![endif]>`` are dropped
    (a browser shows what the latter hold). One pass over the pieces between ``<``s, so linear."""
    pieces = html.split("<")
    out = [pieces[0]]
    inside_until = -1  # the '<'s before this offset are inside a comment that is closed
    no_close_from = len(html) + 1  # there is no "-->" at or after this offset
    pos = len(pieces[0])  # offset of the '<' before the current piece
    for p in pieces[1:]:
        if pos < inside_until:
            out.append("<" + p)
        elif p.startswith("!--"):
            end = html.find("-->", pos + 4) if pos < no_close_from else -1
            if end < 0:
                no_close_from = min(no_close_from, pos)
                out.append("&lt;" + p)
            else:
                inside_until = end
                out.append("<" + p)
        elif p.startswith(("![if ", "![endif]")) and ">" in p:  # Word's "downlevel-revealed" conditions: a browser shows what they hold
            out.append(p[p.index(">") + 1:])
        elif ">" not in p or p.startswith("!["):
            out.append("&lt;" + p)
        elif p.startswith("?"):  # an XML declaration (an XHTML file's, an e-book's chapter): not shown
            out.append(p[p.index(">") + 1:])
        else:
            out.append("<" + p)
        pos += 1 + len(p)
    return "".join(out)


def shown_spaces(data: str, wrapped: bool = False) -> str:
    """Text as shown: each run of spaces and tabs one space, the line breaks of the source kept
    (a Markdown source's single line breaks survive rendering as such) with no spaces around them;
    ``wrapped`` (a source wrapped at a fixed width): its line breaks are spaces too."""
    if wrapped or "\n" not in data:
        return _SPACE.sub(" ", data)
    first, *middle, last = data.split("\n")
    return "\n".join([_SPACE.sub(" ", first).rstrip(" "), *(" ".join(line.split()) for line in middle),
                      _SPACE.sub(" ", last).lstrip(" ")])


def code_language(classes: str) -> str:
    """``x`` of a ``language-x`` class (what Markdown renderers give a fenced block's code) or of
    ``sourceCode x`` (pandoc's), else ""."""
    names = classes.split()
    if "sourceCode" in names:
        return next((c for c in names if c != "sourceCode" and c.isalnum()), "")
    return next((c[9:] for c in names if c.startswith("language-") and c[9:].isalnum()), "")


def blank_tail(parts: list[str], most: int = 8) -> int:
    """How many of the last parts written (at most ``most``: bounded work per closing tag) are
    empty or whitespace (a no-break space too)."""
    n = 0
    while n < min(most, len(parts)) and not parts[-1 - n].strip():
        n += 1
    return n


def indent(text: str, marker: str) -> str:
    """``text`` after a list marker: its later lines indented under the item's first."""
    pad = " " * len(marker)
    lines = text.split("\n")
    return marker + "\n".join([lines[0], *(pad + line if line else line for line in lines[1:])])


def table_text(rows: list[tuple[list[str], bool]], layout: bool, stray: str, around: str) -> str:
    """A closed table as Markdown: a grid of its ``rows`` (each its cells' text and whether any is a
    ``<th>``; a header rule under a first row of ``<th>``), or, for a table that lays a page out
    (``layout``: ``role="presentation"`` or a table inside a cell; or one column and no header: an
    email's or an old page's layout), its cells' text as blocks.
    ``stray``: text written in the table outside its rows; ``around``: the breaks before and after it."""
    if layout or (rows and all(len(cells) <= 1 for cells, _ in rows) and not any(h for _, h in rows)):
        blocks = [cell.strip("\n ") for cells, _ in rows for cell in cells]
        return around + "\n\n".join(b for b in [stray.strip("\n "), *blocks] if b) + around
    lines = [stray.strip("\n")] if stray.strip() else []
    for i, (cells, header) in enumerate(rows):
        lines.append("|" + "".join(" " + " ".join(c.split()) + " |" for c in cells))
        if i == 0 and header and cells:
            lines.append("|" + " --- |" * len(cells))
    return around + "\n".join(lines) + around
