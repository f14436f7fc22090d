"""Outlook messages (``.msg``: a mail dragged out of Outlook, or saved with "Save As") read as the
text their sender wrote, as :mod:`whowrote.style.email_reader` reads an ``.eml``.

A ``.msg`` is a Compound File (the OLE container of old Office files), read with olefile: each MAPI
property of the message is a stream named ``__substg1.0_<id><type>`` ([MS-OXMSG]). The body is
taken from the best of three properties: ``PidTagBodyHtml`` (0x1013) as HTML; else
``PidTagRtfCompressed`` (0x1009), whose RTF, once unpacked, carries the HTML of an HTML mail
(:mod:`whowrote.style.rtf_html`, what Outlook usually saves) or is the body of a rich-text mail
(read by :mod:`whowrote.style.rtf_reader`); else ``PidTagBody`` (0x1000), the plain text. HTML is
read as Markdown by :func:`whowrote.style.html_reader.html_to_markdown`; the quoted history, the
signature and a forward's note are left out as in an ``.eml`` (:func:`email_reader.sender_text`).
Headers, recipients and attachments are not read. Untrusted files: a stream larger than
:data:`MAX_STREAM_BYTES` is refused, every failure is one line (:class:`DocumentError`). Which
kind of Compound File a file is (a message, an old Word document ...) is decided in
:func:`whowrote.style.documents.compound_file_markdown`.
"""

from __future__ import annotations

import re
import struct

from whowrote.style.email_reader import HTML_BODY, MARKDOWN_READ, TEXT_BODY, sender_text
from whowrote.style.html_reader import html_to_markdown
from whowrote.style.office_xml import DocumentError
from whowrote.style.rtf_tokens import in_code_page

MAX_STREAM_BYTES = 32 * 1024 * 1024  # one property's value (a 3,000-word HTML mail is ~200 kB)
BODY, RTF_COMPRESSED, BODY_HTML = 0x1000, 0x1009, 0x1013
INTERNET_CODEPAGE, MESSAGE_CODEPAGE = 0x3FDE, 0x3FFD  # (PT_LONG properties: the HTML's and the 8-bit strings' code page)
PROPERTIES = "__properties_version1.0"
_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE)
# code pages Windows names by number that Python's codecs call otherwise
_CODEPAGES = {65001: "utf-8", 20127: "ascii", 1200: "utf-16-le", 50220: "iso2022_jp", 50221: "iso2022_jp",
              50222: "iso2022_jp", 51932: "euc_jp", 51949: "euc_kr", 20866: "koi8_r", 21866: "koi8_u", 936: "gbk",
              54936: "gb18030", 950: "big5", 52936: "hz"}


def python_codec(codepage: int) -> str:
    """A Windows code page number as a Python codec name (``cp1252``, ``utf-8``, ``iso8859-15`` ...)."""
    if 28591 <= codepage <= 28605:
        return f"iso8859-{codepage - 28590}"
    return _CODEPAGES.get(codepage, f"cp{codepage}")


def _long_properties(ole) -> dict[int, int]:
    """The message's 32-bit integer properties (id -> value) from its fixed-size property stream
    (a 32-byte header, then 16-byte entries: tag, flags, value)."""
    if not ole.exists(PROPERTIES) or ole.get_size(PROPERTIES) > MAX_STREAM_BYTES:
        return {}
    data = ole.openstream(PROPERTIES).read()
    out = {}
    for at in range(32, len(data) - 15, 16):
        tag, _, value = struct.unpack_from("<IIi", data, at)
        if tag & 0xFFFF == 0x0003:  # PT_LONG
            out[tag >> 16] = value
    return out


def _property(ole, prop: int, codec: str) -> str | bytes | None:
    """A variable-size property's value: a string (Unicode ``001F`` or 8-bit ``001E`` in ``codec``),
    bytes (``0102``), or None when the message has none."""
    for kind in ("001F", "001E", "0102"):
        name = f"__substg1.0_{prop:04X}{kind}"
        if ole.exists(name):
            if ole.get_size(name) > MAX_STREAM_BYTES:
                raise DocumentError(f"an Outlook message with a body over {MAX_STREAM_BYTES >> 20} MB")
            data = ole.openstream(name).read()
            if kind == "001F":
                return data.decode("utf-16-le", errors="replace").rstrip("\x00")
            return in_code_page(data, codec).rstrip("\x00") if kind == "001E" else data
    return None


def _html(value: str | bytes, codepage: int | None) -> str:
    """``PidTagBodyHtml`` as text: bytes in the message's Internet code page, else its ``<meta>``
    charset, else UTF-8 or Windows-1252."""
    if isinstance(value, str):
        return value
    if codepage:
        return in_code_page(value, python_codec(codepage))
    declared = _CHARSET.search(value[:4096])
    if declared:
        return in_code_page(value, declared.group(1).decode("ascii"))
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("cp1252", errors="replace")


def _body(ole) -> tuple[str, str]:
    """The message body as Markdown (HTML, then RTF, then plain text, the first with any text:
    module docstring) and which one was read, in words."""
    from whowrote.style.rtf_html import decompress_rtf, encapsulated_html, is_encapsulated_html
    from whowrote.style.rtf_reader import rtf_markdown

    longs = _long_properties(ole)
    codec = python_codec(longs.get(MESSAGE_CODEPAGE) or 1252)
    html = _property(ole, BODY_HTML, codec)
    if html and (text := html_to_markdown(_html(html, longs.get(INTERNET_CODEPAGE)))).strip():
        return text, HTML_BODY
    packed = _property(ole, RTF_COMPRESSED, codec)
    rtf = decompress_rtf(packed) if isinstance(packed, bytes) and packed else b""
    if is_encapsulated_html(rtf) and (text := html_to_markdown(encapsulated_html(rtf))).strip():
        return text, HTML_BODY
    # (an RTF made from the plain text, \fromtext, adds nothing to it)
    if rtf and not is_encapsulated_html(rtf) and b"\\fromtext" not in rtf[:2048] and (text := rtf_markdown(rtf)).strip():
        return text, f"its rich-text body was attributed, {MARKDOWN_READ}"
    plain = _property(ole, BODY, codec)
    if isinstance(plain, str) and plain.strip():
        return plain.replace("\r\n", "\n"), TEXT_BODY
    raise DocumentError("an Outlook message with no text body")


def message_markdown(ole) -> tuple[str, str]:
    """An Outlook message in an open Compound File (olefile's) as ``(text, warning)``: the sender's
    own text (module docstring) and what was read, in words; :class:`DocumentError` for a message
    without a text body."""
    text, part = _body(ole)
    text, part, left_out = sender_text(text, part)
    return text, f"an Outlook message: {part} (not its headers or attachments){left_out}"
