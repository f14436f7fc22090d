"""Word documents (.docx) read as the Markdown their formatting shows (an essay drafted in Word or
Google Docs, an assistant's answer pasted into one).

A ``.docx`` is a ZIP of XML parts; its text sits in ``word/document.xml`` with no Markdown marks, the
structure in its styles and numbering. As :mod:`whowrote.style.html_reader` does for a page, each
paragraph is written as the Markdown that renders to it: a heading style (``Heading 2``, an outline
level) as ``## ``, a numbered or bulleted paragraph (its own numbering or its style's) as ``1. `` or
``- ``, bold and italic runs as ``**`` and ``*``, runs in a monospaced font as ``code`` (a paragraph
all in one as a fenced line), a ``Quote`` style as ``> ``, table rows as ``| a | b |``, hyperlinks as
``[text](url)``, a text box's paragraphs after the paragraph it is anchored in. Tracked deletions,
field codes, headers, footers, footnotes and pictures are not the writing and are left out. Standard library only (``zipfile``, ``xml.etree``); what the Word and
OpenDocument readers share (size caps, DTDs refused, inline marks, the blocks' layout) is in
:mod:`whowrote.style.office_xml`. The style chain and numbering levels are bounded, so reading is
linear in the parts' size.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

from whowrote.style.office_xml import (
    WORD_HEADING,
    WORD_LIST_DEPTH,
    Block,
    DocumentError,
    Run,
    fence_code,
    inherit,
    inline_markdown,
    is_code,
    is_mono,
    is_word_quote,
    join_blocks,
    open_zip,
    read_part,
    table_blocks,
)

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_REL_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
DOCUMENT = "word/document.xml"
WORD = "a Word document"  # how reasons name it
_OFF = ("0", "false", "off", "none")


@dataclass(frozen=True)
class _Style:
    name: str = ""
    heading: int = 0  # 1-9: a heading level
    num: tuple[str, int] | None = None  # (numId, ilvl) the style numbers its paragraphs with
    bold: bool = False
    italic: bool = False
    mono: bool = False


def _prop(parent: ET.Element | None, tag: str) -> ET.Element | None:
    """The ``w:tag`` child of an element that may be absent (a ``w:pPr`` or ``w:rPr`` most often)."""
    return None if parent is None else parent.find(f"{W}{tag}")


def _val(parent: ET.Element | None, tag: str, default: str = "") -> str:
    """The ``w:val`` of that child; ``default`` when the child or its value is absent."""
    el = _prop(parent, tag)
    return default if el is None else el.get(f"{W}val", default)


def _toggle(parent: ET.Element | None, tag: str) -> bool | None:
    """A toggle property (``<w:b/>``, ``<w:b w:val="0"/>``): on, off, or None when it is not set."""
    el = _prop(parent, tag)
    return None if el is None else el.get(f"{W}val", "1").lower() not in _OFF


def _mono(rpr: ET.Element | None) -> bool:
    fonts = _prop(rpr, "rFonts")
    return fonts is not None and is_mono(fonts.get(f"{W}ascii") or fonts.get(f"{W}hAnsi") or "")


def _styles(root: ET.Element | None) -> dict[str, _Style]:
    """Style id -> its resolved style (``basedOn`` followed for headings, numbering and fonts)."""
    raw: dict[str, tuple[str | None, dict[str, object]]] = {}
    for st in root.iter(f"{W}style") if root is not None else ():
        sid = st.get(f"{W}styleId")
        if not sid:
            continue
        ppr, rpr = st.find(f"{W}pPr"), st.find(f"{W}rPr")
        name = _val(st, "name").lower()
        props: dict[str, object] = {"name": name}
        named = WORD_HEADING.fullmatch(name)
        level = int(named.group(1)) if named else 1 if name == "title" else _outline(ppr)
        if level:
            props["heading"] = level
        num = _num_pr(ppr)
        if num is not None:
            props["num"] = num
        for key, tag in (("bold", "b"), ("italic", "i")):
            if (on := _toggle(rpr, tag)) is not None:
                props[key] = on
        if _prop(rpr, "rFonts") is not None:
            props["mono"] = _mono(rpr)
        raw[sid] = (_val(st, "basedOn") or None, props)
    return {sid: _Style(chain[0], int(merged.get("heading", 0)), merged.get("num"),  # type: ignore[call-overload,arg-type]
                        bool(merged.get("bold")), bool(merged.get("italic")), bool(merged.get("mono")))
            for sid, (merged, chain) in inherit(raw).items()}


def _outline(ppr: ET.Element | None) -> int:
    """The heading level an outline level gives a paragraph (``w:outlineLvl`` 0-8), 0 for body text."""
    val = _val(ppr, "outlineLvl")
    return int(val) + 1 if val.isdigit() and int(val) < 9 else 0


def _num_pr(ppr: ET.Element | None) -> tuple[str, int] | None:
    num = _prop(ppr, "numPr")
    if num is None:
        return None
    lvl = _val(num, "ilvl", "0")
    return (_val(num, "numId"), min(int(lvl), 8) if lvl.isdigit() else 0)


def _numbering(root: ET.Element | None) -> dict[str, dict[int, str]]:
    """numId -> {level: its number format} ("bullet", "decimal", "none", ...)."""
    if root is None:
        return {}
    abstract = {}
    for ab in root.iter(f"{W}abstractNum"):
        levels = {}
        for lvl in ab.iter(f"{W}lvl"):
            ilvl = lvl.get(f"{W}ilvl", "0")
            if ilvl.isdigit():
                levels[int(ilvl)] = _val(lvl, "numFmt", "decimal")
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
            if _toggle(rpr, "vanish") or _toggle(rpr, "webHidden"):
                continue  # hidden text is not shown
            char = styles.get(_val(rpr, "rStyle"), _Style())  # a character style (Strong, Emphasis, Code)
            bold, italic = _toggle(rpr, "b"), _toggle(rpr, "i")  # set on the run, else its style's
            bold = char.bold or char.name == "strong" if bold is None else bold
            italic = char.italic or char.name == "emphasis" if italic is None else italic
            mono = _mono(rpr) or char.mono
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
    style = styles.get(_val(ppr, "pStyle"), _Style())
    runs = list(_runs(p, styles, links))
    if not any(r[0].strip() for r in runs):
        return None  # an empty paragraph is spacing, not a paragraph
    code = is_code(style.name, style.mono, runs)
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
        named = WORD_LIST_DEPTH.fullmatch(style.name)
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
    if is_word_quote(style.name):
        return Block("quote", "> " + text.replace("\n", "\n> "))
    return Block("para", text)


def _table(tbl: ET.Element, styles: dict[str, _Style], links: dict[str, str]) -> list[Block]:
    def cell(tc: ET.Element) -> str:
        return " ".join(t for p in tc.iter(f"{W}p") if (t := inline_markdown(_runs(p, styles, links), False).strip()))

    return table_blocks(([cell(tc) for tc in tr.findall(f"{W}tc")] for tr in tbl.findall(f"{W}tr")), tbl)


def _text_boxes(p: ET.Element) -> list[ET.Element]:
    """The text boxes anchored in a paragraph (their ``w:txbxContent``), in order, each once: a box
    Word writes twice, as a shape (``mc:Choice``) and as its VML copy (``mc:Fallback``), is read from
    the first. Boxes inside a box are found when its paragraphs are read."""
    boxes, todo = [], list(reversed(p))
    while todo:
        el = todo.pop()
        if el.tag == f"{W}txbxContent":
            boxes.append(el)
        elif el.tag != _FALLBACK:
            todo.extend(reversed(el))
    return boxes


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
            stack.extend(iter(box) for box in reversed(_text_boxes(child)))  # (read next, where the box is anchored)
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
