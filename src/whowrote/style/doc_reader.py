"""Word 97-2003 documents (``.doc``) read as the Markdown their formatting shows, as
:mod:`whowrote.style.docx_reader` reads a ``.docx``: a heading style (``heading 2``, an outline
level) as ``## ``, a bulleted or numbered paragraph as ``- `` or ``1. ``, bold and italic runs as
``**`` and ``*``, runs in a monospaced font as ``code`` (a paragraph all in one as a fenced line), a
quote style as ``> ``, table rows as ``| a | b |``, a ``HYPERLINK`` field as ``[text](url)``.

The structures come from :mod:`whowrote.style.doc_binary`. Only the main text is read: headers,
footers, footnotes, comments and text boxes are stories of their own after it and are left out, as
are field codes (a field's shown result is kept), tracked deletions, hidden text and pictures. A
fast-saved document's property changes (kept in its piece table) are not applied. Untrusted files:
the streams are read through a size cap, fields nest to a bounded depth, and any malformed
structure is one line (:class:`DocumentError`).
"""

from __future__ import annotations

import re
import struct
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field

from whowrote.style import doc_binary as binary
from whowrote.style.office_xml import (
    MAX_STYLE_CHAIN,
    WORD_HEADING,
    WORD_HYPERLINK_FIELD,
    WORD_LIST_DEPTH,
    Block,
    DocumentError,
    Run,
    fence_code,
    inline_markdown,
    is_code,
    is_mono,
    is_word_quote,
    join_blocks,
    table_blocks,
)

MAX_STREAM_BYTES = 64 * 1024 * 1024  # WordDocument with its pictures (a 3,000-word text is ~50 kB of it)
MAX_TEXT_CHARS = 4_000_000  # the main text read (a 3,000-word text is ~20,000 characters)
MAX_FIELD_DEPTH = 32  # fields inside fields (a TOC's page numbers are one deep)
WORD = "a Word 97-2003 document (.doc)"  # how reasons name it
_SPECIAL = re.compile(r"[\x00-\x1f]")
_DROPPED = dict.fromkeys(map(ord, "\x00\x01\x02\x03\x04\x05\x06\x08\x0e\x0f\x10\x11\x12\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1f"))
# the Symbol font's letters (its codes 0x41-0x5A, 0x61-0x7A) as the Greek they show
_SYMBOL_FONT = dict(zip(range(0x41, 0x5B), "ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ", strict=True)) | dict(zip(range(0x61, 0x7B), "αβχδεφγηιϕκλμνοπθρστυϖωξψζ", strict=True))
_SHOWN = {ord("\t"): " ", ord("\x0b"): "\n", 0x1E: "-"}  # a tab; a line break; a non-breaking hyphen


@dataclass(frozen=True)
class _Format:
    bold: bool
    italic: bool
    mono: bool
    symbol: str | None  # what a symbol character shows (a "(" in the text stands for it)


@dataclass(frozen=True)
class _Style:
    name: str = ""
    heading: int = 0
    list_id: int = 0  # ilfo of the list its paragraphs are in (0: none)
    level: int = 0
    bold: bool = False
    italic: bool = False
    mono: bool = False


def _on(value: bytes, inherited: bool) -> bool:
    """A toggle property's operand: 0 off, 1 on, 0x80 as the style has it, 0x81 the opposite."""
    flag = value[0] if value else 0
    return inherited if flag == 0x80 else (not inherited) if flag == 0x81 else flag == 1


def _u16(value: bytes) -> int:
    return struct.unpack_from("<H", value)[0] if len(value) >= 2 else 0


def _u32(value: bytes) -> int:
    return struct.unpack_from("<I", value)[0] if len(value) >= 4 else 0


def _styles(raw: list[binary.Style], fonts: list[str]) -> list[_Style]:
    """Each style with its base styles' properties merged in (a chain of at most :data:`MAX_STYLE_CHAIN`)."""
    out = []
    for style in raw:
        para: dict[int, bytes] = {}
        chars: dict[int, bytes] = {}
        at, seen = style, 0
        while at is not None and seen < MAX_STYLE_CHAIN:
            para, chars = {**at.para, **para}, {**at.chars, **chars}
            at, seen = raw[at.base] if at.base < len(raw) else None, seen + 1
        named = WORD_HEADING.fullmatch(style.name)
        outline = para.get(binary.P_OUTLINE, b"\x09")[0]
        heading = (style.sti if 1 <= style.sti <= 9 else int(named.group(1)) if named
                   else 1 if style.name == "title" else outline + 1 if outline < 9 else 0)
        font = _u16(chars.get(binary.C_FONT, b""))
        out.append(_Style(style.name, heading, _u16(para.get(binary.P_ILFO, b"")), para.get(binary.P_ILVL, b"\0")[0],
                          _on(chars.get(binary.C_BOLD, b""), False), _on(chars.get(binary.C_ITALIC, b""), False),
                          binary.C_FONT in chars and font < len(fonts) and is_mono(fonts[font])))
    return out


@dataclass
class _Document:
    """What reading one document needs, and the state of the walk through its text."""
    word: bytes
    styles: list[_Style]
    fonts: list[str]
    lists: dict[int, tuple[int, ...]]
    paragraphs: binary.Runs
    runs: list[Run] = field(default_factory=list)  # the current paragraph's
    cell: list[str] = field(default_factory=list)  # the current table cell's paragraphs
    row: list[str] = field(default_factory=list)
    table: list[list[str]] = field(default_factory=list)
    fields: list[list] = field(default_factory=list)  # open fields: [code so far, showing its result, link]
    counters: dict[int, list[int]] = field(default_factory=dict)
    formats: dict[bytes, _Format | None] = field(default_factory=dict)

    def style(self, istd: int) -> _Style:
        return self.styles[istd] if 0 <= istd < len(self.styles) else _Style()

    def char_format(self, grpprl: bytes) -> _Format | None:
        """A character run's format, None when it is not shown (hidden, or a tracked deletion)."""
        if grpprl not in self.formats:  # (a document has few distinct formats and many runs)
            self.formats[grpprl] = self._char_format(grpprl)
        return self.formats[grpprl]

    def _char_format(self, grpprl: bytes) -> _Format | None:
        props = dict(binary.sprms(grpprl))
        if props.get(binary.C_DELETED, b"\0")[0] or props.get(binary.C_HIDDEN, b"\0")[0] == 1:
            return None
        char = self.style(_u16(props[binary.C_ISTD])) if binary.C_ISTD in props else _Style()
        bold = _on(props[binary.C_BOLD], char.bold) if binary.C_BOLD in props else char.bold or char.name == "strong"
        italic = _on(props[binary.C_ITALIC], char.italic) if binary.C_ITALIC in props else char.italic or char.name == "emphasis"
        font = _u16(props.get(binary.C_FONT, b""))
        mono = char.mono or (binary.C_FONT in props and font < len(self.fonts) and is_mono(self.fonts[font]))
        symbol = None
        if binary.C_SYMBOL in props:
            code = _u16(props[binary.C_SYMBOL][2:])
            # a character of its own (not a control or surrogate code), else a symbol font's private-use
            # code: the Symbol font's letters read as the Greek they show, other symbols dropped
            symbol = chr(code) if 0x20 <= code < 0xD800 else _SYMBOL_FONT.get(code & 0xFF, "") if code >= 0xE000 else ""
        return _Format(bold, italic, mono, symbol)

    def text(self, text: str, fmt: _Format | None) -> None:
        """Characters of a run: into the open field's code, or the paragraph when shown."""
        if self.fields and not self.fields[-1][1]:
            self.fields[-1][0] += text[:max(0, 2000 - len(self.fields[-1][0]))]  # (a field code is short: capped)
        elif fmt is not None and (text := text.translate(_DROPPED).translate(_SHOWN)):
            link = next((f[2] for f in reversed(self.fields) if f[2]), None)
            self.runs.append((text if fmt.symbol is None else fmt.symbol, fmt.bold, fmt.italic, fmt.mono, link))

    def field_mark(self, char: str) -> None:
        if char == "\x13":
            self.fields.append(["", False, None])
        elif char == "\x14" and self.fields:
            code = WORD_HYPERLINK_FIELD.search(self.fields[-1][0])
            self.fields[-1][1:] = [True, code.group(1) if code else None]  # (a bookmark's link, HYPERLINK \\l "name", is none)
        elif char == "\x15" and self.fields:
            self.fields.pop()
        if len(self.fields) > MAX_FIELD_DEPTH:
            raise DocumentError(f"{WORD} whose fields nest more than {MAX_FIELD_DEPTH} deep")

    def paragraph_end(self, mark: str, fc: int) -> Iterator[Block]:
        """The blocks a paragraph mark (``\\r``; a table cell's or row's ``\\x07``; a page break) ends."""
        istd, grpprl = self.paragraphs.at(fc)
        props = dict(binary.sprms(grpprl))
        runs, self.runs = self.runs, []
        depth = _u32(props.get(binary.P_ITAP, b"")) or props.get(binary.P_IN_TABLE, b"\0")[0]
        if not depth:
            yield from self.table_end()
            if (block := self.block(runs, self.style(istd), props)) is not None:
                yield block
            return
        text = inline_markdown(runs, False).strip()
        if depth > 1:  # a table inside a cell: its text is the cell's
            if text:
                self.cell.append(text)
        elif props.get(binary.P_TTP, b"\0")[0]:
            if self.row:
                self.table.append(self.row)
            self.row = []
        elif mark == "\x07":
            self.row.append(" ".join([*self.cell, text]).strip())
            self.cell = []
        elif text:
            self.cell.append(text)

    def table_end(self) -> Iterator[Block]:
        """The table read so far as Markdown rows; a row or cell left open (a broken file's row end
        mark missing) is kept, not lost."""
        if self.cell:
            self.row.append(" ".join(self.cell))
        if self.row:
            self.table.append(self.row)
        if self.table:
            yield from table_blocks(self.table, object())
        self.cell, self.row, self.table = [], [], []

    def block(self, runs: list[Run], style: _Style, props: dict[int, bytes]) -> Block | None:
        if not any(r[0].strip() for r in runs):
            return None  # an empty paragraph is spacing
        code = is_code(style.name, style.mono, runs)
        text = inline_markdown(runs, code)
        if code:
            return Block("code", text.strip("\n"))
        outline = props.get(binary.P_OUTLINE, b"\x09")[0]
        heading = outline + 1 if outline < 9 else style.heading
        if heading:
            return Block("para", f"{'#' * min(heading, 6)} {' '.join(text.split())}")
        text = text.strip()
        list_id = _u16(props[binary.P_ILFO]) if binary.P_ILFO in props else style.list_id
        level = min(props[binary.P_ILVL][0] if binary.P_ILVL in props else style.level, 8)
        formats = self.lists.get(list_id)
        if formats:
            nfc = formats[min(level, len(formats) - 1)]
            if nfc == 0xFF:  # a level without a number
                return Block("para", text)
            count = self.counters.setdefault(list_id, [0] * 9)
            count[level] += 1
            count[level + 1:] = [0] * (8 - level)
            marker = "-" if nfc == binary.BULLET else f"{count[level]}."
            named = WORD_LIST_DEPTH.fullmatch(style.name)  # (Word's "List Bullet 2" is its own list's first level)
            depth = int(named.group(1)) - 1 if named and level == 0 else level
            return Block("item", f"{'  ' * depth}{marker} {text}", (depth, nfc == binary.BULLET))
        if is_word_quote(style.name):
            return Block("quote", "> " + text.replace("\n", "\n> "))
        return Block("para", text)


def _blocks(doc: _Document, pieces: list[binary.Piece], chars: binary.Runs, length: int) -> Iterator[Block]:
    """The main text's blocks: each piece cut where the character runs change, its characters read
    and its paragraph marks ending blocks."""
    for piece in pieces:
        cp, end = piece.cp, min(piece.cp_end, length)
        width = 2 if piece.wide else 1
        while cp < end:
            fc = piece.fc + (cp - piece.cp) * width
            i = bisect_right(chars.starts, fc) - 1
            inside = i >= 0 and fc < chars.ends[i]
            limit = chars.ends[i] if inside else chars.starts[i + 1] if i + 1 < len(chars.starts) else 1 << 62
            stop = min(end, cp + max(1, -(-(limit - fc) // width)))
            fmt = doc.char_format(chars.props[i][1] if inside else b"")
            text = binary.piece_text(doc.word, piece, cp, stop)
            at = units = 0  # (characters before the mark, counted as the stream does: UTF-16 units)
            for special in _SPECIAL.finditer(text):
                before = text[at:special.start()]
                doc.text(before, fmt)
                units += len(before.encode("utf-16-le")) // 2 + 1 if piece.wide else len(before) + 1
                char, at = special.group(), special.end()
                if char in "\r\x07\x0c":
                    if not doc.fields or doc.fields[-1][1]:
                        yield from doc.paragraph_end(char, fc + (units - 1) * width)
                elif char in "\x13\x14\x15":
                    doc.field_mark(char)
                else:
                    doc.text(char, fmt)
            doc.text(text[at:], fmt)
            cp = stop
    if doc.runs:
        yield from doc.paragraph_end("\r", -1)
    yield from doc.table_end()


def _stream(ole, name: str) -> bytes:
    if not ole.exists(name):
        raise DocumentError(f"{WORD} without its {name} stream")
    if ole.get_size(name) > MAX_STREAM_BYTES:
        raise DocumentError(f"{WORD} whose {name} stream is over {MAX_STREAM_BYTES >> 20} MB")
    return ole.openstream(name).read()


def doc_markdown(ole) -> str:
    """The main text of the Word document in an open Compound File (olefile's) as Markdown (module
    docstring); :class:`DocumentError` for an older, encrypted or broken one."""
    word = _stream(ole, "WordDocument")
    try:
        fib = binary.fib(word)
    except ValueError as e:
        raise DocumentError(str(e)) from None
    except struct.error:
        raise DocumentError(f"{WORD} whose header is cut short") from None
    table = _stream(ole, fib.table)
    try:
        pieces = binary.pieces(table, fib)
        fonts = binary.fonts(table, fib)
        doc = _Document(word, _styles(binary.styles(table, fib), fonts), fonts, binary.list_formats(table, fib),
                        binary.fkp_runs(word, table, fib, paragraphs=True))
        length = min(fib.text_chars, len(word), MAX_TEXT_CHARS)  # (no more characters than the stream has bytes)
        return join_blocks(fence_code(_blocks(doc, pieces, binary.fkp_runs(word, table, fib, paragraphs=False), length)))
    except (ValueError, struct.error, IndexError) as e:
        raise DocumentError(f"{WORD} that cannot be read ({type(e).__name__}: {str(e)[:120]})") from None
