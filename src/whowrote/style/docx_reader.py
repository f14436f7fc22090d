"""Word documents (.docx) read as the Markdown their formatting shows (an essay drafted in Word or
Google Docs, an assistant's answer pasted into one).

A ``.docx`` is a ZIP of XML parts; its text sits in ``word/document.xml`` with no Markdown marks, the
structure in its styles and numbering. As :mod:`whowrote.style.html_reader` does for a page, each
paragraph is written as the Markdown that renders to it: a heading style (``Heading 2``, an outline
level) as ``## ``, a numbered or bulleted paragraph (its own numbering or its style's) as ``1. `` or
``- ``, bold and italic runs as ``**`` and ``*``, runs in a monospaced font as ``code`` (a paragraph
all in one as a fenced line), a ``Quote`` style as ``> ``, table rows as ``| a | b |``, hyperlinks as
``[text](url)``. Tracked deletions, field codes, headers, footers, footnotes and drawings are not
the writing and are left out. Standard library only (``zipfile``, ``xml.etree``); what the Word and
OpenDocument readers share (size caps, DTDs refused, inline marks, the blocks' layout) is in
:mod:`whowrote.style.office_xml`. The style chain and numbering levels are bounded, so reading is
linear in the parts' size.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

from whowrote.style.office_xml import (
    Block,
    DocumentError,
    Run,
    fence_code,
    header_rule,
    inherit,
    inline_markdown,
    is_mono,
    join_blocks,
    open_zip,
    read_part,
    table_row,
)

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_REL_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
DOCUMENT = "word/document.xml"
WORD = "a Word document"  # how reasons name it
_HEADING_NAME = re.compile(r"heading ([1-9])")
_LIST_DEPTH = re.compile(r"list (?:bullet|number|continue|paragraph) ([2-9])")
_OFF = ("0", "false", "off", "none")


@dataclass(frozen=True)
class _Style:
    name: str = ""
    heading: int = 0  # 1-9: a heading level
    num: tuple[str, int] | None = None  # (numId, ilvl) the style numbers its paragraphs with
    bold: bool = False
    italic: bool = False
    mono: bool = False


def _on(el: ET.Element | None) -> bool:
    """A toggle property (``<w:b/>``, ``<w:b w:val="0"/>``): present and not switched off."""
    return el is not None and el.get(f"{W}val", "1").lower() not in _OFF


def _mono(rpr: ET.Element | None) -> bool:
    fonts = rpr.find(f"{W}rFonts") if rpr is not None else None
    return fonts is not None and is_mono(fonts.get(f"{W}ascii") or fonts.get(f"{W}hAnsi") or "")


def _styles(root: ET.Element | None) -> dict[str, _Style]:
    """Style id -> its resolved style (``basedOn`` followed for headings, numbering and fonts)."""
    raw: dict[str, tuple[str | None, dict[str, object]]] = {}
    for st in root.iter(f"{W}style") if root is not None else ():
        sid = st.get(f"{W}styleId")
        if not sid:
            continue
        name_el, based = st.find(f"{W}name"), st.find(f"{W}basedOn")
        ppr, rpr = st.find(f"{W}pPr"), st.find(f"{W}rPr")
        name = (name_el.get(f"{W}val", "") if name_el is not None else "").lower()
        props: dict[str, object] = {"name": name}
        named = _HEADING_NAME.fullmatch(name)
        level = int(named.group(1)) if named else 1 if name == "title" else _outline(ppr)
        if level:
            props["heading"] = level
        num = _num_pr(ppr)
        if num is not None:
            props["num"] = num
        if rpr is not None:
            for key, tag in (("bold", "b"), ("italic", "i")):
                if rpr.find(f"{W}{tag}") is not None:
                    props[key] = _on(rpr.find(f"{W}{tag}"))
            if rpr.find(f"{W}rFonts") is not None:
                props["mono"] = _mono(rpr)
        raw[sid] = (based.get(f"{W}val") if based is not None else None, props)
    return {sid: _Style(chain[0], int(merged.get("heading", 0)), merged.get("num"),  # type: ignore[call-overload,arg-type]
                        bool(merged.get("bold")), bool(merged.get("italic")), bool(merged.get("mono")))
            for sid, (merged, chain) in inherit(raw).items()}


def _outline(ppr: ET.Element | None) -> int:
    """The heading level an outline level gives a paragraph (``w:outlineLvl`` 0-8), 0 for body text."""
    outline = ppr.find(f"{W}outlineLvl") if ppr is not None else None
    val = outline.get(f"{W}val", "") if outline is not None else ""
    return int(val) + 1 if val.isdigit() and int(val) < 9 else 0


def _num_pr(ppr: ET.Element | None) -> tuple[str, int] | None:
    num = ppr.find(f"{W}numPr") if ppr is not None else None
    if num is None:
        return None
    num_id, ilvl = num.find(f"{W}numId"), num.find(f"{W}ilvl")
    nid = num_id.get(f"{W}val", "") if num_id is not None else ""
    lvl = ilvl.get(f"{W}val", "0") if ilvl is not None else "0"
    return (nid, min(int(lvl), 8) if lvl.isdigit() else 0)


def _numbering(root: ET.Element | None) -> dict[str, dict[int, str]]:
    """numId -> {level: its number format} ("bullet", "decimal", "none", ...)."""
    if root is None:
        return {}
    abstract = {}
    for ab in root.iter(f"{W}abstractNum"):
        levels = {}
        for lvl in ab.iter(f"{W}lvl"):
            fmt = lvl.find(f"{W}numFmt")
            ilvl = lvl.get(f"{W}ilvl", "0")
            if ilvl.isdigit():
                levels[int(ilvl)] = fmt.get(f"{W}val", "decimal") if fmt is not None else "decimal"
        abstract[ab.get(f"{W}abstractNumId")] = levels
    nums = {}
    for num in root.iter(f"{W}num"):
        ref = num.find(f"{W}abstractNumId")
        if ref is not None:
            nums[num.get(f"{W}numId", "")] = abstract.get(ref.get(f"{W}val"), {})
    return nums


def _runs(el: ET.Element, styles: dict[str, _Style], links: dict[str, str],
          link: str | None = None) -> Iterator[Run]:
    """(text, bold, italic, monospaced, link) of each run in a paragraph, in reading order."""
    for child in el:
        tag = child.tag
        if tag == f"{W}r":
            rpr = child.find(f"{W}rPr")
            if rpr is not None and (_on(rpr.find(f"{W}vanish")) or _on(rpr.find(f"{W}webHidden"))):
                continue  # hidden text is not shown
            char = styles.get(rpr.find(f"{W}rStyle").get(f"{W}val", "")) if rpr is not None and \
                rpr.find(f"{W}rStyle") is not None else None
            bold = _on(rpr.find(f"{W}b")) if rpr is not None and rpr.find(f"{W}b") is not None else \
                bool(char and (char.bold or char.name == "strong"))
            italic = _on(rpr.find(f"{W}i")) if rpr is not None and rpr.find(f"{W}i") is not None else \
                bool(char and (char.italic or char.name == "emphasis"))
            mono = _mono(rpr) or bool(char and char.mono)
            parts = []
            for piece in child:
                if piece.tag == f"{W}t":
                    parts.append(piece.text or "")
                elif piece.tag == f"{W}tab":
                    parts.append(" ")
                elif piece.tag in (f"{W}br", f"{W}cr"):
                    parts.append("" if piece.get(f"{W}type") in ("page", "column") else "\n")
                elif piece.tag == f"{W}noBreakHyphen":
                    parts.append("-")
            if parts:
                yield "".join(parts), bold, italic, mono, link
        elif tag == f"{W}hyperlink":
            target = links.get(child.get(_REL_ID, ""))
            yield from _runs(child, styles, links, target or link)
        elif tag in (f"{W}ins", f"{W}moveTo", f"{W}smartTag", f"{W}fldSimple", f"{W}customXml", f"{W}dir", f"{W}bdo"):
            yield from _runs(child, styles, links, link)
        elif tag == f"{W}sdt":
            content = child.find(f"{W}sdtContent")
            if content is not None:
                yield from _runs(content, styles, links, link)
        # w:del, w:moveFrom (tracked deletions), w:pPr, bookmarks, comments: not the writing


def _paragraph(p: ET.Element, styles: dict[str, _Style], numbering: dict[str, dict[int, str]],
               links: dict[str, str], counters: dict[str, list[int]]) -> Block | None:
    ppr = p.find(f"{W}pPr")
    sid = ppr.find(f"{W}pStyle").get(f"{W}val", "") if ppr is not None and ppr.find(f"{W}pStyle") is not None else ""
    style = styles.get(sid, _Style())
    runs = list(_runs(p, styles, links))
    visible = [r for r in runs if r[0].strip()]
    if not visible:
        return None  # an empty paragraph is spacing, not a paragraph
    code = style.mono or "code" in style.name or "preformatted" in style.name or all(r[3] for r in visible)
    text = inline_markdown(runs, code)
    if code:
        return Block("code", text.strip("\n"))  # (a line break at a code line's ends is no line of code)
    text = " ".join(line.strip() for line in text.strip().split("\n")) if style.heading else text.strip()
    heading = _outline(ppr) or style.heading
    if heading:
        return Block("para", f"{'#' * min(heading, 6)} {text}")
    num = _num_pr(ppr) or style.num
    levels = numbering.get(num[0]) if num else None
    if num and levels is not None and num[0] != "0":
        depth = num[1]
        named = _LIST_DEPTH.fullmatch(style.name)
        if named and depth == 0:
            depth = int(named.group(1)) - 1
        fmt = levels.get(num[1], "decimal")
        if fmt == "none":
            return Block("para", text)
        count = counters.setdefault(num[0], [0] * 9)
        count[num[1]] += 1
        count[num[1] + 1:] = [0] * (8 - num[1])
        marker = "-" if fmt == "bullet" else f"{count[num[1]]}."
        return Block("item", f"{'  ' * depth}{marker} {text}", (depth, fmt == "bullet"))
    if "quote" in style.name or style.name == "block text":  # Word's Quote / Intense Quote; pandoc's Block Text
        return Block("quote", "> " + text.replace("\n", "\n> "))
    return Block("para", text)


def _table(tbl: ET.Element, styles: dict[str, _Style], links: dict[str, str]) -> list[Block]:
    rows = []
    for tr in tbl.findall(f"{W}tr"):
        cells = [" ".join(t for p in tc.iter(f"{W}p") if (t := inline_markdown(_runs(p, styles, links), False).strip()))
                 for tc in tr.findall(f"{W}tc")]
        if cells:
            rows.append(table_row(cells))
    return [Block("row", row, tbl) for row in header_rule(rows)]


def _blocks(body: ET.Element, styles: dict[str, _Style], numbering: dict[str, dict[int, str]],
            links: dict[str, str]) -> Iterator[Block]:
    counters: dict[str, list[int]] = {}
    stack = [iter(body)]
    while stack:  # (an explicit stack: content controls nest without recursion limits)
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
        elif child.tag == f"{W}p":
            block = _paragraph(child, styles, numbering, links, counters)
            if block is not None:
                yield block
        elif child.tag == f"{W}tbl":
            yield from _table(child, styles, links)
        elif child.tag in (f"{W}sdt", f"{W}customXml", f"{W}ins"):
            content = child.find(f"{W}sdtContent") if child.tag == f"{W}sdt" else child
            if content is not None:
                stack.append(iter(content))


def _links(root: ET.Element | None) -> dict[str, str]:
    """Relationship id -> URL of the document's external hyperlinks."""
    if root is None:
        return {}
    return {rel.get("Id", ""): rel.get("Target", "") for rel in root
            if rel.get("TargetMode") == "External" and rel.get("Type", "").endswith("/hyperlink")}


def docx_markdown(zf: zipfile.ZipFile) -> str:
    """The body of the Word document in ``zf`` as Markdown (module docstring)."""
    document = read_part(zf, DOCUMENT, WORD)
    styles = _styles(read_part(zf, "word/styles.xml", WORD))
    numbering = _numbering(read_part(zf, "word/numbering.xml", WORD))
    links = _links(read_part(zf, "word/_rels/document.xml.rels", WORD))
    body = document.find(f"{W}body") if document is not None else None
    if body is None:
        raise DocumentError(f"{WORD} whose {DOCUMENT} has no body")
    try:
        return join_blocks(fence_code(_blocks(body, styles, numbering, links)))
    except RecursionError:  # runs nested thousands deep (tracked insertions in insertions ...)
        raise DocumentError(f"{WORD} whose {DOCUMENT} is nested too deeply") from None


def docx_to_markdown(source: bytes | str | Path) -> str:
    """A ``.docx`` (its bytes, or its path) as Markdown; :class:`DocumentError` with a one-line
    reason when it is not a readable Word document."""
    with open_zip(source) as zf:
        if DOCUMENT not in zf.NameToInfo:
            raise DocumentError(f"a ZIP archive but not {WORD}")
        return docx_markdown(zf)
