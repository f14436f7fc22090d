"""One input of ``whowrote predict`` (:class:`Item`: a text, or why there is none) and the
decoding of a file's bytes into text (:func:`decode`), shared by the file and table readers.

Bytes are UTF-8 (one BOM dropped), UTF-16 (with a BOM, or without one when every other byte is
NUL), or, when not one of their byte sequences is UTF-8, Windows-1252 (a legacy 8-bit file, with a
warning); a document or image format is refused by name, binary data as binary; a few undecodable
bytes are replaced with a warning. A Word document (.docx or
.doc), an OpenDocument text, a PDF, an EPUB, an RTF document or an Outlook message (a file or stdin,
never a table's bytes) is read as Markdown by :func:`read_document`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from whowrote.formats import BINARY_PROBE, UTF16_BOMS, not_text

MAX_BYTES = 10 * 1024 * 1024  # read at most this much of one input: a file, a message, a page (a 50 MB "post" is not a post)
COPY_AS_TEXT = "copy its text into a .md or .txt file instead"  # a document that cannot be read
_ASCII = bytes(range(128))


@dataclass
class Item:
    path: str
    text: str = ""
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    id: str | None = None
    nothing_in_table: bool = False  # the error says a whole table has no text to attribute
    unread: bool = False  # a plain file, read later by the process that attributes it (``--jobs``)


def replaced_warning(bad: int) -> str:
    return f"not valid UTF-8: {bad} undecodable byte(s) replaced"


def utf16_without_bom(head: bytes) -> str | None:
    """``"utf-16-le"`` or ``"utf-16-be"`` for bytes that look like UTF-16 text written without a
    byte-order mark (every other byte NUL: Latin-script text), else None."""
    head = head[:4096]
    if len(head) < 64:
        return None
    even, odd = head[0::2].count(0) / len(head[0::2]), head[1::2].count(0) / len(head[1::2])
    return "utf-16-le" if odd > 0.4 and even < 0.02 else "utf-16-be" if even > 0.4 and odd < 0.02 else None


def decode(raw: bytes, name: str) -> Item:
    """Bytes -> text: UTF-8 (BOM dropped), UTF-16 (with a BOM, or without one when every other byte
    is NUL), or Windows-1252 when the bytes hold no UTF-8 character at all (a legacy 8-bit file);
    binary is refused; bad bytes replaced with a warning."""
    guess = "utf-16" if raw.startswith(UTF16_BOMS) else utf16_without_bom(raw)
    if guess:  # UTF-16 (Windows "Unicode"): NULs are not binary
        try:
            return Item(name, raw.decode(guess))
        except UnicodeDecodeError:
            pass
    reason = not_text(raw[:BINARY_PROBE], utf16_ok=False)  # a document format, binary, or UTF-16 that does not decode
    if reason:
        return Item(name, error=reason)
    try:  # = raw.decode("utf-8-sig"), without that codec's Python-level wrapper
        return Item(name, (raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw).decode("utf-8"))
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "replace")
        bad = text.count("\ufffd")
        if _no_utf8_characters(text):  # (not one byte sequence of UTF-8: an 8-bit file, most often Windows' Western code page)
            try:
                high = len(raw.translate(None, _ASCII))
                return Item(name, raw.decode("cp1252"), warnings=[f"not UTF-8: read as Windows-1252 ({high} non-ASCII byte(s))"])
            except UnicodeDecodeError:
                pass
        if bad > max(16, len(text) // 20):
            return Item(name, error=f"not UTF-8 text ({bad} undecodable bytes)")
        return Item(name, text, warnings=[replaced_warning(bad)])


def _no_utf8_characters(text: str) -> bool:
    """Whether a text decoded from bytes with errors replaced holds no non-ASCII character but the
    replacement character (so no byte sequence in it was UTF-8)."""
    return text.replace("\ufffd", "").isascii()


def read_document(source: bytes | Path | str, name: str) -> Item:
    """A Word document (.docx or .doc), an OpenDocument text, a PDF, an EPUB, an RTF document or an Outlook message (its bytes, or its
    path when it is over the read cap) as the Markdown its formatting shows (:mod:`whowrote.style.documents`, imported only
    here), with a warning; any other ZIP archive, or a broken, encrypted or image-only document, is
    refused by name."""
    from whowrote.style.documents import DocumentError, document_to_markdown

    try:
        text, warning = document_to_markdown(source)
        return Item(name, text, warnings=[warning])
    except DocumentError as e:
        return Item(name, error=f"{e} ({COPY_AS_TEXT})")
