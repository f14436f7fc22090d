"""What every reader of user files agrees on: file kinds, column names, binary and JSON checks.

The corpus readers (:mod:`whowrote.data.readers`, pandas), the ``whowrote predict`` inputs
(:mod:`whowrote.cli.inputs`, standard library only) and the task's split rows
(:mod:`whowrote.task.examples`) all read these. Standard library only: ``whowrote predict`` imports
this module, and its start-up must not pay for pandas or pyarrow.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TEXT_SUFFIXES: tuple[str, ...] = (".md", ".markdown", ".txt")
# What `whowrote predict` looks for in a folder: texts, saved web pages, Word and OpenDocument texts,
# PDFs, EPUB e-books, RTF documents and saved emails, whose visible text is attributed as the Markdown
# it displays (whowrote.style.html_reader, whowrote.style.documents, whowrote.style.email_reader, with
# a warning). Corpus folders stay texts only.
FOLDER_SUFFIXES: tuple[str, ...] = (*TEXT_SUFFIXES, ".html", ".htm", ".docx", ".odt", ".pdf", ".epub", ".rtf", ".eml", ".msg", ".doc")
TABLE_SUFFIXES: tuple[str, ...] = (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".parquet", ".pq")
PARQUET_SUFFIXES: tuple[str, ...] = (".parquet", ".pq")

# The names a text goes by, in order of preference: the text itself ...
TEXT_COLUMNS: tuple[str, ...] = ("text", "content", "question", "body", "blog")
# ... and a model's reply, which is the text in a table of generations (the corpus, predict's
# tables) but the answer in a chat-format row (task examples, trace records: not read as the text).
REPLY_COLUMNS: tuple[str, ...] = ("completion", "response", "output")

# Candidate source columns per corpus column, in order of preference (the corpus loader's
# auto-detection; "provider" is also where task rows and TRL datasets keep the gold label).
COLUMN_CANDIDATES: dict[str, tuple[str, ...]] = {
    "text": (*TEXT_COLUMNS, *REPLY_COLUMNS),
    "model": ("model", "source_model", "generator", "model_name", "model_id"),
    "provider": ("provider", "answer", "label", "gold", "provider3"),
    "category": ("category", "domain", "subject"),
    "topic": ("topic", "prompt_id", "proposition_id", "title"),
    "genre": ("genre", "corpus", "register"),
    "id": ("id", "uid", "uuid", "doc_id", "path"),
}
GOLD_COLUMNS: tuple[str, ...] = COLUMN_CANDIDATES["provider"]

# A chat-format record keeps its text as a list of turns: OpenAI / Hugging Face chat templates
# ``{"role", "content"}`` (content a string or a list of ``{"type": "text", "text"}`` parts),
# ShareGPT ``{"from", "value"}``, Gemini ``{"role": "model", "parts": [{"text"}]}``, Claude's data
# export ``chat_messages: [{"sender", "text", "content"}]``, or as ChatGPT's data export's tree of
# nodes (``mapping``), or Gemini's (Google Takeout's "My Activity.json" of Gemini Apps: an entry per
# prompt, its answer as HTML in ``safeHtmlItem: [{"html"}]``, a regenerated answer after the first).
# Read when a row has no text column (or ``--column`` names the list); only the assistant's side is
# the writing. (The roles of a record's turns; a *pasted* transcript's role lines are
# whowrote.style.transcript's.)
CONVERSATION_COLUMNS: tuple[str, ...] = ("messages", "conversations", "conversation", "contents", "chat_messages",
                                         "mapping", "safeHtmlItem")
GEMINI_ACTIVITY = "Gemini Apps"  # the ``header`` of a Gemini Apps entry in Takeout's "My Activity.json"
CHAT_ASSISTANT_ROLES: frozenset[str] = frozenset({"assistant", "gpt", "model", "bot", "chatbot", "ai"})
CHAT_USER_ROLES: frozenset[str] = frozenset({"user", "human", "prompter"})
CHAT_OTHER_ROLES: frozenset[str] = frozenset({"system", "developer", "tool", "function", "ipython"})  # neither side


def install_hint(extra: str) -> str:
    """How to install an optional extra (whowrote installs from its checkout, not from PyPI)."""
    return f"pip install '.[{extra}]' in the whowrote checkout"


DATA_EXTRA = install_hint("data")
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
BINARY_PROBE = 8192  # bytes looked at for a NUL


def table_suffix(path: str | Path) -> str:
    """The format suffix, lower-cased: ``.jsonl`` for both ``x.jsonl`` and ``x.JSONL.gz``."""
    path = Path(path)
    suffix = "".join(path.suffixes[-2:]) if path.suffix.lower() == ".gz" else path.suffix
    return suffix.lower().removesuffix(".gz")


def is_binary(head: bytes) -> bool:
    """A NUL in ``head`` (the first bytes of a file) means binary, unless a UTF-16 BOM starts it."""
    return not head.startswith(UTF16_BOMS) and b"\x00" in head


ZIP_MAGIC = b"PK\x03\x04"  # a .docx, .odt or .epub (read by whowrote predict), a spreadsheet ...
PDF_MAGIC = b"%PDF-"
RTF_MAGIC = b"{\\rtf"
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # a Compound File: an Outlook .msg, a Word 97-2003 .doc (both read by whowrote predict), an .xls ...

# Files people keep their writing in that are not text: named by their first bytes, so a PDF, ZIP or
# RTF (all ASCII) that reaches the text decoder (a table's cell; a file or stdin is read as a document
# first, :func:`is_document`), is refused by name instead of attributed as text.
DOCUMENT_MAGIC: tuple[tuple[bytes, str], ...] = (
    (PDF_MAGIC, "a PDF document"),
    (ZIP_MAGIC, "a ZIP archive (a .docx, .odt or .epub is one)"),
    (OLE_MAGIC, "an Office compound file (an Outlook .msg, an old .doc)"),
    (RTF_MAGIC, "an RTF document"),
    (b"\xdb\xa5\x2d\x00", "a Word 2.0 document (.doc)"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
)
SAVE_AS_TEXT = "save or export it as plain text, Markdown, HTML, .docx, .odt or .pdf first"


def is_document(head: bytes) -> bool:
    """Bytes that ``whowrote predict`` reads as a document (:mod:`whowrote.style.documents`): a ZIP
    archive (a .docx, .odt or .epub), a PDF, an RTF document or a Compound File (an Outlook .msg, a .doc)."""
    return head.startswith((ZIP_MAGIC, PDF_MAGIC, OLE_MAGIC)) or is_rtf(head)


def is_rtf(head: bytes) -> bool:
    """An RTF document's first bytes (after a UTF-8 byte-order mark and spaces, as an editor may save one)."""
    return head[:64].removeprefix(b"\xef\xbb\xbf").lstrip().startswith(RTF_MAGIC)


def document_kind(head: bytes) -> str | None:
    """What a file of these first bytes is when it is a document or image format from
    :data:`DOCUMENT_MAGIC` (a UTF-8 BOM and leading whitespace skipped), else None."""
    start = head[:64].removeprefix(b"\xef\xbb\xbf").lstrip()
    return next((kind for magic, kind in DOCUMENT_MAGIC if start.startswith(magic)), None)


def not_text(head: bytes, utf16_ok: bool = True) -> str | None:
    """Why a file of these first bytes cannot be read as text (a named document format, or binary
    data), or None when it may be text; ``utf16_ok=False``: a UTF-16 BOM does not excuse NULs (the
    bytes were already tried as UTF-16)."""
    kind = document_kind(head)
    if kind:
        return f"{kind}, not text ({SAVE_AS_TEXT})"
    binary = is_binary(head) if utf16_ok else b"\x00" in head
    return "binary file, not text" if binary else None


class JSONError(ValueError):
    """Text that is not JSON. ``msg``: the short reason; ``lineno``: where (None when the reason is
    nesting too deep for the parser); ``str()``: the parser's full message."""

    def __init__(self, msg: str, lineno: int | None = None, full: str | None = None) -> None:
        super().__init__(full or msg)
        self.msg = msg
        self.lineno = lineno


def parse_json(text: str) -> Any:
    """``json.loads``, with every way JSON fails as one :class:`JSONError` (deep nesting included)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise JSONError(e.msg, e.lineno, str(e)) from None
    except RecursionError:
        raise JSONError("nested too deeply") from None


def _turn_text(content: object) -> str | None:
    """A turn's text: a string, or the text parts of a list of parts; None when it is neither."""
    if content is None:
        return ""  # e.g. an assistant turn that only calls a tool
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [c if isinstance(c, str) else c.get("text") for c in content if isinstance(c, str | dict)]
        return "\n\n".join(p for p in parts if isinstance(p, str))
    return None


def turn_role(record: dict) -> str | None:
    """A turn's role as written, stripped (``role``, ShareGPT's ``from`` or Claude's export's
    ``sender``); None when it has no string role."""
    role = record.get("role", record.get("from", record.get("sender")))
    return role.strip() if isinstance(role, str) else None


_SHOWN_CONTENT = ("text", "multimodal_text")  # ChatGPT export: a message's writing (not code runs, thoughts)


def mapping_turns(mapping: dict) -> list[dict] | None:
    """The turns of a ChatGPT data export's conversation tree (``mapping``: node id -> ``{"message",
    "parent", "children"}``) as ``{"role", "content"}`` turns (and ``"model"``, the message's
    ``model_slug``, where it names one), from the root taking each node's last child (the latest
    edit or regeneration, which the window shows); None when it is not such a tree. Each node is
    visited once."""
    root = next((k for k, n in mapping.items() if isinstance(n, dict) and "children" in n and n.get("parent") is None),
                None)
    if root is None:
        return None
    turns, key, seen = [], root, set()
    while isinstance(key, str) and key not in seen and isinstance(node := mapping.get(key), dict):
        seen.add(key)
        message = node.get("message")
        if isinstance(message, dict):
            author, content = message.get("author"), message.get("content")
            role = author.get("role") if isinstance(author, dict) else None
            if isinstance(role, str) and isinstance(content, dict) and content.get("content_type") in _SHOWN_CONTENT:
                parts = content.get("parts")
                meta = message.get("metadata")
                slug = meta.get("model_slug") if isinstance(meta, dict) else None
                turns.append({"role": role, "content": [p for p in parts if isinstance(p, str)]
                              if isinstance(parts, list) else "", **({"model": slug} if isinstance(slug, str) else {})})
        children = node.get("children")
        key = children[-1] if isinstance(children, list) and children else None
    return turns


def conversation_turns(value: object) -> tuple[str, int, int] | None:
    """The assistant's turns of a chat-format record (see ``CONVERSATION_COLUMNS``), joined by a
    blank line, with the number of the assistant's and of the user's turns; None when ``value`` is
    not a list of turns (each a dict with a string role and a readable text) or a ChatGPT export's
    tree (:func:`mapping_turns`)."""
    if isinstance(value, dict):
        value = mapping_turns(value)
    if not isinstance(value, list) or not value:
        return None
    if all(isinstance(v, dict) and "html" in v and turn_role(v) is None for v in value):  # Gemini's safeHtmlItem
        answers = [v["html"] for v in value if isinstance(v["html"], str) and v["html"].strip()]
        return (answers[-1].strip(), 1, 0) if answers else ("", 0, 0)  # the last: a regeneration follows the first
    texts, n_assistant, n_user = [], 0, 0
    for turn in value:
        if not isinstance(turn, dict):
            return None
        role = turn_role(turn)
        text = _turn_text(turn["parts"] if "parts" in turn else turn.get("content", turn.get("value", turn.get("text"))))
        if role is None or text is None:
            return None
        role = role.lower()
        if role in CHAT_ASSISTANT_ROLES:
            n_assistant += 1
            if text.strip():
                texts.append(text.strip())
        elif role in CHAT_USER_ROLES:
            n_user += 1
    return "\n\n".join(texts), n_assistant, n_user


def conversation_warning(column: str, n_assistant: int, n_user: int) -> str:
    """The warning an attribution of a chat-format record carries (``predict`` and ``serve`` alike)."""
    if not n_user:  # Gemini's activity entry: the prompt is not a turn of the record
        return f"a conversation record ({column!r}): the assistant's {n_assistant} turn(s) were attributed"
    return (f"a conversation record ({column!r}): only the assistant's {n_assistant} turn(s) were "
            f"attributed, not the user's {n_user}")


def markdown_parser():
    """The Markdown parser every rendering of a text uses (markdown-it, CommonMark + tables): what a
    site or a chat window renders (the edits' HTML pages, the Word writer's paragraphs)."""
    from markdown_it import MarkdownIt  # comes with rich; imported here to keep predict's start-up light

    return MarkdownIt("commonmark").enable("table")
