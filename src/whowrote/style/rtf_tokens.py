"""RTF's lexical layer, shared by the RTF reader (:mod:`whowrote.style.rtf_reader`) and Outlook's RTF
bodies (:mod:`whowrote.style.rtf_html`): the tokens of one linear pass (:func:`rtf_tokens`), a
``\\uN``'s character (:func:`unicode_char`, surrogate pairs joined), 8-bit text in a code page
(:func:`in_code_page`, :func:`recode`, :data:`CHARSETS` for a font's ``\\fcharset``), the destinations that are not the
body and the symbols that stand for characters.
"""

from __future__ import annotations

MAX_DEPTH = 256  # groups nested deeper are read as their parent's (no state copied for them)
# destinations that are not the body (a "{\*\name" group it does not know is skipped as well)
SKIP_DESTINATIONS = frozenset({"colortbl", "stylesheet", "info", "pict", "header", "headerl", "headerr", "headerf", "footer",
                               "footerl", "footerr", "footerf", "footnote", "annotation", "object", "listtable", "listoverridetable",
                               "revtbl", "rsidtbl", "xmlnstbl", "generator", "latentstyles", "themedata", "colorschememapping",
                               "datastore", "pgdsctbl", "expandedcolortbl", "nonshppict", "shp", "pn", "pntxta", "pntxtb"})
# control words that stand for a character
SYMBOLS = {"bullet": "\u2022", "endash": "\u2013", "emdash": "\u2014", "lquote": "\u2018", "rquote": "\u2019",
           "ldblquote": "\u201c", "rdblquote": "\u201d", "tab": "\t", "line": "\n", "~": "\u00a0", "_": "\u2011"}
# a font's \fcharsetN as the code page its \'xx bytes are in (0, 1 and the Symbol font's 2: the document's own)
CHARSETS = {77: "mac_roman", 128: "cp932", 129: "cp949", 130: "johab", 134: "cp936", 136: "cp950", 161: "cp1253",
            162: "cp1254", 163: "cp1258", 177: "cp1255", 178: "cp1256", 186: "cp1257", 204: "cp1251", 222: "cp874",
            238: "cp1250", 255: "cp437"}


def rtf_tokens(rtf: str):
    """``("{",)``, ``("}",)``, ``("word", name, param)`` and ``("text", str)`` tokens, in one pass."""
    i, n = 0, len(rtf)
    while i < n:
        ch = rtf[i]
        if ch in "{}":
            yield (ch,)
            i += 1
        elif ch == "\\":
            j = i + 1
            if j < n and rtf[j].isalpha():
                k = j
                while k < n and rtf[k].isalpha() and k - j < 32:
                    k += 1
                m = k + 1 if k < n and rtf[k] == "-" else k
                e = m
                while e < n and rtf[e].isdigit() and e - m < 10:
                    e += 1
                param = int(rtf[k:e]) if e > m else None
                if e < n and rtf[e] == " ":
                    e += 1  # (the space that ends a control word is not text)
                if rtf[j:k] == "bin" and param:  # raw data of that many bytes (a picture's): not text
                    i = e + max(param, 0)
                    continue
                yield ("word", rtf[j:k], param)
                i = e
            elif j < n and rtf[j] == "'":
                hex_digits = rtf[j + 1:j + 3]
                is_hex = len(hex_digits) == 2 and all(c in "0123456789abcdefABCDEF" for c in hex_digits)
                yield ("byte", int(hex_digits, 16) if is_hex else 63)  # (a broken escape: "?")
                i = j + 3
            elif j < n and rtf[j] in "\r\n":
                yield ("word", "par", None)
                i = j + 1
            else:
                yield ("word", rtf[j:j + 1], None) if j < n and rtf[j] in "~_-*:|" else ("text", rtf[j:j + 1])
                i = j + 1
        elif ch in "\r\n":
            i += 1
        else:
            end = i
            while end < n and rtf[end] not in "{}\\\r\n":
                end += 1
            yield ("text", rtf[i:end])
            i = end


def unicode_char(param: int | None, high: int) -> tuple[str, int]:
    """A ``\\uN``'s text and the high surrogate left waiting (0 when none): a character beyond the
    BMP (an emoji) is written as two ``\\uN``, its UTF-16 surrogates, which make one character here."""
    code = (param or 0) + (65536 if (param or 0) < 0 else 0)
    lost = "\ufffd" if high else ""  # (a first half with no second)
    if 0xD800 <= code < 0xDC00:
        return lost, code
    if 0xDC00 <= code < 0xE000:
        return (chr(0x10000 + ((high - 0xD800) << 10) + code - 0xDC00) if high else "\ufffd"), 0
    return lost + (chr(code) if 0 < code < 0x110000 else "\ufffd"), 0


def in_code_page(data: bytes, codepage: str) -> str:
    """``data`` decoded in ``codepage`` (a byte it does not map: U+FFFD; a code page Python has no
    codec for: Windows-1252, the usual default)."""
    try:
        return data.decode(codepage, errors="replace")
    except LookupError:
        return data.decode("cp1252", errors="replace")


def recode(text: str, codepage: str) -> str:
    """Text of an RTF file read as Latin-1 bytes, as the document's code page reads those bytes (an
    editor may write 8-bit characters raw, not as ``\\'xx``)."""
    return in_code_page(text.encode("latin-1"), codepage)
