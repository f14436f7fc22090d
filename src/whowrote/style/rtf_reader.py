"""RTF documents (``.rtf``: TextEdit's default format, WordPad's, Word's and pandoc's "Rich Text") read
as the Markdown their formatting shows, as :mod:`whowrote.style.docx_reader` reads a Word document.

RTF is text: groups in braces, control words (``\\b`` bold, ``\\par`` a paragraph's end) and the
characters between them. :func:`rtf_markdown` reads it in one pass with a stack of group states
(bold, italic, font, size, the destination being read), skips the destinations that are not the
body (font and colour tables, style sheets, document info, pictures, headers and footers, and every
``{\\*\\...}`` group it does not know), and collects each paragraph's runs with its properties. The
paragraphs are then written through :mod:`whowrote.style.office_xml`'s blocks: a heading by its
outline level (Word, pandoc) or, failing that, by a type size well above the body's (TextEdit: the
largest such size ``#``, the next ``##``), a list item by its marker (a ``{\\listtext ...}`` group,
or a bullet or number and a tab opening the paragraph), nested by its indent, set apart from the
next by paragraph spacing (a loose list), a line of code by a monospaced font, a quote by a left
indent, table rows by ``\\cell`` / ``\\row``, bold and italics and links (``HYPERLINK`` fields) inline.
Linear in the input: one pass, groups nested past :data:`MAX_DEPTH` are read as their parent (no
state is copied for them), ``\\binN`` data is skipped by its length.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from whowrote.style.office_xml import (
    WORD_HYPERLINK_FIELD,
    Block,
    DocumentError,
    Run,
    fence_code,
    inline_markdown,
    is_mono,
    join_blocks,
    table_blocks,
)
from whowrote.style.rtf_tokens import (
    CHARSETS,
    MAX_DEPTH,
    SKIP_DESTINATIONS,
    SYMBOLS,
    in_code_page,
    recode,
    rtf_tokens,
    unicode_char,
)

# a paragraph that opens with a list marker and a tab (pandoc's, and a plain RTF writer's)
_MARKER = re.compile(r"\s{0,8}([\u2022\u25e6\u25aa\u25cf\u00b7\uf0b7\uf0a7\u2013\-o*]|\d{1,9}[.)])\t")
_RULE = re.compile(r"[\u2014\u2013_\-*]{3,}")
TWIPS_PER_LEVEL = 360  # a list level's indent (a quarter inch), and a quote's least indent is 2 of them


@dataclass
class _Paragraph:
    runs: list[Run] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)  # each run's type size (half points)
    outline: int = -1  # \outlinelevelN: a heading N+1
    indent: int = 0  # \li, in twips
    table: bool = False  # \intbl
    marker: str = ""  # a {\listtext ...} group's text
    level: int = -1  # \ilvl: a list item's depth
    space: int = 0  # \sa + \sb, in twips: a list item set apart from the next (a loose list)


class _Reader:
    """The one pass over the tokens: group states on a stack, the paragraphs and table rows read."""

    def __init__(self) -> None:
        self.state: dict = {"b": False, "i": False, "f": 0, "fs": 24, "skip": False, "dest": "", "link": None,
                            "uc": 1, "outline": -1, "li": 0, "intbl": False, "ilvl": -1, "sa": 0, "sb": 0}
        self.stack: list[dict] = []
        self.overflow = 0  # groups opened past MAX_DEPTH (read as their parent)
        self.fonts: dict[int, bool] = {}  # font number -> monospaced
        self.font_id, self.font_name, self.font_modern = 0, [], False
        self.codepage = "cp1252"
        self.instruction: list[str] = []
        self.url: str | None = None
        self.pending_skip = 0  # characters after a \uN that stand in for it
        self.bytes = bytearray()  # \'xx bytes not yet decoded
        self.font_codecs: dict[int, str] = {}  # font number -> the code page of its \fcharset (CJK, Cyrillic ...)
        self.high_surrogate = 0  # a \uN's first half of a character beyond the BMP (an emoji), waiting for the second
        self.star = False
        self.para = _Paragraph()
        self.cell: list[_Paragraph] = []
        self.cells: list[list[_Paragraph]] = []
        self.items: list[_Paragraph | list[list[_Paragraph]]] = []

    def text(self, s: str) -> None:
        if self.pending_skip:
            drop = min(self.pending_skip, len(s))
            s, self.pending_skip = s[drop:], self.pending_skip - drop
        if not s:
            return
        if self.high_surrogate:  # (text after a surrogate pair's first half: the half stands alone)
            s, self.high_surrogate = "\ufffd" + s, 0
        st = self.state
        if st["dest"] == "fonttbl":
            self.font_name.append(s)
            if ";" in s:
                name = "".join(self.font_name).split(";")[0]
                self.fonts[self.font_id] = self.font_modern or is_mono(name)
                self.font_name, self.font_modern = [], False
        elif st["dest"] == "fldinst":
            self.instruction.append(s)
        elif st["dest"] == "listtext":
            self.para.marker += s
        elif not st["skip"]:
            self.para.runs.append((s, st["b"], st["i"], self.fonts.get(st["f"], False), st["link"]))
            self.para.sizes.append(st["fs"])

    def open(self) -> None:
        if len(self.stack) >= MAX_DEPTH:
            self.overflow += 1
            return
        self.stack.append(self.state)
        self.state = dict(self.state)
        self.star = False

    def close(self) -> None:
        if self.overflow:
            self.overflow -= 1
            return
        if not self.stack:
            return
        closed, self.state = self.state, self.stack.pop()
        if closed["dest"] == "fldinst" and self.state["dest"] != "fldinst":
            found = WORD_HYPERLINK_FIELD.search("".join(self.instruction))
            self.url, self.instruction = (found.group(1) if found else None), []

    def end_paragraph(self) -> None:
        st, para = self.state, self.para
        para.outline, para.indent, para.table, para.level = st["outline"], st["li"], st["intbl"], st["ilvl"]
        para.space = st["sa"] + st["sb"]
        self.para = _Paragraph()
        if para.table:
            self.cell.append(para)
        elif para.runs or para.marker:
            self.items.append(para)

    def word(self, name: str, param: int | None) -> None:  # (one branch per control word it reads)
        st = self.state
        if self.star:
            self.star = False
            if name != "fldinst":
                st["skip"], st["dest"] = True, "skip"
                return
        if name == "*":
            self.star = True
        elif name in SKIP_DESTINATIONS:
            st["skip"], st["dest"] = True, "skip"
        elif st["dest"] == "fonttbl":
            if name == "f":
                self.font_id = param or 0
            elif name == "fcharset" and param in CHARSETS:
                self.font_codecs[self.font_id] = CHARSETS[param]
            elif name == "fmodern":
                self.font_modern = True
        elif name == "fonttbl":
            st["skip"], st["dest"] = True, "fonttbl"
        elif name == "fldinst":
            st["skip"], st["dest"] = True, "fldinst"
        elif name == "fldrslt":
            st["link"] = self.url
        elif name in ("listtext", "pntext"):
            st["skip"], st["dest"] = True, "listtext"
        elif st["skip"]:
            if name in ("u", "uc") and st["dest"] == "listtext":
                self.unicode(name, param)
            return
        elif name in ("par", "sect"):
            self.end_paragraph()
        elif name == "pard":
            st.update(outline=-1, li=0, intbl=False, ilvl=-1, sa=0, sb=0)
        elif name == "plain":
            st.update(b=False, i=False, f=0, fs=24)
        elif name in ("b", "i"):
            st[name] = param != 0
        elif name in ("f", "fs", "li", "sa", "sb"):
            st[name] = param or 0
        elif name == "outlinelevel":
            st["outline"] = param or 0
        elif name == "ilvl":
            st["ilvl"] = param or 0
        elif name == "ls":
            st["ilvl"] = max(st["ilvl"], 0)
        elif name == "intbl":
            st["intbl"] = True
        elif name == "cell":
            self.cells.append(self.cell + ([self.para] if self.para.runs else []))
            self.cell, self.para = [], _Paragraph()
        elif name == "row":
            self.rows_done()
        elif name in ("u", "uc"):
            self.unicode(name, param)
        elif name == "ansicpg" and param:
            self.codepage = f"cp{param}"
        elif name in SYMBOLS:
            self.text(SYMBOLS[name])

    def rows_done(self) -> None:
        if self.cells:
            self.items.append(list(self.cells))  # (one row: its cells' paragraphs)
            self.cells = []

    def unicode(self, name: str, param: int | None) -> None:
        if name == "uc":
            self.state["uc"] = max(param or 0, 0)
            return
        char, self.high_surrogate = unicode_char(param, self.high_surrogate)
        self.text(char)
        self.pending_skip = self.state["uc"]

    def codec(self) -> str:
        """The code page of the text being read: its font's character set, else the document's."""
        return self.font_codecs.get(self.state["f"]) or self.codepage

    def byte(self, value: int) -> None:
        if self.pending_skip:
            self.pending_skip -= 1
            return
        self.bytes.append(value)  # (decoded with the bytes after it: a double-byte code page's character is two)

    def flush_bytes(self) -> None:
        if self.bytes:
            data, self.bytes = bytes(self.bytes), bytearray()
            self.text(in_code_page(data, self.codec()))


def _plain(para: _Paragraph) -> str:
    return "".join(r[0] for r in para.runs)


def _drop_prefix(runs: list[Run], n: int) -> list[Run]:
    """The runs without their first ``n`` characters (a list marker set in the text)."""
    out: list[Run] = []
    for text, *rest in runs:
        cut = min(n, len(text))
        n -= cut
        if text[cut:]:
            out.append((text[cut:], *rest))  # type: ignore[arg-type]
    return out


def _heading_size(para: _Paragraph, body_size: int) -> int:
    """The type size of a heading set only by size (TextEdit's): a short paragraph all in type well
    above the body's; 0 for any other paragraph."""
    sizes = [size for (text, *_), size in zip(para.runs, para.sizes, strict=True) if text.strip()]
    plain = _plain(para).strip()
    if para.outline >= 0 or para.marker or not sizes or "\n" in plain or len(plain) > 200:
        return 0
    return min(sizes) if min(sizes) >= 1.25 * body_size else 0


def _block(para: _Paragraph, size_level: int) -> Block | None:
    """The paragraph as a block; ``size_level``: its heading level by type size (0: none)."""
    plain = _plain(para)
    if _RULE.fullmatch(plain.strip()):
        return Block("para", "---")
    level = min(para.outline + 1, 6) if para.outline >= 0 else size_level
    if level and not para.marker:
        text = inline_markdown([(t, False, it, mono, link) for t, _, it, mono, link in para.runs], False)
        return Block("para", "#" * level + " " + " ".join(text.split())) if text.strip() else None
    visible = [r for r in para.runs if r[0].strip()]
    if visible and all(r[3] for r in visible) and not para.marker:
        return Block("code", inline_markdown(para.runs, True).strip("\n"))
    marker, runs = para.marker.strip(), para.runs
    if not marker:
        found = _MARKER.match(plain)
        if found:
            marker, runs = found.group(1), _drop_prefix(para.runs, found.end())
    text = inline_markdown(runs, False).strip()
    if marker:
        depth = para.level if para.level >= 0 else max(para.indent // TWIPS_PER_LEVEL - 1, 0)
        bullet = not marker[:1].isdigit()
        label = "-" if bullet else marker.rstrip(".)") + "."
        return Block("item", f"{'  ' * depth}{label} {text}", (depth, bullet)) if text else None
    if not text:
        return None
    if para.indent >= 2 * TWIPS_PER_LEVEL:
        return Block("quote", "> " + text.replace("\n", "\n> "))
    return Block("para", text)


def _blocks(items: list, body_size: int):
    # headings set only by size: the largest size is "#", the next "##" ... (by rank, up to six)
    heading_sizes = {id(p): _heading_size(p, body_size) for p in items if isinstance(p, _Paragraph)}
    size_levels = {size: min(rank + 1, 6) for rank, size in enumerate(sorted(set(heading_sizes.values()) - {0}, reverse=True))}
    rows: list[list[str]] = []
    spaced_depth = -1  # the depth of the item before when it was set apart from what follows
    for item in [*items, None]:
        if isinstance(item, list):  # a table row: its cells' paragraphs
            rows.append([" ".join(inline_markdown(p.runs, False).strip() for p in cell) for cell in item])
            continue
        if rows:
            yield from table_blocks(rows, object())
            rows = []
        if item is not None:
            block = _block(item, size_levels.get(heading_sizes[id(item)], 0))
            if block is not None:
                # (pandoc sets the last item of every list apart: only an item of the same depth is spaced)
                depth = block.group[0] if block.kind == "item" else -2  # type: ignore[index]
                block.spaced = depth == spaced_depth
                spaced_depth = depth if block.kind == "item" and item.space > 0 else -1
                yield block


def rtf_markdown(source: bytes | str) -> str:
    """An RTF document (its bytes, or its text) as Markdown (module docstring); :class:`DocumentError`
    for one that is not RTF."""
    rtf = source.decode("latin-1") if isinstance(source, bytes) else source  # (RTF is 7-bit; bytes stay bytes)
    rtf = rtf.removeprefix("\u00ef\u00bb\u00bf").removeprefix("\ufeff").lstrip()  # (a byte-order mark, read as bytes or text)
    if not rtf.startswith("{\\rtf"):
        raise DocumentError("not an RTF document")
    reader = _Reader()
    for token in rtf_tokens(rtf):
        kind = token[0]
        if kind != "byte":
            reader.flush_bytes()
        if kind == "{":
            reader.open()
        elif kind == "}":
            reader.close()
        elif kind == "word":
            reader.word(token[1], token[2])
        elif kind == "byte":
            reader.byte(token[1])
        elif isinstance(source, bytes) and not token[1].isascii():  # (8-bit text written raw: in the code page)
            reader.text(recode(token[1], reader.codec()))
        else:
            reader.text(token[1])
    reader.flush_bytes()
    reader.end_paragraph()
    reader.rows_done()
    weights: Counter[int] = Counter()
    for item in reader.items:
        if isinstance(item, _Paragraph) and item.outline < 0:
            for (text, *_), size in zip(item.runs, item.sizes, strict=True):
                weights[size] += len(text.strip())
    body_size = weights.most_common(1)[0][0] if weights else 24
    return join_blocks(fence_code(_blocks(reader.items, body_size)))
