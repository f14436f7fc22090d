"""E-books (``.epub``: Calibre, pandoc, Sigil, Google Docs' or a publishing tool's export) read as the
Markdown their chapters show: the book a user suspects was written by an assistant.

An EPUB is a ZIP archive: ``META-INF/container.xml`` names the package document (``content.opf``),
whose manifest lists the book's files and whose spine gives the reading order. Each chapter in the
spine is an XHTML page, read by :func:`whowrote.style.html_reader.html_to_markdown` with the book's
style sheets (a converter's ``<span class="bold">`` is bold only by its ``stylesheet.css``), and the
chapters are joined in order. Left out, as a reader's app leaves them out of the running text: the
table of contents (the navigation document, even when the spine lists it, and a contents page the
EPUB 2 guide names), spine items marked ``linear="no"`` (covers, notes shown on demand), files that
are not XHTML. Reading stops after
:data:`MAX_BOOK_BYTES` of chapters (a ZIP bomb's, or a very long book's, later chapters; the warning
says how many were read). Standard library only; the size caps and the refusal of DTDs in the
package files are :mod:`whowrote.style.office_xml`'s.
"""

from __future__ import annotations

import posixpath
import zipfile
from urllib.parse import unquote

from whowrote.style.html_emphasis import class_styles
from whowrote.style.html_reader import html_to_markdown
from whowrote.style.office_xml import DocumentError, read_bytes, read_part

EPUB_MIMETYPE = b"application/epub+zip"
CONTAINER = "META-INF/container.xml"
MAX_BOOK_BYTES = 64 * 1024 * 1024  # chapters read, inflated (a 100,000-word novel is ~1 MB)
MAX_CSS_BYTES = 1024 * 1024  # the style sheets read (a book's are ~20 kB)
_CHAPTER_TYPES = ("application/xhtml+xml", "text/html")
# pages an EPUB 2 guide (<reference type=...>) names that are no running text: contents, lists of
# illustrations and tables, a cover (Calibre's and Sigil's books list their "Contents" page so)
_GUIDE_NOT_TEXT = frozenset({"toc", "loi", "lot", "cover"})
_WHAT = "an EPUB"


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def package_path(zf: zipfile.ZipFile) -> str:
    """The package document's path, from ``META-INF/container.xml``."""
    container = read_part(zf, CONTAINER, _WHAT)
    if container is None:
        raise DocumentError(f"{_WHAT} without {CONTAINER} (not an e-book, or a broken one)")
    for el in container.iter():
        if _local(el.tag) == "rootfile" and el.get("full-path"):
            return el.get("full-path", "")
    raise DocumentError(f"{_WHAT} whose {CONTAINER} names no package document")


def reading_order(zf: zipfile.ZipFile) -> tuple[list[str], list[str]]:
    """``(chapters, style sheets)``: the paths of the spine's XHTML pages in reading order (the
    navigation document, ``linear="no"`` items and the pages the EPUB 2 guide names as a table of
    contents or a cover left out) and of the manifest's CSS files."""
    opf_path = package_path(zf)
    package = read_part(zf, opf_path, _WHAT)
    if package is None:
        raise DocumentError(f"{_WHAT} whose package document {opf_path} is missing")
    base = posixpath.dirname(opf_path)
    manifest: dict[str, tuple[str, str, str]] = {}  # id -> (path, media type, properties)
    sheets, spine, not_text = [], [], set()
    for el in package.iter():
        name = _local(el.tag)
        if name == "reference" and (el.get("type") or "").lower() in _GUIDE_NOT_TEXT and el.get("href"):
            not_text.add(posixpath.normpath(posixpath.join(base, unquote(el.get("href", "").partition("#")[0]))))
        elif name == "item" and el.get("id") and el.get("href"):
            href = unquote(el.get("href", "").partition("#")[0])
            path = posixpath.normpath(posixpath.join(base, href))
            manifest[el.get("id", "")] = (path, el.get("media-type", ""), el.get("properties", ""))
            if el.get("media-type") == "text/css":
                sheets.append(path)
        elif name == "itemref" and el.get("linear", "yes") != "no":
            spine.append(el.get("idref", ""))
    chapters = [manifest[i][0] for i in spine if i in manifest and manifest[i][1] in _CHAPTER_TYPES
                and "nav" not in manifest[i][2].split() and manifest[i][0] not in not_text]
    if not chapters:
        raise DocumentError(f"{_WHAT} whose spine lists no XHTML chapter")
    return chapters, sheets


def _decoded(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


def epub_markdown(zf: zipfile.ZipFile) -> tuple[str, str]:
    """``(markdown, note)``: the book's chapters as Markdown, in reading order, a blank line between
    chapters (module docstring); ``note`` says what was not read ("" when all was)."""
    chapters, sheets = reading_order(zf)
    css, size = [], 0
    for path in sheets:
        data = read_bytes(zf, path, _WHAT) or b""
        size += len(data)
        if size > MAX_CSS_BYTES:
            break
        css.append(_decoded(data))
    book_styles = class_styles("\n".join(css))  # (parsed once: every chapter reads the same sheets)
    parts, size, missing = [], 0, 0
    for n, path in enumerate(chapters):
        data = read_bytes(zf, path, _WHAT)
        if data is None:  # a chapter the manifest names but the archive lacks: the rest is still the book
            missing += 1
            continue
        size += len(data)
        if size > MAX_BOOK_BYTES and n:
            return "\n\n".join(parts), f"its first {n} of {len(chapters)} chapters ({MAX_BOOK_BYTES >> 20} MB)"
        text = html_to_markdown(_decoded(data), book_styles)
        if text:
            parts.append(text)
    if not parts:  # (no chapter read to any text: a picture book, a comic, as a scanned PDF is)
        raise DocumentError(f"{_WHAT} with no text to read (its pages are pictures)")
    return "\n\n".join(parts), (f"{missing} of its {len(chapters)} chapters missing from the archive" if missing else "")
