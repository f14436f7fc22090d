"""OpenDocument texts (.odt: LibreOffice, or Google Docs' and pandoc's export) read as the Markdown
their formatting shows, as :mod:`whowrote.style.docx_reader` reads a Word document.

The body sits in ``content.xml``: ``text:h`` headings with their outline level, ``text:p``
paragraphs, ``text:list`` lists (bullets or numbers by the list style's level), ``table:table``
tables; inline formatting is in the (automatic or named) styles of ``text:span`` elements and of
paragraphs, each maybe inheriting from a parent style in ``content.xml`` or ``styles.xml``. A heading
is written ``## ``, a list item ``- `` or ``1. `` (nested by level), bold and italic spans ``**`` and
``*``, spans in a monospaced font as ``code`` (a paragraph in one, or in a preformatted style, as a
fenced line), a quotation style as ``> ``, table rows as ``| a | b |``, links as ``[text](url)``.
Notes, annotations, tracked changes and hidden text are left out. As the format says, each run of
spaces and line breaks in the XML's text is one space; ``text:s`` / ``text:tab`` /
``text:line-break`` are the document's own spaces, tabs and line breaks. Standard library only; the
size caps and the refusal of DTDs are :mod:`whowrote.style.office_xml`'.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from xml.etree import ElementTree as ET

from whowrote.style.office_xml import (
    Block,
    DocumentError,
    Run,
    fence_code,
    inherit,
    inline_markdown,
    is_code,
    is_mono,
    join_blocks,
    read_part,
    table_blocks,
)

_NS = {"office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
       "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
       "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
       "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
       "fo": "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0",
       "xlink": "http://www.w3.org/1999/xlink"}
OF, S, T, TB, FO = (f"{{{_NS[k]}}}" for k in ("office", "style", "text", "table", "fo"))
HREF = f"{{{_NS['xlink']}}}href"
SVG_FAMILY = "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}font-family"
ODT = "an OpenDocument text"  # how reasons name it
_SPACE = re.compile(r"\s+")
_SKIPPED = frozenset({f"{T}note", f"{OF}annotation", f"{OF}annotation-end", f"{T}tracked-changes",
                      f"{T}hidden-text", f"{T}hidden-paragraph", f"{T}soft-page-break", f"{T}bookmark-ref"})


@dataclass(frozen=True)
class _Style:
    name: str = ""  # the display names of the style and its parents, lower-cased ("p5 / preformatted text / standard")
    bold: bool = False
    italic: bool = False
    mono: bool = False
    list_style: str = ""  # a paragraph style's list style (style:list-style-name)


def _styles(parts: list[ET.Element | None]) -> dict[str, _Style]:
    """Style name -> its resolved style (``style:parent-style-name`` followed), from every part's
    named and automatic styles; fonts by their face declarations."""
    roots = [root for root in parts if root is not None]
    # a style may name a face that the other part declares
    faces = {face.get(f"{S}name", ""): face.get(SVG_FAMILY, "") for root in roots for face in root.iter(f"{S}font-face")}
    raw: dict[str, tuple[str | None, dict[str, object]]] = {}
    for root in roots:
        for st in root.iter(f"{S}style"):
            name = st.get(f"{S}name", "")
            props: dict[str, object] = {"name": (st.get(f"{S}display-name") or name.replace("_20_", " ")).lower()}
            text_props = st.find(f"{S}text-properties")
            if text_props is not None:
                weight = text_props.get(f"{FO}font-weight")
                if weight is not None:
                    props["bold"] = weight == "bold" or (weight.isdigit() and int(weight) >= 600)
                if text_props.get(f"{FO}font-style") is not None:
                    props["italic"] = text_props.get(f"{FO}font-style") in ("italic", "oblique")
                font = text_props.get(f"{S}font-name") or text_props.get(f"{FO}font-family")
                if font is not None:
                    props["mono"] = is_mono(font) or is_mono(faces.get(font, ""))
            if st.get(f"{S}list-style-name"):
                props["list_style"] = st.get(f"{S}list-style-name")
            raw[name] = (st.get(f"{S}parent-style-name"), props)
    return {name: _Style(" / ".join(chain), bool(merged.get("bold")), bool(merged.get("italic")),
                         bool(merged.get("mono")), str(merged.get("list_style", "")))
            for name, (merged, chain) in inherit(raw).items()}


def _list_kinds(parts: list[ET.Element | None]) -> dict[str, dict[int, bool]]:
    """List style name -> {level (1-10): numbered?}."""
    kinds: dict[str, dict[int, bool]] = {}
    for root in parts:
        for ls in root.iter(f"{T}list-style") if root is not None else ():
            levels = {}
            for level in ls:
                n = level.get(f"{T}level", "")
                if n.isdigit():
                    levels[int(n)] = level.tag == f"{T}list-level-style-number" and level.get(f"{S}num-format", "1") != ""
            kinds[ls.get(f"{S}name", "")] = levels
    return kinds


def _runs(el: ET.Element, styles: dict[str, _Style], inherited: _Style, link: str | None = None) -> Iterator[Run]:
    """(text, bold, italic, monospaced, link) of the element's text in reading order."""
    if el.text:
        yield _SPACE.sub(" ", el.text), inherited.bold, inherited.italic, inherited.mono, link
    for child in el:
        tag = child.tag
        if tag in _SKIPPED:
            pass
        elif tag == f"{T}span":
            st = styles.get(child.get(f"{T}style-name", ""))
            span = _Style(bold=inherited.bold or bool(st and st.bold), italic=inherited.italic or bool(st and st.italic),
                          mono=inherited.mono or bool(st and st.mono)) if st else inherited
            yield from _runs(child, styles, span, link)
        elif tag == f"{T}a":
            yield from _runs(child, styles, inherited, child.get(HREF) or link)
        elif tag == f"{T}s":
            count = child.get(f"{T}c", "1")
            yield " " * min(int(count) if count.isdigit() else 1, 100), inherited.bold, inherited.italic, inherited.mono, link
        elif tag == f"{T}tab":
            yield " ", inherited.bold, inherited.italic, inherited.mono, link
        elif tag == f"{T}line-break":
            yield "\n", inherited.bold, inherited.italic, inherited.mono, link
        elif tag not in (f"{T}change-start", f"{T}change-end", f"{T}change"):
            yield from _runs(child, styles, inherited, link)  # bookmarks, fields (their shown value), metadata
        if child.tail:
            yield _SPACE.sub(" ", child.tail), inherited.bold, inherited.italic, inherited.mono, link


def _paragraph(p: ET.Element, styles: dict[str, _Style], emphasis: bool = False) -> tuple[str, bool]:
    """The paragraph's Markdown text and whether it is a code line; ``emphasis``: its style's bold
    and italics are its text's (a body paragraph's or list item's; a heading's or a table heading's
    bold is their look, not emphasis)."""
    style = styles.get(p.get(f"{T}style-name", ""), _Style())
    runs = list(_runs(p, styles, _Style(bold=emphasis and style.bold, italic=emphasis and style.italic, mono=style.mono)))
    code = is_code(style.name, style.mono, runs)
    text = inline_markdown(runs, code)
    return (text if code else text.strip(), code)


def _blocks(body: ET.Element, styles: dict[str, _Style], kinds: dict[str, dict[int, bool]]) -> Iterator[Block]:
    # (element, list depth, the enclosing list's style, its counter) on an explicit stack: lists nest
    # without recursion limits
    stack: list[tuple[Iterator[ET.Element], int, str, list[int]]] = [(iter(body), -1, "", [0])]
    while stack:
        items, depth, list_style, counter = stack[-1]
        el = next(items, None)
        if el is None:
            stack.pop()
            continue
        tag = el.tag
        if tag == f"{T}list":
            own = el.get(f"{T}style-name") or list_style
            stack.append((iter(el), depth + 1, own, [0]))
        elif tag in (f"{T}list-item", f"{T}list-header"):
            counter[0] += 1
            children = list(el)
            first = next((k for k, c in enumerate(children) if c.tag in (f"{T}p", f"{T}h")), None)
            if first is not None:  # the item's first paragraph carries the marker; the rest follow it
                text, _ = _paragraph(children[first], styles, emphasis=True)
                if text:
                    own = list_style or styles.get(children[first].get(f"{T}style-name", ""), _Style()).list_style
                    numbered = kinds.get(own, {}).get(depth + 1, False)
                    yield Block("item", f"{'  ' * depth}{f'{counter[0]}.' if numbered else '-'} {text}", (depth, not numbered))
                children = children[:first] + children[first + 1:]
            stack.append((iter(children), depth, list_style, counter))
        elif tag == f"{T}h":
            text, _ = _paragraph(el, styles)
            level = el.get(f"{T}outline-level", "1")
            if text:
                yield Block("para", f"{'#' * min(int(level) if level.isdigit() else 1, 6)} {' '.join(text.split())}")
        elif tag == f"{T}p":
            text, code = _paragraph(el, styles, emphasis=True)
            name = styles.get(el.get(f"{T}style-name", ""), _Style()).name
            if code:
                yield Block("code", text)
            elif text:
                quote = "quot" in name or "block text" in name
                yield Block("quote", "> " + text.replace("\n", "\n> ")) if quote else Block("para", text)
        elif tag == f"{TB}table":
            yield from table_blocks(([" ".join(t for p in cell.iter(f"{T}p") if (t := _paragraph(p, styles)[0].strip()))
                                      for cell in row.findall(f"{TB}table-cell")] for row in el.iter(f"{TB}table-row")), el)
        elif tag in (f"{T}section", f"{T}index-body", f"{T}table-of-content"):
            stack.append((iter(el), depth, list_style, counter))
        # sequence declarations, forms, drawings at the top level: not the writing


def odt_markdown(zf: zipfile.ZipFile) -> str:
    """The body of the OpenDocument text in ``zf`` as Markdown (module docstring)."""
    content = read_part(zf, "content.xml", ODT)
    parts = [read_part(zf, "styles.xml", ODT), content]
    body = content.find(f"{OF}body/{OF}text") if content is not None else None
    if body is None:
        raise DocumentError(f"{ODT} whose content.xml has no text body")
    try:
        return join_blocks(fence_code(_blocks(body, _styles(parts), _list_kinds(parts))))
    except RecursionError:  # spans nested thousands deep
        raise DocumentError(f"{ODT} whose content.xml is nested too deeply") from None
