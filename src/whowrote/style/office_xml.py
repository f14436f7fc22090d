"""What the Word (``docx_reader``) and OpenDocument (``odt_reader``) readers share: reading an XML part
of the ZIP safely, inline marks, and the layout of the body's blocks as Markdown (the PDF layout,
``pdf_layout``, writes its blocks through the same functions).

Both formats are ZIP archives of XML parts. A reader turns the body into :class:`Block` s (a
paragraph, a list item, a quote, a code line, a table row) whose inline text it writes with
:func:`inline_markdown`; :func:`fence_code` and :func:`join_blocks` lay them out as Markdown, so both
formats read alike (a test reads the same text written by pandoc as either to the same Markdown).

Untrusted files: each part is read through a size cap (a ZIP bomb stops at :data:`MAX_PART_BYTES`,
even when its headers lie), XML with a DTD (the way to entity-expansion attacks) is refused, and every
reason is one line (:class:`DocumentError`). Standard library only (``zipfile``, ``xml.etree``).
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from xml.etree import ElementTree as ET

MAX_PART_BYTES = 32 * 1024 * 1024  # one XML part, inflated (a 3,000-word document is ~0.3 MB)
MAX_STYLE_CHAIN = 16  # parent-style links followed (a loop in a broken file ends here)
MONO_FONTS = ("courier", "consolas", "menlo", "monaco", "mono", "lucida console", "source code")

# Word's built-in style names (.docx and .doc alike): "heading 2"; "List Bullet 2", its own list's
# first level shown one level in
WORD_HEADING = re.compile(r"heading ([1-9])")
WORD_LIST_DEPTH = re.compile(r"list (?:bullet|number|continue|paragraph) ([2-9])")
# a Word hyperlink field's code (a .doc's field, an RTF's \fldinst): its quoted target
WORD_HYPERLINK_FIELD = re.compile(r'HYPERLINK\s+"([^"]{1,2000})"')

# (text, bold, italic, monospaced, link URL or None): one run of a paragraph's text
Run = tuple[str, bool, bool, bool, str | None]


class DocumentError(ValueError):
    """Why a file cannot be read as a document (one line)."""


@dataclass
class Block:
    kind: str  # "para", "item", "quote", "code", "row"
    text: str
    group: object = None  # rows of one table share it (joined by one line break); an item: (depth, bullet)
    spaced: bool = False  # an item set apart from the one before (a loose list: a blank line between)


# Strict Office Open XML (Word's "Strict Open XML Document") names its namespaces apart from the
# usual (transitional) ones, which the readers look for; its parts are read under the usual names
_STRICT = ((b"http://purl.oclc.org/ooxml/wordprocessingml/main", b"http://schemas.openxmlformats.org/wordprocessingml/2006/main"),
           (b"http://purl.oclc.org/ooxml/officeDocument/relationships", b"http://schemas.openxmlformats.org/officeDocument/2006/relationships"))


def read_part(zf: zipfile.ZipFile, name: str, what: str) -> ET.Element | None:
    """A part's XML root, or None when the archive has no such part; ``what`` names the document
    in the reasons ("a Word document")."""
    data = read_bytes(zf, name, what)
    if data is None:
        return None
    if b"purl.oclc.org/ooxml/" in data:
        for strict, usual in _STRICT:
            data = data.replace(strict, usual)
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise DocumentError(f"{what} whose {name} declares a DTD (which these files never need)")
    try:
        return ET.fromstring(data)
    except ET.ParseError as e:
        raise DocumentError(f"{what} whose {name} is not well-formed XML ({e})") from None


def read_bytes(zf: zipfile.ZipFile, name: str, what: str) -> bytes | None:
    """A part's bytes, inflated through the size cap, or None when the archive has no such part."""
    try:
        info = zf.getinfo(name)
    except KeyError:
        return None
    if info.file_size > MAX_PART_BYTES:
        raise DocumentError(f"{what} whose {name} is over {MAX_PART_BYTES >> 20} MB inflated")
    try:
        with zf.open(info) as f:
            data = f.read(MAX_PART_BYTES + 1)
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, EOFError) as e:
        raise DocumentError(f"{what} whose {name} cannot be inflated ({e})") from None
    if len(data) > MAX_PART_BYTES:  # the header's size lied
        raise DocumentError(f"{what} whose {name} is over {MAX_PART_BYTES >> 20} MB inflated")
    return data


def inherit(raw: dict[str, tuple[str | None, dict[str, object]]]) -> dict[str, tuple[dict[str, object], list[str]]]:
    """Per style (``raw``: name -> (its parent's name, its own properties)), its properties merged
    with its parents' (its own first) and the ``"name"`` of each style along the chain, which ends
    at a missing parent or after :data:`MAX_STYLE_CHAIN` links (a loop in a broken file)."""
    out = {}
    for name in raw:
        merged: dict[str, object] = {}
        chain: list[str] = []
        at: str | None = name
        for _ in range(MAX_STYLE_CHAIN):
            if at not in raw:
                break
            at, props = raw[at]
            chain.append(str(props.get("name", "")))
            for key, value in props.items():
                merged.setdefault(key, value)
        out[name] = (merged, chain)
    return out


def is_mono(face: str) -> bool:
    """A font face that sets code (Courier New, Consolas, ... Mono)."""
    face = face.lower()
    return any(m in face for m in MONO_FONTS)


def _around(text: str) -> tuple[str, str, str]:
    core = text.strip()
    return text[:len(text) - len(text.lstrip())], core, text[len(text.rstrip()):] if core else ""


def inline_markdown(runs: Iterable[Run], code_line: bool) -> str:
    """The runs as Markdown: neighbours of one format merged, marks around their non-space core;
    ``code_line``: the paragraph is code, written as it is."""
    formatted = ((text, (bold, italic, mono and not code_line, link)) for text, bold, italic, mono, link in runs)
    out = []
    # each format's run joined once (growing one string by += was quadratic in a long run)
    for (bold, italic, mono, link), pieces in groupby(formatted, key=itemgetter(1)):
        text = "".join(piece for piece, _ in pieces)
        lead, core, tail = _around(text)
        if core and (bold or italic or mono) and not code_line:
            mark = "`" if mono else "***" if bold and italic else "**" if bold else "*"
            text = f"{lead}{mark}{core}{mark}{tail}"
        if link and core and not code_line and link != text.strip():  # (a bare URL shows as itself)
            lead, core, tail = _around(text)
            text = f"{lead}[{core}]({link}){tail}"
        out.append(text)
    return "".join(out)


def fence_code(blocks: Iterable[Block]) -> Iterator[Block]:
    """Runs of code lines as one fenced block."""
    lines: list[str] = []
    for block in blocks:
        if block.kind == "code":
            lines.append(block.text)
            continue
        if lines:
            yield Block("para", "```\n" + "\n".join(lines) + "\n```")
            lines = []
        yield block
    if lines:
        yield Block("para", "```\n" + "\n".join(lines) + "\n```")


def join_blocks(blocks: Iterable[Block]) -> str:
    """Blocks joined by a blank line; the rows of one table and the items of one list by a line
    break (a top-level item whose marker kind changes, bullets to numbers, starts another list), an
    item ``spaced`` from the one before by a blank line."""
    out: list[str] = []
    previous: Block | None = None
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
            out.append("\n" if same and not block.spaced else "\n\n")
        out.append(block.text)
        previous = block
    return "".join(out)


def is_code(style_name: str, style_mono: bool, runs: list[Run]) -> bool:
    """A paragraph is a line of code: its style is monospaced or named for code ("Source Code",
    "Preformatted Text"), or every run that shows text is monospaced."""
    visible = [r for r in runs if r[0].strip()]
    return bool(visible) and (style_mono or "code" in style_name or "preformatted" in style_name
                              or all(r[3] for r in visible))


def is_word_quote(style_name: str) -> bool:
    """A Word paragraph style that sets a quote: Quote, Intense Quote; pandoc's Block Text."""
    return "quote" in style_name or style_name == "block text"


def _row(cells: list[str]) -> str:
    """One Markdown table row; a cell's own ``|`` escaped, its line breaks spaces."""
    return "| " + " | ".join(" ".join(c.split()).replace("|", "\\|") for c in cells) + " |"


def table_blocks(rows: Iterable[list[str]], group: object) -> list[Block]:
    """A table's rows (each its cells' texts) as Markdown rows, the rule under the first (``| --- |``)."""
    rows = [cells for cells in rows if cells]
    if not rows:
        return []
    lines = [_row(rows[0]), "| " + " | ".join(["---"] * len(rows[0])) + " |", *map(_row, rows[1:])]
    return [Block("row", line, group) for line in lines]


def open_zip(source: bytes | str | Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise DocumentError(f"a ZIP archive that cannot be read ({e})") from None
