"""Documents read as the Markdown their formatting shows: :func:`document_to_markdown` picks the
reader, Word (:mod:`whowrote.style.docx_reader`), OpenDocument (:mod:`whowrote.style.odt_reader`;
what these two share is :mod:`whowrote.style.office_xml`), PDF (:mod:`whowrote.style.pdf_reader`),
EPUB (:mod:`whowrote.style.epub_reader`), RTF (:mod:`whowrote.style.rtf_reader`), an Outlook
message (:mod:`whowrote.style.msg_reader`) or an old Word document (:mod:`whowrote.style.doc_reader`;
the last two are Compound Files, opened with olefile). Used by ``whowrote predict`` (a ``.docx``,
``.odt``, ``.pdf``, ``.epub``, ``.rtf``, ``.msg`` or ``.doc`` file, or its bytes on stdin) and by the
page's ``POST /v1/read-document``.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from whowrote.formats import DOCUMENT_MAGIC, OLE_MAGIC, PDF_MAGIC, ZIP_MAGIC, is_rtf
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
DOC_WARNING = f"a Word 97-2003 document (.doc): {_READ_AS} (its main text: not its text boxes, headers or notes)"
# what else a Compound File holds, by a stream its kind always has
_OFFICE_FILES = (("Workbook", "an old-style Excel workbook (.xls), not a text"),
                 ("Book", "an old-style Excel workbook (.xls), not a text"),
                 ("PowerPoint Document", "an old-style PowerPoint file (.ppt), not a text"))
PDF_WARNING = (f"a PDF: {_READ_AS} from its layout (a PDF keeps no soft line breaks, "
               "nor a code block's language)")
ODT_MIMETYPE = b"application/vnd.oasis.opendocument.text"
MAX_RTF_BYTES = 64 * 1024 * 1024  # an RTF file read whole (a 3,000-word text is ~30 kB; pictures make the rest)


def document_to_markdown(source: bytes | str | Path) -> tuple[str, str]:
    """A Word document (``.docx``, or Word 97-2003's ``.doc``), an OpenDocument text (``.odt``), a
    PDF, an EPUB, an RTF document or an Outlook message (``.msg``), its bytes or its path, as
    ``(markdown, warning)``;
    :class:`DocumentError` for any other ZIP archive or Compound File, or a broken one."""
    head = source[:64] if isinstance(source, bytes) else _head(source)
    if head.startswith(PDF_MAGIC):
        from whowrote.style.pdf_reader import MAX_PAGES, pdf_markdown  # (pypdf loads only for a PDF)

        text, pages = pdf_markdown(source)
        return text, PDF_WARNING + (f"; its first {MAX_PAGES} of {pages} pages" if pages > MAX_PAGES else "")
    if head.startswith(OLE_MAGIC):
        return compound_file_markdown(source)
    if is_rtf(head):
        from whowrote.style.rtf_reader import rtf_markdown

        return rtf_markdown(source if isinstance(source, bytes) else _read(source)), RTF_WARNING
    if not head.startswith(ZIP_MAGIC):  # (what is left is a ZIP archive or no document at all)
        named = next((name for magic, name in DOCUMENT_MAGIC if head.startswith(magic)), None)
        raise DocumentError(named or ("an empty file" if not head else "not a document whowrote reads "
                                      "(.docx, .doc, .odt, .pdf, .epub, .rtf, .msg)"))
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


def compound_file_markdown(source: bytes | str | Path) -> tuple[str, str]:
    """A Compound File (the container of old Office files): an Outlook message or a Word 97-2003
    document, read; any other kind one line naming it."""
    import olefile  # (loads only for a Compound File)

    from whowrote.style.doc_reader import doc_markdown
    from whowrote.style.msg_reader import message_markdown

    what = "an Office compound file (an Outlook .msg, an old .doc)"  # (until its streams say which)
    try:
        with olefile.OleFileIO(io.BytesIO(source) if isinstance(source, bytes) else str(source)) as ole:
            if any(entry[0].startswith("__substg1.0_") for entry in ole.listdir(streams=True, storages=False)):
                what = "an Outlook message"
                return message_markdown(ole)
            if ole.exists("WordDocument"):
                what = "a Word 97-2003 document (.doc)"
                return doc_markdown(ole), DOC_WARNING
            kind = next((kind for stream, kind in _OFFICE_FILES if ole.exists(stream)), None)
            raise DocumentError(kind or "an Office compound file that is not an Outlook message, Word, Excel or PowerPoint file")
    except DocumentError:
        raise
    except Exception as e:  # noqa: BLE001 - an untrusted file: any parser failure is a reason, not a traceback
        raise DocumentError(f"{what} that cannot be read ({type(e).__name__}: {str(e)[:120]})") from None


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
