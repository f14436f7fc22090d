"""The tables of ``whowrote predict`` (JSONL, JSON, CSV, TSV, Parquet; ``.gz`` too, except Parquet):
one :class:`~whowrote.cli.decoding.Item` per row, its text from the text column or, for a chat
log kept as a record, from its assistant turns.

Every row yields an item, never an exception: a row that cannot be attributed carries its
``error``. JSONL, CSV, TSV and Parquet are streamed row by row; pyarrow is imported only when a
Parquet file is given (the ``[data]`` extra).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from whowrote.cli.decoding import Item, decode, replaced_warning
from whowrote.formats import (
    BINARY_PROBE,
    CHAT_OTHER_ROLES,
    CHAT_USER_ROLES,
    CONVERSATION_COLUMNS,
    DATA_EXTRA,
    GEMINI_ACTIVITY,
    PARQUET_SUFFIXES,
    UTF16_BOMS,
    JSONError,
    conversation_turns,
    conversation_warning,
    not_text,
    parse_json,
    table_suffix,
    turn_role,
)
from whowrote.formats import COLUMN_CANDIDATES as _CANDIDATES

TEXT_COLUMNS = _CANDIDATES["text"]  # a table's text: the text itself or a model's reply


@dataclass
class _Row:
    """One record of a table, parsed (``value``) or not (``error``)."""

    n: int  # its line (JSONL), line of its start (CSV) or position (JSON, Parquet)
    value: object = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)


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


def _conversation_item(where: str, col: str, value: list | dict, warnings: list[str], ident: str | None) -> Item:
    """A chat-format record's assistant turns, or why it has none (``value`` is not a list of turns
    nor a ChatGPT export's tree: the usual "holds a list" error)."""
    turns = conversation_turns(value)
    if turns is None:
        return Item(where, error=f"column {col!r} holds {_kind(value)}, not text", id=ident)
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
        yield _Row(n, row, warnings=[replaced_warning(bad)] if bad else [])


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
            yield _Row(n, parse_json(line), warnings=[replaced_warning(bad)] if bad else [])
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
            yield Item(where, error="a Gemini Apps activity entry with no answer (feedback, a chosen draft, a setting)"
                       if rec.get("header") == GEMINI_ACTIVITY else f"no text column ({_wanted(column)}); use --column")
        else:
            value, ident = rec.get(col), _row_id(rec)
            if isinstance(value, str):
                yield Item(where, value, warnings=[*row.warnings, *_turn_warning(rec)], id=ident)
            elif value is None:
                yield Item(where, "", warnings=row.warnings, id=ident)
            elif isinstance(value, list) or (isinstance(value, dict) and col in CONVERSATION_COLUMNS):
                yield _conversation_item(where, col, value, row.warnings, ident)
            else:
                yield Item(where, error=f"column {col!r} holds {_kind(value)}, not text", id=ident)


def _row_id(rec: dict) -> str | None:
    """A row's ``id``; Claude's data export names its conversations by ``uuid``, and a Gemini Apps
    entry has only its ``time``."""
    keys = ("id", "uuid", "time") if rec.get("header") == GEMINI_ACTIVITY else ("id", "uuid")
    ident = next((rec[k] for k in keys if k in rec), None)
    return None if ident is None else str(ident)


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
