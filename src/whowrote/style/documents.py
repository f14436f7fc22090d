"""Documents read as the Markdown their formatting shows: :func:`document_to_markdown` picks the
reader, Word (:mod:`whowrote.style.docx_reader`), OpenDocument (:mod:`whowrote.style.odt_reader`;
what these two share is :mod:`whowrote.style.office_xml`), PDF (:mod:`whowrote.style.pdf_reader`),
EPUB (:mod:`whowrote.style.epub_reader`), RTF (:mod:`whowrote.style.rtf_reader`) or an Outlook
message (:mod:`whowrote.style.msg_reader`). Used by ``whowrote predict`` (a ``.docx``, ``.odt``,
``.pdf``, ``.epub``, ``.rtf`` or ``.msg`` file, or its bytes on stdin) and by the page's ``POST
/v1/read-document``.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from whowrote.formats import OLE_MAGIC, PDF_MAGIC, is_rtf
from whowrote.style.docx_reader import DOCUMENT, docx_markdown
from whowrote.style.epub_reader import EPUB_MIMETYPE, epub_markdown
from whowrote.style.odt_reader import odt_markdown
from whowrote.style.office_xml import DocumentError, open_zip

_READ_AS = "its text was attributed, with its headings, lists, emphasis, tables, code and links read as Markdown"
DOCX_WARNING = f"a Word document: {_READ_AS}"
ODT_WARNING = f"an OpenDocument text: {_READ_AS}"
EPUB_WARNING = ("an EPUB e-book: its chapters were attributed in reading order, with their headings, lists, "
                "emphasis, tables, code and links read as Markdown")
RTF_WARNING = f"an RTF document: {_READ_AS}"
PDF_WARNING = (f"a PDF: {_READ_AS} from its layout (a PDF keeps no soft line breaks, "
               "nor a code block's language)")
ODT_MIMETYPE = b"application/vnd.oasis.opendocument.text"
MAX_RTF_BYTES = 64 * 1024 * 1024  # an RTF file read whole (a 3,000-word text is ~30 kB; pictures make the rest)


def document_to_markdown(source: bytes | str | Path) -> tuple[str, str]:
    """A Word document (``.docx``), an OpenDocument text (``.odt``), a PDF, an EPUB, an RTF document
    or an Outlook message (``.msg``), its bytes or its path, as ``(markdown, warning)``;
    :class:`DocumentError` for any other ZIP archive or Compound File, or a broken one."""
    head = source[:64] if isinstance(source, bytes) else _head(source)
    if head.startswith(PDF_MAGIC):
        from whowrote.style.pdf_reader import MAX_PAGES, pdf_markdown  # (pypdf loads only for a PDF)

        text, pages = pdf_markdown(source)
        return text, PDF_WARNING + (f"; its first {MAX_PAGES} of {pages} pages" if pages > MAX_PAGES else "")
    if head.startswith(OLE_MAGIC):
        from whowrote.style.msg_reader import msg_markdown  # (olefile loads only for a Compound File)

        return msg_markdown(source)
    if is_rtf(head):
        from whowrote.style.rtf_reader import rtf_markdown

        return rtf_markdown(source if isinstance(source, bytes) else _read(source)), RTF_WARNING
    with open_zip(source) as zf:
        if DOCUMENT in zf.NameToInfo:
            return docx_markdown(zf), DOCX_WARNING
        mimetype = _mimetype(zf)
        if "content.xml" in zf.NameToInfo and mimetype.startswith(ODT_MIMETYPE):
            return odt_markdown(zf), ODT_WARNING
        if mimetype == EPUB_MIMETYPE or (not mimetype and "META-INF/container.xml" in zf.NameToInfo
                                         and "content.xml" not in zf.NameToInfo):
            text, note = epub_markdown(zf)
            return text, EPUB_WARNING + (f"; {note}" if note else "")
    raise DocumentError("a ZIP archive but not a Word or OpenDocument text or an EPUB (a spreadsheet or a Pages file is one)")


def _read(path: str | Path) -> bytes:
    """An RTF file's bytes (up to :data:`MAX_RTF_BYTES`: its pictures are most of a large one)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_RTF_BYTES + 1)
    except OSError as e:
        raise DocumentError(f"cannot read: {e.strerror or e}") from None
    if len(data) > MAX_RTF_BYTES:
        raise DocumentError(f"an RTF document over {MAX_RTF_BYTES >> 20} MB")
    return data


def _head(path: str | Path) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(64)
    except OSError as e:
        raise DocumentError(f"cannot read: {e.strerror or e}") from None


def _mimetype(zf: zipfile.ZipFile) -> bytes:
    try:
        with zf.open("mimetype") as f:
            return f.read(100).strip()
    except (KeyError, zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, EOFError):
        return b""
