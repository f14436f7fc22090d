"""The structures of a Word 97-2003 binary document (``.doc``) that its text and formatting are read
from ([MS-DOC]); :mod:`whowrote.style.doc_reader` lays them out as Markdown.

A ``.doc`` is a Compound File whose ``WordDocument`` stream starts with the File Information Block
(FIB): where each structure lies in the table stream (``0Table`` or ``1Table``) and how many
characters the main text has. The text is the piece table's pieces (each 8-bit Windows-1252 or
UTF-16); paragraph and character properties are runs over the stream's byte offsets, kept in
512-byte formatted disk pages (FKPs) as lists of property modifiers ("sprms"); styles, fonts and
list formats are tables of their own. Only what the reader needs is decoded: paragraph style, list,
outline level and table marks; bold, italic, hidden, deleted, character style and font.

Untrusted files: every offset is checked against its stream (a slice past the end is empty, a
struct read past it raises ``struct.error``, which the reader turns into one line), and every count
is bounded by the bytes it describes.
"""

from __future__ import annotations

import struct
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field

# FibRgFcLcb97 pairs (fc, lcb) used here, by index
STSHF, PLCF_BTE_CHPX, PLCF_BTE_PAPX, STTBF_FFN, CLX, PLF_LST, PLF_LFO = 1, 12, 13, 15, 33, 73, 74
WORD97_NFIB = 0x00C1  # Word 97's FIB version; Word 6 and 95 wrote 0x0065-0x0068 (another layout)
PAGE = 512  # one formatted disk page
BULLET = 0x17  # a list level's number format (nfc) that is a bullet
# sprms read: paragraph
P_ILVL, P_ILFO, P_IN_TABLE, P_TTP, P_OUTLINE, P_ITAP = 0x260A, 0x460B, 0x2416, 0x2417, 0x2640, 0x6649
# character (a symbol: the font and character a "(" in the text stands for)
C_DELETED, C_BOLD, C_ITALIC, C_HIDDEN, C_ISTD, C_FONT, C_SYMBOL = 0x0800, 0x0835, 0x0836, 0x083C, 0x4A30, 0x4A4F, 0x6A09
_OPERAND = (1, 1, 2, 4, 2, 2, 0, 3)  # operand bytes by a sprm's top three bits (0: sized by its first byte)


@dataclass(frozen=True)
class Fib:
    table: str  # the table stream's name
    text_chars: int  # ccpText: the main document's characters
    pairs: tuple[tuple[int, int], ...]  # (fc, lcb) of each structure in the table stream


@dataclass(frozen=True)
class Piece:
    cp: int  # first character position
    cp_end: int
    fc: int  # byte offset in WordDocument of its first character
    wide: bool  # UTF-16 (else one byte a character, Windows-1252)


@dataclass
class Style:
    name: str = ""
    sti: int = 0xFFE  # the built-in style it is (1-9: heading 1-9), 0xFFE a user's own
    base: int = 0xFFF  # istd of the style it is based on
    para: dict[int, bytes] = field(default_factory=dict)  # its paragraph sprms
    chars: dict[int, bytes] = field(default_factory=dict)  # its character sprms


def fib(word: bytes) -> Fib:
    """The FIB at the start of a ``WordDocument`` stream; ValueError for Word 95 and older, or an
    encrypted file."""
    ident, nfib = struct.unpack_from("<HH", word, 0)
    flags = struct.unpack_from("<H", word, 0x0A)[0]
    if ident == 0xA5DC or 0x0065 <= nfib < WORD97_NFIB - 1:  # (Word 6 and 95; 0x00C0: Word 97 betas wrote 97's layout)
        raise ValueError("a Word 95 or older document (.doc); open it in Word or LibreOffice and save it as .docx")
    if ident != 0xA5EC or nfib < WORD97_NFIB - 1:
        raise ValueError("a Compound File whose WordDocument stream is not a Word document's")
    if flags & 0x0100:
        raise ValueError("a password-protected Word document")
    at = 32
    csw = struct.unpack_from("<H", word, at)[0]
    at += 2 + 2 * csw
    cslw = struct.unpack_from("<H", word, at)[0]
    lw = struct.unpack_from(f"<{min(cslw, 22)}i", word, at + 2)
    at += 2 + 4 * cslw
    count = struct.unpack_from("<H", word, at)[0]
    values = struct.unpack_from(f"<{2 * count}I", word, at + 2)
    pairs = tuple(zip(values[::2], values[1::2], strict=True))
    return Fib("1Table" if flags & 0x0200 else "0Table", max(0, lw[3]), pairs)


def structure(table: bytes, fib: Fib, index: int) -> bytes:
    """The bytes of one structure of the table stream (empty when the FIB has none)."""
    if index >= len(fib.pairs):
        return b""
    fc, lcb = fib.pairs[index]
    return table[fc:fc + lcb] if lcb else b""


def sprms(grpprl: bytes) -> Iterator[tuple[int, bytes]]:
    """(sprm, operand) of each property modifier in a list of them; a truncated last one ends it."""
    at = 0
    while at + 2 <= len(grpprl):
        sprm = struct.unpack_from("<H", grpprl, at)[0]
        at += 2
        size = _OPERAND[sprm >> 13]
        if size == 0:  # a variable-size operand: its length first
            if sprm in (0xD608, 0xD606):  # table definitions: a 2-byte length that counts itself less one
                if at + 2 > len(grpprl):
                    return
                size = struct.unpack_from("<H", grpprl, at)[0] + 1
            elif at < len(grpprl):
                size, at = grpprl[at], at + 1
            else:
                return
        if at + size > len(grpprl):
            return
        yield sprm, grpprl[at:at + size]
        at += size


def pieces(table: bytes, fib: Fib) -> list[Piece]:
    """The piece table (the CLX's PlcPcd): where each stretch of the text lies, in order."""
    clx = structure(table, fib, CLX)
    at = 0
    while at < len(clx) and clx[at] == 0x01:  # Prc: property modifiers of fast-saved pieces (not read)
        at += 3 + struct.unpack_from("<H", clx, at + 1)[0]  # (unsigned: a broken size still moves on)
    if at >= len(clx) or clx[at] != 0x02:
        raise ValueError("a Word document without a piece table")
    size = struct.unpack_from("<I", clx, at + 1)[0]
    plc = clx[at + 5:at + 5 + size]
    n = (len(plc) - 4) // 12
    cps = struct.unpack_from(f"<{n + 1}I", plc)
    out: list[Piece] = []
    for i in range(n):
        fc = struct.unpack_from("<I", plc, 4 * (n + 1) + 8 * i + 2)[0]
        compressed = bool(fc & 0x40000000)
        fc &= 0x3FFFFFFF
        if cps[i + 1] > cps[i] >= (out[-1].cp_end if out else 0):  # (pieces in order, never overlapping)
            out.append(Piece(cps[i], cps[i + 1], fc // 2 if compressed else fc, not compressed))
    return out


def piece_text(word: bytes, piece: Piece, cp: int, cp_end: int) -> str:
    """The characters ``cp`` to ``cp_end`` of one piece."""
    width = 2 if piece.wide else 1
    start = piece.fc + (cp - piece.cp) * width
    data = word[start:start + (cp_end - cp) * width]
    return data.decode("utf-16-le", errors="replace") if piece.wide else data.decode("cp1252", errors="replace")


@dataclass(frozen=True)
class Runs:
    """Properties over byte ranges of the WordDocument stream, from one kind of FKP."""
    starts: list[int]
    ends: list[int]
    props: list[tuple[int, bytes]]  # (istd, grpprl); istd -1 for character runs

    def at(self, fc: int) -> tuple[int, bytes]:
        i = bisect_right(self.starts, fc) - 1
        return self.props[i] if i >= 0 and fc < self.ends[i] else (-1, b"")


def fkp_runs(word: bytes, table: bytes, fib: Fib, paragraphs: bool) -> Runs:
    """The paragraph (``paragraphs``) or character property runs of the document's FKPs."""
    plc = structure(table, fib, PLCF_BTE_PAPX if paragraphs else PLCF_BTE_CHPX)
    n = max(0, (len(plc) - 4) // 8)
    starts: list[int] = []
    ends: list[int] = []
    props: list[tuple[int, bytes]] = []
    for pn in sorted({v & 0x3FFFFF for v in struct.unpack_from(f"<{n}I", plc, 4 * (n + 1))}):
        page = word[pn * PAGE:(pn + 1) * PAGE]
        if len(page) < PAGE:
            continue
        crun = page[PAGE - 1]
        if 4 * (crun + 1) + crun * (13 if paragraphs else 1) > PAGE - 1:
            continue  # a broken page
        fcs = struct.unpack_from(f"<{crun + 1}I", page)
        for i in range(crun):
            if paragraphs:
                offset = 2 * page[4 * (crun + 1) + 13 * i]
                cb = page[offset] if offset else 0
                if offset and cb == 0 and offset + 1 < PAGE:  # a long PAPX: the count is in the next byte
                    data = page[offset + 2:offset + 2 + 2 * page[offset + 1]]
                else:
                    data = page[offset + 1:offset + 2 * cb] if offset else b""
                istd = struct.unpack_from("<H", data)[0] if len(data) >= 2 else 0
                props.append((istd, data[2:]))
            else:
                offset = 2 * page[4 * (crun + 1) + i]
                props.append((-1, page[offset + 1:offset + 1 + page[offset]] if offset else b""))
            starts.append(fcs[i])
            ends.append(fcs[i + 1])
    order = sorted(range(len(starts)), key=starts.__getitem__)
    return Runs([starts[i] for i in order], [ends[i] for i in order], [props[i] for i in order])


def styles(table: bytes, fib: Fib) -> list[Style]:
    """The style sheet (STSH), by istd; an empty slot is an unnamed Style."""
    stsh = structure(table, fib, STSHF)
    if len(stsh) < 6:
        return []
    header = struct.unpack_from("<H", stsh)[0]
    count, base_size = struct.unpack_from("<HH", stsh, 2)
    at = 2 + header
    out = []
    for _ in range(count):
        if at + 2 > len(stsh):
            break
        size = struct.unpack_from("<H", stsh, at)[0]
        std = stsh[at + 2:at + 2 + size]
        at += 2 + size
        out.append(_style(std, base_size) if size >= 10 else Style())
    return out


def _style(std: bytes, base_size: int) -> Style:
    word0, word1, word2 = struct.unpack_from("<HHH", std)
    kind, upx_count = word1 & 0xF, word2 & 0xF
    at = base_size
    chars = struct.unpack_from("<H", std, at)[0] if at + 2 <= len(std) else 0
    name = std[at + 2:at + 2 + 2 * chars].decode("utf-16-le", errors="replace")
    at += 2 + 2 * chars + 2  # (the name ends with a null character)
    upx: list[bytes] = []
    for _ in range(min(upx_count, 3)):
        at += at & 1  # each UPX starts at an even offset
        if at + 2 > len(std):
            break
        size = struct.unpack_from("<H", std, at)[0]
        upx.append(std[at + 2:at + 2 + size])
        at += 2 + size
    style = Style(name.split(",")[0].strip().lower(), word0 & 0xFFF, word1 >> 4)
    if kind == 1 and len(upx) >= 2:  # a paragraph style: its paragraph UPX (istd first), then its character UPX
        style.para, style.chars = dict(sprms(upx[0][2:])), dict(sprms(upx[1]))
    elif kind == 2 and upx:  # a character style
        style.chars = dict(sprms(upx[0]))
    return style


def fonts(table: bytes, fib: Fib) -> list[str]:
    """The font table's names (SttbfFfn), by index."""
    data = structure(table, fib, STTBF_FFN)
    if len(data) < 4:
        return []
    count = struct.unpack_from("<H", data)[0]
    at, out = 4, []
    for _ in range(count):
        if at >= len(data):
            break
        size = data[at] + 1
        name = data[at + 40:at + size].decode("utf-16-le", errors="replace")
        out.append(name.split("\x00")[0])
        at += size
    return out


def list_formats(table: bytes, fib: Fib) -> dict[int, tuple[int, ...]]:
    """ilfo (1-based) -> the number format (nfc) of each level of its list; :data:`BULLET` is a bullet.
    The lists' levels (LVLs) follow the PlfLst in the table stream, outside its byte count."""
    lst, lfo = structure(table, fib, PLF_LST), structure(table, fib, PLF_LFO)
    if len(lst) < 2 or len(lfo) < 4:
        return {}
    count = max(0, min(struct.unpack_from("<h", lst)[0], (len(lst) - 2) // 28))
    at = sum(fib.pairs[PLF_LST])  # (the levels: in the table stream, right after the PlfLst)
    by_id: dict[int, tuple[int, ...]] = {}
    for i in range(count):
        lsid = struct.unpack_from("<i", lst, 2 + 28 * i)[0]
        simple = lst[2 + 28 * i + 26] & 1
        nfcs = []
        for _ in range(1 if simple else 9):
            if at + 28 > len(table):
                break
            nfcs.append(table[at + 4])
            at += 28 + table[at + 25] + table[at + 24]  # (its paragraph and character sprms)
            chars = struct.unpack_from("<H", table, at)[0] if at + 2 <= len(table) else 0
            at += 2 + 2 * chars  # (its number text)
        by_id[lsid] = tuple(nfcs)
    n = struct.unpack_from("<i", lfo)[0]
    out = {}
    for i in range(max(0, min(n, (len(lfo) - 4) // 16))):
        lsid = struct.unpack_from("<i", lfo, 4 + 16 * i)[0]
        if lsid in by_id:
            out[i + 1] = by_id[lsid]
    return out
