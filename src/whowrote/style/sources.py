"""Turning ``whowrote predict`` arguments into texts: files, folders, globs, stdin, JSONL/CSV rows.

Every input yields one :class:`Item` - never an exception: unreadable input (missing file,
binary, undecodable) becomes an item with ``error`` set, which the caller reports as an explicit
"cannot tell" result. Only the standard library is used (start-up time matters).
"""

from __future__ import annotations

import csv
import glob
import io
import json
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

TEXT_SUFFIXES = (".md", ".txt", ".markdown")
TABLE_SUFFIXES = (".jsonl", ".ndjson", ".csv", ".tsv", ".json")
TEXT_COLUMNS = ("text", "content", "question", "body", "completion", "response")
MAX_BYTES = 10 * 1024 * 1024  # read at most this much of one file (a 50 MB "post" is not a post)


@dataclass
class Item:
    path: str
    text: str = ""
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    id: str | None = None
    nothing_in_table: bool = False  # the error says a whole table has no text to attribute


def decode(raw: bytes, name: str) -> Item:
    """Bytes -> text: UTF-8 (BOM dropped) or UTF-16 with a BOM; binary is refused; bad bytes
    replaced with a warning."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 (Windows "Unicode"): NULs are not binary
        try:
            return Item(name, raw.decode("utf-16"))
        except UnicodeDecodeError:
            pass
    if b"\x00" in raw[:8192]:
        return Item(name, error="binary file, not text")
    try:
        return Item(name, raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "replace")
        bad = text.count("\ufffd")
        if bad > max(16, len(text) // 20):
            return Item(name, error=f"not UTF-8 text ({bad} undecodable bytes)")
        return Item(name, text, warnings=[f"not valid UTF-8: {bad} undecodable byte(s) replaced"])


def read_file(path: Path, whole: bool = False) -> Item:
    """One text file (at most ``MAX_BYTES`` of it, with a warning), or all of it when ``whole``."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            raw = f.read(-1 if whole else MAX_BYTES)
    except OSError as e:
        return Item(str(path), error=f"cannot read: {e.strerror or e}")
    item = decode(raw, str(path))
    if not whole and size > MAX_BYTES and item.error is None:
        item.warnings.append(f"file is {size / 1e6:.1f} MB: only the first {MAX_BYTES / 1e6:.0f} MB were read")
    return item


def _pick_column(keys: Sequence[str], column: str | None) -> str | None:
    if column:
        return column if column in keys else None
    return next((c for c in TEXT_COLUMNS if c in keys), None)


def read_table(path: Path, column: str | None) -> Iterator[Item]:
    """One item per row of a JSONL / JSON / CSV / TSV file, text from ``column``; a table with no
    text to attribute at all (no rows, or the column missing/empty in every row) is instead one
    error item saying so.

    A table is read whole (it holds many texts; each text is still capped by the text check)."""
    head = read_file(path, whole=True)
    if head.error:
        yield head
        return
    rows = list(_rows(path, head.text, column))
    problem = _nothing_to_attribute(rows, column)
    if problem:
        yield Item(str(path), error=problem, nothing_in_table=True)
        return
    for item in rows:
        item.warnings[:0] = head.warnings  # e.g. undecodable bytes replaced somewhere in the file
        yield item


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
    return repr(column) if column else "one of " + ", ".join(TEXT_COLUMNS)


def _rows(path: Path, text: str, column: str | None) -> Iterator[Item]:
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        csv.field_size_limit(sys.maxsize)
        rows = csv.DictReader(io.StringIO(text), delimiter="\t" if suffix == ".tsv" else ",")
        records: Iterator[tuple[int, object]] = enumerate(rows, start=2)
    elif suffix == ".json":
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as e:
            yield Item(str(path), error=f"invalid JSON: {e if isinstance(e, ValueError) else 'nested too deeply'}")
            return
        records = enumerate(data if isinstance(data, list) else [data], start=1)
    else:
        records = _jsonl_records(text)
    for n, rec in records:
        where = f"{path}:{n}"
        if isinstance(rec, _Bad):
            yield Item(where, error=str(rec))
            continue
        if isinstance(rec, str):
            yield Item(where, rec)
            continue
        if not isinstance(rec, dict):
            yield Item(where, error="row is not an object or a string")
            continue
        col = _pick_column(list(rec), column)
        if col is None:
            yield Item(where, error=f"no text column ({_wanted(column)}); use --column")
            continue
        value = rec.get(col)
        ident = rec.get("id")
        yield Item(where, value if isinstance(value, str) else "" if value is None else str(value),
                   id=None if ident is None else str(ident))


def _jsonl_records(text: str) -> Iterator[tuple[int, object]]:
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except (json.JSONDecodeError, RecursionError) as e:
            yield n, _Bad(f"invalid JSON line: {getattr(e, 'msg', 'nested too deeply')}")


class _Bad(str):
    """Marks a JSONL line that failed to parse (handled as an error item)."""


def expand(paths: Sequence[str]) -> Iterator[Path | str]:
    """Arguments -> files (folders recurse into .md/.txt; globs expand); ``-`` stays ``-``."""
    for arg in paths:
        if arg == "-":
            yield "-"
            continue
        p = Path(arg)
        if p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if name.lower().endswith(TEXT_SUFFIXES):
                        yield Path(root, name)
        elif p.exists():
            yield p
        elif any(ch in arg for ch in "*?["):
            matches = sorted(glob.glob(arg, recursive=True))
            if not matches:
                yield f"!no file matches {arg}"
            for m in matches:
                if Path(m).is_file():
                    yield Path(m)
        else:
            yield f"!no such file or folder: {arg}"


def iter_items(paths: Sequence[str], column: str | None = None, stdin=None) -> Iterator[Item]:
    for target in expand(paths):
        if target == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            raw = stream.read(MAX_BYTES + 1)
            item = decode(raw[:MAX_BYTES], "-")
            if len(raw) > MAX_BYTES and item.error is None:
                item.warnings.append(f"stdin: only the first {MAX_BYTES / 1e6:.0f} MB were read")
            yield item
        elif isinstance(target, str):
            yield Item(target[1:].split(": ", 1)[-1] if target.startswith("!no such") else target[1:],
                       error=target[1:])
        elif target.suffix.lower() in TABLE_SUFFIXES:
            yield from read_table(target, column)
        else:
            yield read_file(target)
