"""Word documents (.docx) read as the Markdown their formatting shows (an essay drafted in Word or
Google Docs, an assistant's answer pasted into one).

A ``.docx`` is a ZIP of XML parts; its text sits in ``word/document.xml`` with no Markdown marks, the
structure in its styles and numbering. As :mod:`whowrote.style.html_reader` does for a page, each
paragraph is written as the Markdown that renders to it: a heading style (``Heading 2``, an outline
level) as ``## ``, a numbered or bulleted paragraph (its own numbering or its style's) as ``1. `` or
``- ``, bold and italic runs as ``**`` and ``*``, runs in a monospaced font as ``code`` (a paragraph
all in one as a fenced line), a ``Quote`` style as ``> ``, table rows as ``| a | b |``, hyperlinks as
``[text](url)``. Tracked deletions, field codes, headers, footers, footnotes and drawings are not
the writing and are left out. Standard library only (``zipfile``, ``xml.etree``).

Untrusted files: each part is read through a size cap (a ZIP bomb stops at :data:`MAX_PART_BYTES`),
XML with a DTD (the way to entity-expansion attacks) is refused, and the style chain and numbering
levels are bounded, so reading is linear in the parts' size.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_REL_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
DOCUMENT = "word/document.xml"
MAX_PART_BYTES = 32 * 1024 * 1024  # one XML part, inflated (a 3,000-word document is ~0.3 MB)
MAX_STYLE_CHAIN = 16  # basedOn links followed (a loop in a broken file ends here)
_MONO_FONTS = ("courier", "consolas", "menlo", "monaco", "mono", "lucida console", "source code")
_HEADING_NAME = re.compile(r"heading ([1-9])")
_LIST_DEPTH = re.compile(r"list (?:bullet|number|continue|paragraph) ([2-9])")
_OFF = ("0", "false", "off", "none")
DOCX_WARNING = ("a Word document: its text was attributed, with its headings, lists, emphasis, tables, "
                "code and links read as Markdown")


class DocxError(ValueError):
    """Why a file cannot be read as a Word document (one line)."""


@dataclass(frozen=True)
class _Style:
    name: str = ""
    heading: int = 0  # 1-9: a heading level
    num: tuple[str, int] | None = None  # (numId, ilvl) the style numbers its paragraphs with
    bold: bool = False
    italic: bool = False
    mono: bool = False


@dataclass
class _Block:
    kind: str  # "para", "item", "quote", "code", "row"
    text: str
    group: object = None  # blocks of one list, table or code run share it: joined by one line break


def _part(zf: zipfile.ZipFile, name: str) -> ET.Element | None:
    """A part's XML root, or None when the document has no such part."""
    try:
        info = zf.getinfo(name)
    except KeyError:
        return None
    if info.file_size > MAX_PART_BYTES:
        raise DocxError(f"a Word document whose {name} is over {MAX_PART_BYTES >> 20} MB inflated")
    try:
        with zf.open(info) as f:
            data = f.read(MAX_PART_BYTES + 1)
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, EOFError) as e:
        raise DocxError(f"a Word document whose {name} cannot be inflated ({e})") from None
    if len(data) > MAX_PART_BYTES:  # the header's size lied
        raise DocxError(f"a Word document whose {name} is over {MAX_PART_BYTES >> 20} MB inflated")
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise DocxError(f"a Word document whose {name} declares a DTD (a Word document never does)")
    try:
        return ET.fromstring(data)
    except ET.ParseError as e:
        raise DocxError(f"a Word document whose {name} is not well-formed XML ({e})") from None


def _on(el: ET.Element | None) -> bool:
    """A toggle property (``<w:b/>``, ``<w:b w:val="0"/>``): present and not switched off."""
    return el is not None and el.get(f"{W}val", "1").lower() not in _OFF


def _mono(rpr: ET.Element | None) -> bool:
    fonts = rpr.find(f"{W}rFonts") if rpr is not None else None
    if fonts is None:
        return False
    face = (fonts.get(f"{W}ascii") or fonts.get(f"{W}hAnsi") or "").lower()
    return any(m in face for m in _MONO_FONTS)


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
    resolved: dict[str, _Style] = {}
    for sid in raw:
        merged: dict[str, object] = {}
        at: str | None = sid
        for _ in range(MAX_STYLE_CHAIN):  # own properties first, then its bases'
            if at not in raw:
                break
            at, props = raw[at]
            for key, value in props.items():
                merged.setdefault(key, value)
        resolved[sid] = _Style(str(raw[sid][1]["name"]), int(merged.get("heading", 0)),  # type: ignore[call-overload]
                               merged.get("num"), bool(merged.get("bold")),  # type: ignore[arg-type]
                               bool(merged.get("italic")), bool(merged.get("mono")))
    return resolved


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
          link: str | None = None) -> Iterator[tuple[str, bool, bool, bool, str | None]]:
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


def _inline(runs: list[tuple[str, bool, bool, bool, str | None]], code_line: bool) -> str:
    """The runs as Markdown: neighbours of one format merged, marks around their non-space core."""
    merged: list[list] = []
    for text, bold, italic, mono, link in runs:
        key = (bold, italic, mono and not code_line, link)
        if merged and merged[-1][0] == key:
            merged[-1][1] += text
        else:
            merged.append([key, text])
    out = []
    for (bold, italic, mono, link), text in merged:
        core = text.strip()
        if core and (bold or italic or mono) and not code_line:
            mark = "`" if mono else "***" if bold and italic else "**" if bold else "*"
            lead, tail = text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]
            text = f"{lead}{mark}{core}{mark}{tail}"
        if link and core and not code_line and link != text.strip():  # (a bare URL shows as itself)
            lead, tail = text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]
            text = f"{lead}[{text.strip()}]({link}){tail}"
        out.append(text)
    return "".join(out)


def _paragraph(p: ET.Element, styles: dict[str, _Style], numbering: dict[str, dict[int, str]],
               links: dict[str, str], counters: dict[str, list[int]]) -> _Block | None:
    ppr = p.find(f"{W}pPr")
    sid = ppr.find(f"{W}pStyle").get(f"{W}val", "") if ppr is not None and ppr.find(f"{W}pStyle") is not None else ""
    style = styles.get(sid, _Style())
    runs = list(_runs(p, styles, links))
    visible = [r for r in runs if r[0].strip()]
    if not visible:
        return None  # an empty paragraph is spacing, not a paragraph
    code = style.mono or "code" in style.name or "preformatted" in style.name or all(r[3] for r in visible)
    text = _inline(runs, code)
    if code:
        return _Block("code", text.replace("\n", " ") if "\n" not in text.strip() else text, "code")
    text = " ".join(line.strip() for line in text.strip().split("\n")) if style.heading else text.strip()
    heading = _outline(ppr) or style.heading
    if heading:
        return _Block("para", f"{'#' * min(heading, 6)} {text}")
    num = _num_pr(ppr) or style.num
    levels = numbering.get(num[0]) if num else None
    if num and levels is not None and num[0] != "0":
        depth = num[1]
        named = _LIST_DEPTH.fullmatch(style.name)
        if named and depth == 0:
            depth = int(named.group(1)) - 1
        fmt = levels.get(num[1], "decimal")
        if fmt == "none":
            return _Block("para", text)
        count = counters.setdefault(num[0], [0] * 9)
        count[num[1]] += 1
        count[num[1] + 1:] = [0] * (8 - num[1])
        marker = "-" if fmt == "bullet" else f"{count[num[1]]}."
        return _Block("item", f"{'  ' * depth}{marker} {text}", (depth, fmt == "bullet"))
    if "quote" in style.name or style.name == "block text":  # Word's Quote / Intense Quote; pandoc's Block Text
        return _Block("quote", "> " + text.replace("\n", "\n> "))
    return _Block("para", text)


def _table(tbl: ET.Element, styles: dict[str, _Style], links: dict[str, str]) -> list[_Block]:
    rows = []
    for tr in tbl.findall(f"{W}tr"):
        cells = []
        for tc in tr.findall(f"{W}tc"):
            texts = (_inline(list(_runs(p, styles, links)), False).strip() for p in tc.iter(f"{W}p"))
            cells.append(" ".join(" ".join(t.split()) for t in texts if t).replace("|", "\\|"))
        if cells:
            rows.append("| " + " | ".join(cells) + " |")
    if not rows:
        return []
    width = rows[0].count(" | ") + 1
    rows.insert(1, "| " + " | ".join(["---"] * width) + " |")
    return [_Block("row", row, tbl) for row in rows]


def _blocks(body: ET.Element, styles: dict[str, _Style], numbering: dict[str, dict[int, str]],
            links: dict[str, str]) -> Iterator[_Block]:
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


def _markdown(blocks: Iterator[_Block]) -> str:
    """Blocks joined by a blank line; the rows of one table and the items of one list by a line
    break (a top-level item whose marker kind changes, bullets to numbers, starts another list)."""
    out: list[str] = []
    previous: _Block | None = None
    top: bool | None = None  # the current list's top-level marker: a bullet (True) or a number
    for block in blocks:
        if block.kind == "item":
            depth, bullet = block.group  # type: ignore[misc]
            same = previous is not None and previous.kind == "item" and (depth > 0 or top is None or top == bullet)
            top = bullet if depth == 0 or not same else top
        else:
            same = previous is not None and block.group is not None and block.group is previous.group
            top = None
        if previous is not None:
            out.append("\n" if same else "\n\n")
        out.append(block.text)
        previous = block
    return "".join(out)


def _fenced(blocks: Iterator[_Block]) -> Iterator[_Block]:
    """Runs of code lines as one fenced block."""
    lines: list[str] = []
    for block in blocks:
        if block.kind == "code":
            lines.append(block.text)
            continue
        if lines:
            yield _Block("para", "```\n" + "\n".join(lines) + "\n```")
            lines = []
        yield block
    if lines:
        yield _Block("para", "```\n" + "\n".join(lines) + "\n```")


def _links(root: ET.Element | None) -> dict[str, str]:
    """Relationship id -> URL of the document's external hyperlinks."""
    if root is None:
        return {}
    return {rel.get("Id", ""): rel.get("Target", "") for rel in root
            if rel.get("TargetMode") == "External" and rel.get("Type", "").endswith("/hyperlink")}


def is_docx(zf: zipfile.ZipFile) -> bool:
    return DOCUMENT in zf.NameToInfo


def docx_to_markdown(source: bytes | str | Path) -> str:
    """The document body of a ``.docx`` (its bytes, or its path) as Markdown (module docstring).

    Raises :class:`DocxError` with a one-line reason when it is not a readable Word document."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise DocxError(f"a ZIP archive that cannot be read ({e})") from None
    with zf:
        if not is_docx(zf):
            raise DocxError("a ZIP archive but not a Word document (an .odt or .epub is one)")
        document = _part(zf, DOCUMENT)
        styles = _styles(_part(zf, "word/styles.xml"))
        numbering = _numbering(_part(zf, "word/numbering.xml"))
        links = _links(_part(zf, "word/_rels/document.xml.rels"))
    body = document.find(f"{W}body") if document is not None else None
    if body is None:
        raise DocxError(f"a Word document whose {DOCUMENT} has no body")
    try:
        return _markdown(_fenced(_blocks(body, styles, numbering, links)))
    except RecursionError:  # runs nested thousands deep (tracked insertions in insertions ...)
        raise DocxError(f"a Word document whose {DOCUMENT} is nested too deeply") from None
