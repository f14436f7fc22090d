"""Outlook's RTF bodies: compressed RTF unpacked, and the HTML an HTML mail's RTF body carries read back.

An Outlook message (``.msg``) often keeps its body only as *compressed RTF* (the
``PidTagRtfCompressed`` property, [MS-OXRTFCP]: an LZ77 variant whose 4 KB dictionary starts with
a preset RTF header). When the mail was written in HTML, that RTF *encapsulates* the HTML
([MS-OXRTFEX], marked ``\\fromhtml1``): the HTML's tags sit in ``{\\*\\htmltag ...}`` groups, its
text between them, and what only the RTF rendering needs is fenced by ``\\htmlrtf`` ...
``\\htmlrtf0``. :func:`decompress_rtf` undoes the compression and :func:`encapsulated_html` gives
the HTML back, so the message is read as its HTML (headings, lists, emphasis), not as the RTF's
approximation of it. Both are one linear pass; the output is capped, and groups nested past
:data:`~whowrote.style.rtf_tokens.MAX_DEPTH` are read as their parent (no state copied for them).
"""

from __future__ import annotations

import struct

from whowrote.style.office_xml import DocumentError
from whowrote.style.rtf_tokens import (
    MAX_DEPTH,
    SKIP_DESTINATIONS,
    SYMBOLS,
    in_code_page,
    recode,
    rtf_tokens,
    unicode_char,
)

# [MS-OXRTFCP] 2.1.2.1: the dictionary's first 207 bytes (the rest is zeros)
PRESET = (b"{\\rtf1\\ansi\\mac\\deff0\\deftab720{\\fonttbl;}{\\f0\\fnil \\froman \\fswiss \\fmodern \\fscript \\fdecor "
          b"MS Sans SerifSymbolArialTimes New RomanCourier{\\colortbl\\red0\\green0\\blue0\r\n\\par "
          b"\\pard\\plain\\f0\\fs20\\b\\i\\u\\tab\\tx")
COMPRESSED, UNCOMPRESSED = 0x75465A4C, 0x414C454D  # "LZFu", "MELA"
MAX_RTF_BYTES = 64 * 1024 * 1024  # an unpacked body (a 3,000-word mail is ~100 kB of RTF)
_NOT_HTML = SKIP_DESTINATIONS | {"fonttbl", "mhtmltag"}  # (an mhtmltag repeats the htmltag after it, with its original URL)


def decompress_rtf(data: bytes) -> bytes:
    """A ``PidTagRtfCompressed`` value's RTF ([MS-OXRTFCP]): LZFu-compressed or stored ("MELA");
    :class:`DocumentError` for anything else. At most :data:`MAX_RTF_BYTES` come out."""
    if len(data) < 16:
        raise DocumentError("an Outlook message whose RTF body is cut short")
    _, raw_size, kind, _ = struct.unpack_from("<IIII", data)
    if kind == UNCOMPRESSED:
        return data[16:16 + min(raw_size, MAX_RTF_BYTES)]
    if kind != COMPRESSED:
        raise DocumentError("an Outlook message whose RTF body is in an unknown compression")
    limit = min(raw_size, MAX_RTF_BYTES)
    window = bytearray(4096)
    window[:len(PRESET)] = PRESET
    at = len(PRESET)  # the dictionary's write position
    out = bytearray()
    i, n = 16, len(data)
    while i < n and len(out) < limit:
        flags = data[i]
        i += 1
        for bit in range(8):
            if i >= n:
                break
            if not flags >> bit & 1:  # a literal byte
                window[at] = data[i]
                out.append(data[i])
                at = (at + 1) & 4095
                i += 1
                continue
            if i + 1 >= n:
                break
            ref = data[i] << 8 | data[i + 1]
            i += 2
            offset, length = ref >> 4, (ref & 15) + 2
            if offset == at:  # the end marker
                return bytes(out[:limit])
            for k in range(length):  # (byte by byte: a reference may overlap the bytes it writes)
                byte = window[(offset + k) & 4095]
                window[at] = byte
                out.append(byte)
                at = (at + 1) & 4095
    return bytes(out[:limit])


def is_encapsulated_html(rtf: bytes) -> bool:
    """Whether an RTF body carries HTML (``\\fromhtml1`` in its header)."""
    return b"\\fromhtml1" in rtf[:2048]


def encapsulated_html(rtf: bytes) -> str:
    """The HTML an ``\\fromhtml1`` RTF body carries ([MS-OXRTFEX] 2.1.3.1): the text of its
    ``\\*\\htmltag`` groups and the text outside them, less what ``\\htmlrtf`` fences, the font
    and colour tables and other destinations; ``\\par`` is a line break, ``\\'xx`` a byte of the
    document's code page, ``\\uN`` a character."""
    out: list[str] = []
    pending = bytearray()  # \'xx bytes, decoded together (a double-byte code page's character is two)
    codepage = "cp1252"
    state = {"skip": False, "fenced": False, "uc": 1}
    stack: list[dict] = []
    overflow = 0  # groups opened past MAX_DEPTH (read as their parent: no state copied for them)
    first_in_group = star = False
    drop = 0  # characters after a \uN that stand in for it
    high = 0  # a surrogate pair's first \uN

    def flush() -> None:
        if pending:
            out.append(in_code_page(bytes(pending), codepage))
            pending.clear()

    for token in rtf_tokens(rtf.decode("latin-1")):
        kind = token[0]
        if kind == "byte":
            if drop:
                drop -= 1
            elif not state["skip"] and not state["fenced"]:
                pending.append(token[1])
            continue
        flush()
        if kind == "{":
            if len(stack) < MAX_DEPTH:
                stack.append(dict(state))
            else:
                overflow += 1
            first_in_group, star = True, False
            continue
        if kind == "}":
            if overflow:
                overflow -= 1
            elif stack:
                state = stack.pop()
            first_in_group = star = False
            continue
        if kind == "text":
            text = token[1] if token[1].isascii() else recode(token[1], codepage)
            if drop:
                text, drop = text[min(drop, len(text)):], max(drop - len(text), 0)
            if text and not state["skip"] and not state["fenced"]:
                out.append("\ufffd" + text if high else text)  # (after a surrogate pair's lone first half)
                high = 0
            first_in_group = star = False
            continue
        name, param = token[1], token[2]
        if name == "*":
            star = first_in_group
            continue
        if first_in_group and (name in _NOT_HTML or (star and name != "htmltag")):
            state["skip"] = True
        first_in_group = star = False
        if name == "htmlrtf":
            state["fenced"] = param != 0
        elif name == "ansicpg" and param:
            codepage = f"cp{param}"
        elif name == "uc":
            state["uc"] = max(param or 0, 0)
        elif state["skip"] or state["fenced"]:
            continue
        elif name == "u":
            char, high = unicode_char(param, high)
            out.append(char)
            drop = state["uc"]
        elif name in ("par", "line"):
            out.append("\r\n")
        elif name in SYMBOLS:
            out.append(SYMBOLS[name])
    flush()
    return "".join(out)
