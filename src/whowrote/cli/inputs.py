"""The inputs of ``whowrote predict``: files, folders, globs, stdin and table rows, as :class:`Item` s.

Every input yields items, never an exception: unreadable input (a missing file, binary, not
text) becomes an item with ``error`` set, which the caller reports as an explicit "cannot tell"
result. File kinds and text-column names come from :mod:`whowrote.formats`, shared with the
corpus readers of :mod:`whowrote.data`. Standard library only (start-up time matters); pyarrow is
imported only when a Parquet file is given (the ``[data]`` extra).
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from whowrote.cli.paths import STDIN, Missing, TextFile, expand
from whowrote.cli.paths import warn as _warn
from whowrote.formats import (
    BINARY_PROBE,
    CHAT_OTHER_ROLES,
    CHAT_USER_ROLES,
    CONVERSATION_COLUMNS,
    DATA_EXTRA,
    PARQUET_SUFFIXES,
    SAVE_AS_TEXT,
    TABLE_SUFFIXES,
    UTF16_BOMS,
    JSONError,
    conversation_turns,
    conversation_warning,
    document_kind,
    not_text,
    parse_json,
    table_suffix,
    turn_role,
)
from whowrote.formats import COLUMN_CANDIDATES as _CANDIDATES

TEXT_COLUMNS = _CANDIDATES["text"]  # a table's text: the text itself or a model's reply
MAX_BYTES = 10 * 1024 * 1024  # read at most this much of one file (a 50 MB "post" is not a post)


@dataclass
class Item:
    path: str
    text: str = ""
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    id: str | None = None
    nothing_in_table: bool = False  # the error says a whole table has no text to attribute
    unread: bool = False  # a plain file, read later by the process that attributes it (``--jobs``)


@dataclass
class _Row:
    """One record of a table, parsed (``value``) or not (``error``)."""

    n: int  # its line (JSONL), line of its start (CSV) or position (JSON, Parquet)
    value: object = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)


def _replaced(bad: int) -> str:
    return f"not valid UTF-8: {bad} undecodable byte(s) replaced"


def decode(raw: bytes, name: str) -> Item:
    """Bytes -> text: UTF-8 (BOM dropped) or UTF-16 with a BOM; binary is refused; bad bytes
    replaced with a warning."""
    if raw.startswith(UTF16_BOMS):  # UTF-16 (Windows "Unicode"): NULs are not binary
        try:
            return Item(name, raw.decode("utf-16"))
        except UnicodeDecodeError:
            pass
    kind = document_kind(raw)
    if kind:
        return Item(name, error=f"{kind}, not text ({SAVE_AS_TEXT})")
    if b"\x00" in raw[:BINARY_PROBE]:  # binary (or UTF-16 that does not decode)
        return Item(name, error="binary file, not text")
    try:  # = raw.decode("utf-8-sig"), without that codec's Python-level wrapper
        return Item(name, (raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw).decode("utf-8"))
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "replace")
        bad = text.count("\ufffd")
        if bad > max(16, len(text) // 20):
            return Item(name, error=f"not UTF-8 text ({bad} undecodable bytes)")
        return Item(name, text, warnings=[_replaced(bad)])


def _cut_partial_char(raw: bytes) -> bytes:
    """``raw`` without a UTF-8 character cut in half at its end (a read stopped at the size cap)."""
    for back in range(1, min(4, len(raw)) + 1):
        b = raw[-back]
        if b < 0x80:  # ASCII: nothing is cut
            return raw
        if b >= 0xC0:  # lead byte of a sequence of `need` bytes
            need = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
            return raw[:-back] if need > back else raw
    return raw


def _capped(raw: bytes, size: int, name: str, what: str) -> Item:
    """``raw`` (the first bytes of ``size``) decoded, with a warning when the cap cut it."""
    cut = size > MAX_BYTES
    item = decode(_cut_partial_char(raw[:MAX_BYTES]) if cut else raw, name)
    if cut and item.error is None:
        item.warnings.append(what)
    return item


def read_file(path: Path | str) -> Item:
    """One text file (at most ``MAX_BYTES`` of it, with a warning)."""
    name = str(path)
    try:
        with open(name, "rb", buffering=0) as f:
            st = os.fstat(f.fileno())
            raw = _read_upto(f, st.st_size if stat.S_ISREG(st.st_mode) else -1)
    except OSError as e:
        return Item(name, error=f"cannot read: {e.strerror or e}")
    size = st.st_size
    return _capped(raw, size, name, f"file is {size / 1e6:.1f} MB: only the first {MAX_BYTES / 1e6:.0f} MB were read")


def _read_upto(f, size: int) -> bytes:
    """The first ``MAX_BYTES`` bytes of the unbuffered file ``f``; ``size``: what stat says a
    regular file holds (-1 for a pipe or device). A regular file is one read of ``size + 1``
    bytes (a read of ``MAX_BYTES`` would allocate all 10 MB for every file); anything else, or
    a file that grew, is read on in chunks until its end or the cap."""
    chunks = []
    got = 0
    if 0 <= size < MAX_BYTES:
        first = f.read(size + 1)
        if len(first) <= size:  # the whole file
            return first
        chunks, got = [first], len(first)
    while got < MAX_BYTES:
        chunk = f.read(min(1 << 20, MAX_BYTES - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _pick_column(keys: Collection[str], column: str | None) -> str | None:
    """``column`` if present; else the first text column, else the first conversation column."""
    if column:
        return column if column in keys else None
    return next((c for c in (*TEXT_COLUMNS, *CONVERSATION_COLUMNS) if c in keys), None)


def _turn_warning(rec: dict) -> list[str]:
    """A row that is one turn of a chat log kept a turn a line: a user's or system's turn is not the
    assistant's writing (it is attributed as given, with this warning)."""
    role = turn_role(rec)
    if role is not None and role.lower() in CHAT_USER_ROLES | CHAT_OTHER_ROLES:
        return [f"this row is a chat turn with role {role!r}, not the assistant's: it was attributed as given"]
    return []


def _conversation_item(where: str, col: str, value: list, warnings: list[str], ident: str | None) -> Item:
    """A chat-format record's assistant turns, or why it has none (``value`` is not a list of turns:
    the usual "holds a list" error)."""
    turns = conversation_turns(value)
    if turns is None:
        return Item(where, error=f"column {col!r} holds a list, not text", id=ident)
    text, n_assistant, n_user = turns
    if not n_assistant:
        return Item(where, error=f"column {col!r} is a conversation with no assistant turn", id=ident)
    return Item(where, text, id=ident, warnings=[*warnings, conversation_warning(col, n_assistant, n_user)])


def read_table(path: Path, column: str | None) -> Iterator[Item]:
    """One item per row of a JSONL / JSON / CSV / TSV / Parquet file (``.gz`` too, except Parquet),
    text from ``column``; a table with no text to attribute at all (no rows, or the column
    missing/empty in every row) is instead one error item saying so.

    JSONL, CSV, TSV and Parquet are streamed row by row (memory stays flat however long the
    table); rows that cannot be attributed are held back only until the first row that can."""
    held: list[Item] = []
    good = False
    for item in _table_items(path, column):
        if good:
            yield item
        elif item.error is None and item.text.strip():
            good = True
            yield from held
            held.clear()
            yield item
        else:
            held.append(item)
    if good:
        return
    if len(held) == 1 and held[0].path == str(path):  # the file itself could not be read
        yield held[0]
        return
    problem = _nothing_to_attribute(held, column)
    if problem:
        yield Item(str(path), error=problem, nothing_in_table=True)
    else:
        yield from held


def _nothing_to_attribute(rows: list[Item], column: str | None) -> str | None:
    """Why a table's rows hold no text at all, or None when at least one row could be attributed."""
    missing = sum(bool(r.error and r.error.startswith("no text column")) for r in rows)
    empty = sum(r.error is None and not r.text.strip() for r in rows)
    n = f"all {len(rows)} rows" if len(rows) > 1 else "its only row"
    if not rows:
        return "no rows (the table is empty)"
    if missing == len(rows):
        return f"no text column ({_wanted(column)}) in {n}; use --column"
    if empty == len(rows):
        return f"column {column!r} is empty in {n}" if column else \
            f"the text column is empty in {n}; use --column to name another"
    if missing + empty == len(rows):
        return f"no text in {n}: the text column ({_wanted(column)}) is missing in {missing}, empty in {empty}"
    return None


def _wanted(column: str | None) -> str:
    return repr(column) if column else \
        "one of " + ", ".join(TEXT_COLUMNS) + ", or a conversation's turns: " + ", ".join(CONVERSATION_COLUMNS)


def _table_items(path: Path, column: str | None) -> Iterator[Item]:
    if table_suffix(path) in PARQUET_SUFFIXES:
        yield from _parquet_items(path, column)
        return
    try:
        with _open(path) as f:
            yield from _items(path, _rows(f, path), column)
    except (OSError, EOFError) as e:  # EOFError: a gzip stream cut short
        yield Item(str(path), error=f"cannot read: {getattr(e, 'strerror', None) or e}")


def _open(path: Path) -> IO[bytes]:
    """The file's bytes, gunzipped for ``.gz`` (gzip is imported only then: start-up time)."""
    if path.suffix.lower() == ".gz":
        import gzip

        return gzip.open(path, "rb")
    return open(path, "rb")


def _rows(f: IO[bytes], path: Path) -> Iterator[_Row]:
    """The records of a JSON / JSONL / CSV / TSV file; a file that cannot be read at all is one
    row with ``n = 0`` and the reason."""
    suffix = table_suffix(path)
    head = f.read(BINARY_PROBE)
    if head.startswith(UTF16_BOMS) or suffix == ".json":  # UTF-16, or one JSON document: read whole
        whole = decode(head + f.read(), str(path))
        if whole.error:
            yield _Row(0, error=whole.error)
            return
        for row in _text_rows(whole.text, suffix):
            row.warnings[:0] = whole.warnings
            yield row
        return
    reason = not_text(head)
    if reason:
        yield _Row(0, error=reason)
        return
    f.seek(0)
    if suffix in (".csv", ".tsv"):
        text = io.TextIOWrapper(f, encoding="utf-8-sig", errors="replace", newline="")
        yield from _csv_rows(text, suffix, replaced=True)
    else:
        yield from _jsonl_rows(_lines(f))


def _text_rows(text: str, suffix: str) -> Iterator[_Row]:
    if suffix == ".json":
        try:
            data = parse_json(text)
        except JSONError as e:
            yield _Row(0, error=f"invalid JSON: {e}")
            return
        turns = conversation_turns(data)
        if turns is not None and turns[1] + turns[2]:  # the file is one chat log, not a table of turns
            yield _Row(1, {"conversation": data})
            return
        yield from (_Row(n, rec) for n, rec in enumerate(data if isinstance(data, list) else [data], start=1))
    elif suffix in (".csv", ".tsv"):
        yield from _csv_rows(io.StringIO(text, newline=""), suffix)
    else:
        yield from _jsonl_rows((line, 0) for line in text.split("\n"))


def _csv_rows(text: IO[str], suffix: str, replaced: bool = False) -> Iterator[_Row]:
    """CSV/TSV records; ``replaced``: the stream replaced undecodable bytes, which each row counts."""
    import csv  # only for CSV/TSV tables (start-up time)

    csv.field_size_limit(sys.maxsize)
    for n, row in enumerate(csv.DictReader(text, delimiter="\t" if suffix == ".tsv" else ","), start=2):
        bad = sum(v.count("\ufffd") for v in row.values() if isinstance(v, str)) if replaced else 0
        yield _Row(n, row, warnings=[_replaced(bad)] if bad else [])


def _lines(f: IO[bytes]) -> Iterator[tuple[str, int]]:
    """``(line, replaced bytes)`` for the lines of a binary file split on b"\\n" only (U+2028,
    U+0085 and \\r stay inside a row); undecodable bytes are replaced and counted."""
    for n, raw in enumerate(f):
        if n == 0 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            yield raw.decode("utf-8"), 0
        except UnicodeDecodeError:
            line = raw.decode("utf-8", "replace")
            yield line, line.count("\ufffd")


def _jsonl_rows(lines: Iterable[tuple[str, int]]) -> Iterator[_Row]:
    for n, (line, bad) in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield _Row(n, parse_json(line), warnings=[_replaced(bad)] if bad else [])
        except JSONError as e:
            yield _Row(n, error=f"invalid JSON line: {e.msg}")


def _items(path: Path, rows: Iterable[_Row], column: str | None) -> Iterator[Item]:
    for row in rows:
        where = f"{path}:{row.n}" if row.n else str(path)
        rec = row.value
        if row.error is not None:
            yield Item(where, error=row.error)
        elif isinstance(rec, str):
            yield Item(where, rec, warnings=row.warnings)
        elif not isinstance(rec, dict):
            yield Item(where, error="row is not an object or a string")
        elif (col := _pick_column(rec, column)) is None:
            yield Item(where, error=f"no text column ({_wanted(column)}); use --column")
        else:
            value, ident = rec.get(col), rec.get("id")
            ident = None if ident is None else str(ident)
            if isinstance(value, str):
                yield Item(where, value, warnings=[*row.warnings, *_turn_warning(rec)], id=ident)
            elif value is None:
                yield Item(where, "", warnings=row.warnings, id=ident)
            elif isinstance(value, list):
                yield _conversation_item(where, col, value, row.warnings, ident)
            else:
                yield Item(where, error=f"column {col!r} holds {_kind(value)}, not text", id=ident)


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, bytes | bytearray):
        return "bytes"
    return f"a {type(value).__name__}"


def _parquet_items(path: Path, column: str | None) -> Iterator[Item]:
    """Parquet rows in batches (pyarrow is imported only here: plain-text inputs never pay for it)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        yield Item(str(path), error=f"reading Parquet needs the data extra (pyarrow): {DATA_EXTRA}")
        return
    try:
        pf = pq.ParquetFile(path)
        names = pf.schema_arrow.names
        col = _pick_column(names, column)
        if col is None:
            yield from (Item(f"{path}:{n}", error=f"no text column ({_wanted(column)}); use --column")
                        for n in range(1, pf.metadata.num_rows + 1))
            return
        cols = [col] + (["id"] if "id" in names and col != "id" else [])
        n = 0
        for batch in pf.iter_batches(batch_size=256, columns=cols):
            data = batch.to_pydict()
            ids = data.get("id", [None] * batch.num_rows)
            rows = []
            for value, ident in zip(data[col], ids, strict=True):
                n += 1
                rows.append(_Row(n, {col: value, "id": ident}))
            yield from _items(path, rows, col)
    except (OSError, ValueError) as e:  # pyarrow's errors derive from these
        yield Item(str(path), error=f"cannot read Parquet: {' '.join(str(e).split())[:200]}")


def iter_items(paths: Sequence[str], column: str | None = None, stdin: IO[bytes] | None = None,
               warn: Callable[[str], None] = _warn, defer: bool = False) -> Iterator[Item]:
    """The items of ``whowrote predict PATHS``, in argument order (folders and globs sorted).

    ``defer``: plain regular files come unread (``unread`` set, no text; :func:`read_file` of
    their path reads them), so that ``--jobs`` workers read their own files instead of getting
    the texts through a pipe."""
    for target in expand(paths, warn):
        if isinstance(target, Missing):
            yield Item(target.name, error=target.reason)
        elif type(target) is TextFile:  # found in a folder: a text file, never a table
            yield Item(str(target), unread=True) if defer else read_file(target)
        elif target == STDIN:
            raw = (stdin if stdin is not None else sys.stdin.buffer).read(MAX_BYTES + 1)
            yield _capped(raw, len(raw), STDIN, f"stdin: only the first {MAX_BYTES / 1e6:.0f} MB were read")
        elif table_suffix(target) in TABLE_SUFFIXES:
            yield from read_table(target, column)
        elif defer and _is_regular_file(target):  # a pipe or device is read here, once, as before
            yield Item(str(target), unread=True)
        else:
            yield read_file(target)


def _is_regular_file(path: Path | str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # read here, which says why it cannot be read
