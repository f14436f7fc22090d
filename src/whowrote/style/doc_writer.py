"""A Word document written as a Word 97-2003 binary file (``.doc``), for the tests and the robustness
benchmark of :mod:`whowrote.style.doc_reader` (no program here writes ``.doc``: Word and LibreOffice
are not installed).

:func:`markdown_doc` writes the Markdown with :func:`whowrote.style.docx_writer.markdown_docx` and
lays that document out again as a ``.doc`` ([MS-DOC]): its text in one UTF-16 piece, paragraph
styles ``heading 1-9`` (built-in style numbers 1-9) and ``Quote``, list paragraphs as direct list
formatting (a bulleted and a numbered list definition, nine levels each), bold, italic and Courier
New runs, hyperlinks as ``HYPERLINK`` fields, tables as cells ended by cell marks and rows by row
marks. The same structures are what :mod:`whowrote.style.doc_binary` reads; the reader is also
checked on public ``.doc`` files Word wrote (docs/predict.md, "Old Word documents").
"""

from __future__ import annotations

import io
import re
import struct
from typing import Any

from whowrote.style import doc_binary as binary
from whowrote.style.msg_writer import compound_file

TEXT_FC = 2048  # where the text starts in WordDocument (after the FIB)
FONTS = ("Times New Roman", "Courier New")
QUOTE_ISTD = 10
_LIST_STYLE = re.compile(r"List (Bullet|Number)(?: ([2-9]))?")


def sprm(sprm: int, value: int, size: int) -> bytes:
    return struct.pack("<H", sprm) + value.to_bytes(size, "little")


def _std(sti: int, name: str) -> bytes:
    """A paragraph style based on Normal (istd 0; Normal itself on none), with empty property lists."""
    base = 0xFFF if sti == 0 else 0
    encoded = name.encode("utf-16-le")
    std = struct.pack("<HHHHH", sti, 1 | base << 4, 2 | 0 << 4, 0, 0) + struct.pack("<H", len(name)) + encoded + b"\0\0"
    std += b"\0" * (len(std) & 1) + struct.pack("<HH", 2, 0)  # the paragraph UPX (istd 0), then the character one
    std += b"\0" * (len(std) & 1) + struct.pack("<H", 0)
    return struct.pack("<H", len(std)) + std


def _stylesheet() -> bytes:
    styles = [_std(0, "Normal"), *(_std(n, f"heading {n}") for n in range(1, 10)), _std(0xFFE, "Quote")]
    header = struct.pack("<HHHHHH", len(styles), 10, 1, 0x5B, 15, 0) + b"\0" * 6
    return struct.pack("<H", len(header)) + header + b"".join(styles)


def _fonts() -> bytes:
    out = struct.pack("<HH", len(FONTS), 0)
    for name in FONTS:
        ffn = b"\0" * 39 + (name + "\0").encode("utf-16-le")
        out += bytes([len(ffn)]) + ffn  # (cbFfnM1: the FFN's size less one, this byte counted)
    return out


def _lists() -> tuple[bytes, bytes, bytes]:
    """PlfLst, the LVLs that follow it, and PlfLfo: list 1 bulleted, list 2 numbered."""
    lst, levels, lfo = struct.pack("<h", 2), b"", struct.pack("<i", 2)
    for lsid, nfc in ((101, binary.BULLET), (102, 0)):
        lst += struct.pack("<ii", lsid, 0) + struct.pack("<9H", *[0xFFF] * 9) + b"\0\0"
        for level in range(9):
            number = "\uf0b7" if nfc == binary.BULLET else f"{chr(level)}."
            levels += (struct.pack("<iBB", 1, nfc, 0) + b"\0" * 10 + struct.pack("<ii", 0, 0) + b"\0\0\0\0"
                       + struct.pack("<H", len(number)) + number.encode("utf-16-le"))
        lfo += struct.pack("<iiiBBBB", lsid, 0, 0, 0, 0, 0, 0)
    return lst, levels, lfo + b"\xff\xff\xff\xff" * 2


def _fkp(runs: list[tuple[int, int, bytes]], paragraphs: bool) -> list[tuple[int, bytes]]:
    """Runs ``(fc, fc_end, props)`` packed into FKP pages: ``(first fc, page)`` each. A page holds
    the runs' limits from its start and their properties from byte 510 down (at even offsets, the
    last byte being the run count)."""
    pages, at, entry = [], 0, 13 if paragraphs else 1
    while at < len(runs):
        count, data, offsets = 0, b"", []
        for _, _, props in runs[at:at + (29 if paragraphs else 101)]:
            if paragraphs:  # PapxInFkp: istd and sprms, their size in words
                blob = bytes([(len(props) + 1) // 2]) + props if len(props) & 1 else bytes([0, len(props) // 2]) + props
            else:
                blob = bytes([len(props)]) + props if props else b""
            blob += b"\0" * (len(blob) & 1)
            if 4 * (count + 2) + entry * (count + 1) > binary.PAGE - 2 - len(data) - len(blob):
                break
            data = blob + data
            offsets.append(binary.PAGE - 2 - len(data) if blob else 0)
            count += 1
        chunk = runs[at:at + count]
        page = bytearray(binary.PAGE)
        page[:4 * (count + 1)] = struct.pack(f"<{count + 1}I", *[fc for fc, _, _ in chunk], chunk[-1][1])
        for i, offset in enumerate(offsets):
            page[4 * (count + 1) + entry * i] = offset // 2
        page[binary.PAGE - 2 - len(data):binary.PAGE - 2] = data
        page[binary.PAGE - 1] = count
        pages.append((chunk[0][0], bytes(page)))
        at += count
    return pages


class DocText:
    """A document's text as it is laid out, with its character and paragraph runs (in characters,
    UTF-16 units); :func:`assemble` writes it as a ``.doc``."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.cp = 0
        self.chars: list[tuple[int, int, bytes]] = []
        self.paragraphs: list[tuple[int, int, bytes]] = []
        self.paragraph_start = 0

    def add(self, text: str, props: bytes = b"") -> None:
        """Characters with their character sprms."""
        start = self.cp
        self.parts.append(text)
        self.cp += len(text.encode("utf-16-le")) // 2  # (an emoji is two characters)
        if self.chars and self.chars[-1][1] == start and self.chars[-1][2] == props:
            self.chars[-1] = (self.chars[-1][0], self.cp, props)  # (one run while the format stays, as Word keeps it)
        elif self.cp > start:
            self.chars.append((start, self.cp, props))

    def end_paragraph(self, istd: int = 0, props: bytes = b"", mark: str = "\r") -> None:
        """A paragraph mark (a cell's or a row's: ``\\x07``) with the paragraph's style and sprms."""
        self.add(mark)
        self.paragraphs.append((self.paragraph_start, self.cp, struct.pack("<H", istd) + props))
        self.paragraph_start = self.cp


def _runs(text: DocText, paragraph: Any) -> None:
    for item in paragraph.iter_inner_content():
        url = getattr(item, "address", None)
        if url:
            text.add(f'\x13 HYPERLINK "{url}" \x14')
        for run in item.runs if url else [item]:
            props = (sprm(binary.C_BOLD, 1, 1) if run.bold else b"") + (sprm(binary.C_ITALIC, 1, 1) if run.italic else b"")
            props += sprm(binary.C_FONT, 1, 2) if run.font.name == FONTS[1] else b""
            text.add(run.text.replace("\n", "\x0b").replace("\t", " "), props)
        if url:
            text.add("\x15")


def docx_doc(docx_bytes: bytes) -> bytes:
    """A ``.docx`` (as :func:`markdown_docx` writes them) laid out as a ``.doc`` (module docstring)."""
    import docx

    text = DocText()
    for item in docx.Document(io.BytesIO(docx_bytes)).iter_inner_content():
        if hasattr(item, "rows"):  # a table
            cell_props = sprm(binary.P_IN_TABLE, 1, 1) + sprm(binary.P_ITAP, 1, 4)
            for row in item.rows:
                for cell in row.cells:
                    for i, paragraph in enumerate(cell.paragraphs):
                        _runs(text, paragraph)
                        text.end_paragraph(0, cell_props, "\x07" if i == len(cell.paragraphs) - 1 else "\r")
                text.end_paragraph(0, cell_props + sprm(binary.P_TTP, 1, 1), "\x07")
            continue
        name = item.style.name if item.style is not None else "Normal"
        istd, props = 0, b""
        if name.startswith("Heading "):
            istd = int(name.split()[1])
        elif name == "Quote":
            istd = QUOTE_ISTD
        elif listed := _LIST_STYLE.fullmatch(name):
            props = sprm(binary.P_ILFO, 1 if listed.group(1) == "Bullet" else 2, 2) + sprm(binary.P_ILVL, int(listed.group(2) or 1) - 1, 1)
        _runs(text, item)
        text.end_paragraph(istd, props)
    return assemble(text)


def assemble(text: DocText, compressed: bool = False) -> bytes:
    """The ``.doc`` file's bytes: the text as one piece, UTF-16 or (``compressed``) Windows-1252."""
    width = 1 if compressed else 2
    body = "".join(text.parts).encode("cp1252" if compressed else "utf-16-le")

    def fcs(runs: list[tuple[int, int, bytes]]) -> list[tuple[int, int, bytes]]:
        return [(TEXT_FC + width * cp, TEXT_FC + width * end, props) for cp, end, props in runs]

    chars, paragraphs = _fkp(fcs(text.chars), paragraphs=False), _fkp(fcs(text.paragraphs), paragraphs=True)
    first_page = -(-(TEXT_FC + len(body)) // binary.PAGE)
    table = b""
    pairs = [(0, 0)] * 93

    def put(index: int, data: bytes, after: bytes = b"") -> None:
        nonlocal table
        pairs[index] = (len(table), len(data))
        table += data + after

    put(binary.STSHF, _stylesheet())
    for index, pages, start, runs in ((binary.PLCF_BTE_CHPX, chars, first_page, text.chars),
                                      (binary.PLCF_BTE_PAPX, paragraphs, first_page + len(chars), text.paragraphs)):
        put(index, struct.pack(f"<{len(pages) + 1}I", *[fc for fc, _ in pages], TEXT_FC + width * runs[-1][1])
            + struct.pack(f"<{len(pages)}I", *range(start, start + len(pages))))
    put(binary.STTBF_FFN, _fonts())
    fc = (2 * TEXT_FC) | 0x40000000 if compressed else TEXT_FC  # (an 8-bit piece: twice its offset, flagged)
    plc = struct.pack("<II", 0, text.cp) + struct.pack("<HIH", 0, fc, 0)
    put(binary.CLX, b"\x02" + struct.pack("<I", len(plc)) + plc)
    lst, levels, lfo = _lists()
    put(binary.PLF_LST, lst, levels)
    put(binary.PLF_LFO, lfo)

    fib = struct.pack("<HHHHHHHIBBHHII", 0xA5EC, binary.WORD97_NFIB, 0, 0x0409, 0, 0x1200, 0x00BF, 0, 0, 0, 0, 0, 0, 0)
    fib += struct.pack("<H", 14) + b"\0" * 28 + struct.pack("<H", 22)
    fib += struct.pack("<22i", *[0, 0, 0, text.cp] + [0] * 18)
    fib += struct.pack("<H", 93) + b"".join(struct.pack("<II", fc, lcb) for fc, lcb in pairs) + struct.pack("<H", 0)
    word = fib + b"\0" * (TEXT_FC - len(fib)) + body
    word += b"\0" * (first_page * binary.PAGE - len(word)) + b"".join(page for _, page in chars + paragraphs)
    return compound_file({"WordDocument": word, "1Table": table})


def markdown_doc(text: str) -> bytes:
    """The Markdown as a ``.doc`` file's bytes: written as a ``.docx`` first (module docstring)."""
    from whowrote.style.docx_writer import markdown_docx

    return docx_doc(markdown_docx(text))
