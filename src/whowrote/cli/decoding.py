"""One input of ``whowrote predict`` (:class:`Item`: a text, or why there is none) and the
decoding of a file's bytes into text (:func:`decode`), shared by the file and table readers.

Bytes are UTF-8 (one BOM dropped) or UTF-16 with a BOM; a document or image format is refused by
name, binary data as binary; a few undecodable bytes are replaced with a warning. A Word document,
an OpenDocument text, a PDF, an EPUB, an RTF document or an Outlook message (a file or stdin, never a
table's bytes) is read as Markdown by :func:`read_document`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from whowrote.formats import BINARY_PROBE, UTF16_BOMS, not_text

COPY_AS_TEXT = "copy its text into a .md or .txt file instead"  # a document that cannot be read


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


def decode(raw: bytes, name: str) -> Item:
    """Bytes -> text: UTF-8 (BOM dropped) or UTF-16 with a BOM; binary is refused; bad bytes
    replaced with a warning."""
    if raw.startswith(UTF16_BOMS):  # UTF-16 (Windows "Unicode"): NULs are not binary
        try:
            return Item(name, raw.decode("utf-16"))
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
        if bad > max(16, len(text) // 20):
            return Item(name, error=f"not UTF-8 text ({bad} undecodable bytes)")
        return Item(name, text, warnings=[replaced_warning(bad)])


def read_document(source: bytes | Path | str, name: str) -> Item:
    """A Word document, an OpenDocument text, a PDF, an EPUB, an RTF document or an Outlook message (its bytes, or its
    path when it is over the read cap) as the Markdown its formatting shows (:mod:`whowrote.style.documents`, imported only
    here), with a warning; any other ZIP archive, or a broken, encrypted or image-only document, is
    refused by name."""
    from whowrote.style.documents import DocumentError, document_to_markdown

    try:
        text, warning = document_to_markdown(source)
        return Item(name, text, warnings=[warning])
    except DocumentError as e:
        return Item(name, error=f"{e} ({COPY_AS_TEXT})")
