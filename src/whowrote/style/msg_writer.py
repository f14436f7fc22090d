"""Outlook messages (``.msg``) written as Outlook saves an HTML mail, for the tests and
``benchmarks/email_reader.py`` (no Outlook runs here): :func:`outlook_message` puts the body
properties into a Compound File, the HTML only inside compressed RTF (:func:`encapsulate_html`,
[MS-OXRTFEX]; :func:`compress_rtf`, [MS-OXRTFCP]).

:func:`compound_file` is a minimal Compound File (CFB version 3, [MS-CFB]) writer: streams at the
root only, 512-byte sectors, streams under 4,096 bytes in the mini stream (64-byte mini sectors).
The directory's red-black tree is written as a chain of black right siblings in CFB name order
(readers walk it; none balance-checks it). ``whowrote predict`` reads with olefile
(:mod:`whowrote.style.msg_reader`), not with anything here.
"""

from __future__ import annotations

import re
import struct

from whowrote.style.rtf_html import COMPRESSED, PRESET

MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
FREE, END, FAT_SECTOR, NONE = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF
SECTOR, MINI, CUTOFF = 512, 64, 4096


def _pad(data: bytes, size: int) -> bytes:
    return data + b"\x00" * (-len(data) % size)


def _entry(name: str, kind: int, start: int, size: int, right: int = NONE, child: int = NONE) -> bytes:
    encoded = (name + "\x00").encode("utf-16-le")
    return (_pad(encoded, 64)[:64] + struct.pack("<HBBIII", len(encoded), kind, 1, NONE, right, child)
            + b"\x00" * 36 + struct.pack("<IQ", start, size))


def compound_file(streams: dict[str, bytes]) -> bytes:
    """The bytes of a Compound File holding ``streams`` (name -> data) at its root."""
    names = sorted(streams, key=lambda n: (len(n), n.upper()))  # CFB's order of sibling names
    mini_data, mini_fat, big = b"", [], []
    starts: dict[str, int] = {}
    for name in names:
        data = streams[name]
        if len(data) < CUTOFF:
            starts[name] = len(mini_data) // MINI if data else END
            count = -(-len(data) // MINI)
            mini_fat += [len(mini_fat) + i + 1 for i in range(count - 1)] + [END] * bool(count)
            mini_data += _pad(data, MINI)
        else:
            big.append(name)
    fat: list[int] = []
    sectors: list[bytes] = []

    def place(data: bytes) -> int:
        if not data:
            return END
        start = len(sectors)
        chunks = [data[i:i + SECTOR] for i in range(0, len(data), SECTOR)]
        sectors.extend(_pad(c, SECTOR) for c in chunks)
        fat.extend([start + i + 1 for i in range(len(chunks) - 1)] + [END])
        return start

    root_start = place(mini_data)
    for name in big:
        starts[name] = place(streams[name])
    mini_fat_start = place(b"".join(struct.pack("<I", v) for v in mini_fat))
    entries = [_entry("Root Entry", 5, root_start, len(mini_data), child=1 if names else NONE)]
    entries += [_entry(n, 2, starts[n], len(streams[n]), right=i + 2 if i + 1 < len(names) else NONE)
                for i, n in enumerate(names)]
    directory_start = place(_pad(b"".join(entries), SECTOR))
    n_fat = 1
    while (len(sectors) + n_fat) > n_fat * (SECTOR // 4):
        n_fat += 1
    assert n_fat <= 109, "too large for a header-only DIFAT"
    fat_first = len(sectors)
    fat += [FAT_SECTOR] * n_fat
    fat += [FREE] * (n_fat * (SECTOR // 4) - len(fat))
    table = b"".join(struct.pack("<I", v) for v in fat)
    sectors += [table[i:i + SECTOR] for i in range(0, len(table), SECTOR)]
    difat = [fat_first + i for i in range(n_fat)] + [FREE] * (109 - n_fat)
    header = (MAGIC + b"\x00" * 16 + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6) + b"\x00" * 6
              + struct.pack("<IIIIIIIII", 0, n_fat, directory_start, 0, CUTOFF, mini_fat_start,
                            len(mini_fat) and -(-len(mini_fat) * 4 // SECTOR), END, 0)
              + b"".join(struct.pack("<I", v) for v in difat))
    assert len(header) == SECTOR
    return header + b"".join(sectors)


def compress_rtf(rtf: bytes) -> bytes:
    """``rtf`` as a ``PidTagRtfCompressed`` value: LZFu of literals only (valid, and what a reader
    must take; a compressor's back-references are the specification's examples, in the tests),
    ended by the end marker, a reference to the dictionary's write position. The CRC is left 0
    (readers here do not check it)."""
    body = bytearray()
    whole = len(rtf) // 8 * 8
    for i in range(0, whole, 8):
        body += b"\x00" + rtf[i:i + 8]
    tail = rtf[whole:]
    body += bytes([1 << len(tail)]) + tail + struct.pack(">H", ((len(PRESET) + len(rtf)) & 4095) << 4)
    return struct.pack("<IIII", len(body) + 12, len(rtf), COMPRESSED, 0) + bytes(body)


_TAG = re.compile(r"<[^<>]*>")  # (a match never runs past the next "<": linear)


def _rtf_escaped(text: str) -> str:
    """Text as RTF: ``\\ { }`` escaped, a line break ``\\par``, beyond ASCII as ``\\uN?``."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in "\\{}":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\par\r\n")
        elif code > 126:
            for unit in struct.unpack(f"<{len(ch.encode('utf-16-le')) // 2}h", ch.encode("utf-16-le")):
                out.append(f"\\u{unit}?")
        else:
            out.append(ch)
    return "".join(out)


def encapsulate_html(html: str) -> bytes:
    """HTML as Outlook's ``\\fromhtml1`` RTF: each tag in a ``{\\*\\htmltag}`` group, the text
    between them as RTF text, an RTF-only line break fenced by ``\\htmlrtf`` after each block's end."""
    parts = ["{\\rtf1\\ansi\\ansicpg1252\\fromhtml1 \\deff0{\\fonttbl\r\n{\\f0\\fswiss Arial;}}\r\n"
             "\\uc1\\pard\\plain\\deftab360 \\f0\\fs24 \r\n"]
    at = 0
    for tag in _TAG.finditer(html):
        parts.append(_rtf_escaped(html[at:tag.start()]))
        parts.append("{\\*\\htmltag64 " + _rtf_escaped(tag.group()) + "}")
        if tag.group().startswith(("</p", "</h", "</li", "</div", "<br")):
            parts.append("\\htmlrtf \\par \\htmlrtf0 ")
        at = tag.end()
    parts.append(_rtf_escaped(html[at:]) + "}")
    return "".join(parts).encode("ascii")


def outlook_message(html: str | None = None, rtf: bytes | None = None, plain: str | None = None,
                    plain8: bytes | None = None, longs: dict[int, int] | None = None,
                    html_property: bytes | None = None) -> bytes:
    """A ``.msg``'s bytes: ``html`` encapsulated in its compressed RTF body (as Outlook saves an
    HTML mail), or ``rtf`` compressed as it is; ``plain`` its Unicode text body (``plain8``: an 8-bit
    one); ``html_property`` a ``PidTagBodyHtml`` value; ``longs`` 32-bit properties (id -> value)."""
    props = b"\x00" * 32 + b"".join(struct.pack("<IIiI", prop << 16 | 0x0003, 6, value, 0)
                                    for prop, value in (longs or {}).items())
    streams = {"__properties_version1.0": props, "__substg1.0_0037001F": "Notes".encode("utf-16-le")}
    if html is not None:
        rtf = encapsulate_html(html)
    if rtf is not None:
        streams["__substg1.0_10090102"] = compress_rtf(rtf)
    if html_property is not None:
        streams["__substg1.0_10130102"] = html_property
    if plain is not None:
        streams["__substg1.0_1000001F"] = plain.encode("utf-16-le")
    if plain8 is not None:
        streams["__substg1.0_1000001E"] = plain8
    return compound_file(streams)
