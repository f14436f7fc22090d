"""Turning ``whowrote predict`` arguments into texts: files, folders, globs, stdin, JSONL/CSV rows.

Every input yields one :class:`Item` - never an exception: unreadable input (missing file,
binary, undecodable) becomes an item with ``error`` set, which the caller reports as an explicit
"cannot tell" result. Only the standard library is used (start-up time matters).
"""

from __future__ import annotations

import glob
import io
import json
import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

TEXT_SUFFIXES = (".md", ".txt", ".markdown")
TABLE_SUFFIXES = (".jsonl", ".ndjson", ".csv", ".tsv", ".json", ".parquet")
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


def read_file(path: Path, whole: bool = False) -> Item:
    """One text file (at most ``MAX_BYTES`` of it, with a warning), or all of it when ``whole``."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            raw = f.read(-1 if whole else MAX_BYTES)
    except OSError as e:
        return Item(str(path), error=f"cannot read: {e.strerror or e}")
    cut = not whole and size > MAX_BYTES
    item = decode(_cut_partial_char(raw) if cut else raw, str(path))
    if cut and item.error is None:
        item.warnings.append(f"file is {size / 1e6:.1f} MB: only the first {MAX_BYTES / 1e6:.0f} MB were read")
    return item


def _pick_column(keys: Sequence[str], column: str | None) -> str | None:
    if column:
        return column if column in keys else None
    return next((c for c in TEXT_COLUMNS if c in keys), None)


def read_table(path: Path, column: str | None) -> Iterator[Item]:
    """One item per row of a JSONL / JSON / CSV / TSV / Parquet file, text from ``column``; a
    table with no text to attribute at all (no rows, or the column missing/empty in every row)
    is instead one error item saying so.

    JSONL, CSV, TSV and Parquet are streamed row by row (memory stays flat however long the
    table); rows that cannot be attributed are held back only until the first row that can."""
    held: list[Item] = []
    good = False
    for item in _table_rows(path, column):
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
    return repr(column) if column else "one of " + ", ".join(TEXT_COLUMNS)


def _table_rows(path: Path, column: str | None) -> Iterator[Item]:
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        yield from _parquet_rows(path, column)
        return
    try:
        with open(path, "rb") as f:
            yield from _file_rows(f, path, suffix, column)
    except OSError as e:
        yield Item(str(path), error=f"cannot read: {e.strerror or e}")


def _file_rows(f, path: Path, suffix: str, column: str | None) -> Iterator[Item]:
    head = f.read(8192)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or suffix == ".json":  # UTF-16, or one JSON document
        whole = decode(head + f.read(), str(path))
        if whole.error:
            yield whole
            return
        if suffix == ".json":
            try:
                data = json.loads(whole.text)
            except (json.JSONDecodeError, RecursionError) as e:
                yield Item(str(path), error=f"invalid JSON: {e if isinstance(e, ValueError) else 'nested too deeply'}")
                return
            records = enumerate(data if isinstance(data, list) else [data], start=1)
        elif suffix in (".csv", ".tsv"):
            import csv

            records = enumerate(csv.DictReader(io.StringIO(whole.text, newline=""),
                                               delimiter="\t" if suffix == ".tsv" else ","), start=2)
        else:
            records = _jsonl_records(iter(whole.text.split("\n")))
        for item in _items(path, records, column):
            item.warnings[:0] = whole.warnings
            yield item
        return
    if b"\x00" in head:
        yield Item(str(path), error="binary file, not text")
        return
    f.seek(0)
    if suffix in (".csv", ".tsv"):
        import csv

        text = io.TextIOWrapper(f, encoding="utf-8-sig", errors="replace", newline="")
        csv.field_size_limit(sys.maxsize)
        rows = csv.DictReader(text, delimiter="\t" if suffix == ".tsv" else ",")
        yield from _items(path, ((n, _checked(row)) for n, row in enumerate(rows, start=2)), column)
    else:
        yield from _items(path, _jsonl_records(_lines(f)), column)


def _lines(f) -> Iterator[str | _Bad]:
    """The lines of a binary file split on b"\\n" only (U+2028, U+0085 and \\r stay inside a row),
    each decoded; undecodable bytes are replaced, and the row says so."""
    for n, raw in enumerate(f):
        if n == 0 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError:
            yield _Undecodable(raw.decode("utf-8", "replace"))


class _Undecodable(str):
    """A line whose undecodable bytes were replaced (its row carries a warning)."""


def _items(path: Path, records: Iterator[tuple[int, object]], column: str | None) -> Iterator[Item]:
    for n, rec in records:
        where = f"{path}:{n}"
        if isinstance(rec, _Bad):
            yield Item(where, error=str(rec))
            continue
        warnings = []
        if isinstance(rec, _Decoded):
            rec, warnings = rec.value, rec.warnings
        if isinstance(rec, str):
            yield Item(where, rec, warnings=warnings)
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
        ident = None if ident is None else str(ident)
        if isinstance(value, str):
            yield Item(where, value, warnings=warnings, id=ident)
        elif value is None:
            yield Item(where, "", warnings=warnings, id=ident)
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


def _checked(row: dict) -> object:
    """A CSV row, marked when the file's undecodable bytes were replaced in it."""
    bad = sum(v.count("\ufffd") for v in row.values() if isinstance(v, str))
    return _Decoded(row, [f"not valid UTF-8: {bad} undecodable byte(s) replaced"]) if bad else row


@dataclass
class _Decoded:
    """A parsed JSONL row whose line had undecodable bytes replaced."""

    value: object
    warnings: list[str]


def _jsonl_records(lines: Iterator[str]) -> Iterator[tuple[int, object]]:
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as e:
            yield n, _Bad(f"invalid JSON line: {getattr(e, 'msg', 'nested too deeply')}")
            continue
        if isinstance(line, _Undecodable):
            rec = _Decoded(rec, [f"not valid UTF-8: {line.count(chr(0xFFFD))} undecodable byte(s) replaced"])
        yield n, rec


def _parquet_rows(path: Path, column: str | None) -> Iterator[Item]:
    """Parquet rows in batches (pyarrow is imported only here: plain-text inputs never pay for it)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        yield Item(str(path), error="reading Parquet needs pyarrow: pip install pyarrow")
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
            for value, ident in zip(data[col], ids, strict=True):
                n += 1
                yield from _items(path, iter([(n, {col: value, "id": ident})]), col)
    except (OSError, ValueError) as e:  # pyarrow's errors derive from these
        yield Item(str(path), error=f"cannot read Parquet: {' '.join(str(e).split())[:200]}")


class _Bad(str):
    """Marks a JSONL line that failed to parse (handled as an error item)."""


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return True  # let the read report why it cannot be read


def _warn(message: str) -> None:
    print(f"whowrote: warning: {message}", file=sys.stderr)


def expand(paths: Sequence[str], warn: Callable[[str], None] = _warn) -> Iterator[Path | str]:
    """Arguments -> files (folders recurse into .md/.txt; globs expand); ``-`` stays ``-``.

    Inside folders and globs only regular files are taken (a FIFO named ``*.md`` is skipped with
    a warning); a path named on the command line is read as given (``<(cmd)`` is a pipe)."""
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
                        found = Path(root, name)
                        if _is_regular(found):
                            yield found
                        else:  # a FIFO or device would block the read forever
                            warn(f"skipped {found}: not a regular file")
        elif p.exists():
            yield p
        elif any(ch in arg for ch in "*?["):
            matches = sorted(glob.glob(arg, recursive=True))
            if not matches:
                yield f"!no file matches {arg}"
            for m in matches:
                if Path(m).is_file():  # a regular file: FIFOs and folders are left out
                    yield Path(m)
        else:
            yield f"!no such file or folder: {arg}"


def iter_items(paths: Sequence[str], column: str | None = None, stdin=None,
               warn: Callable[[str], None] = _warn) -> Iterator[Item]:
    for target in expand(paths, warn):
        if target == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            raw = stream.read(MAX_BYTES + 1)
            item = decode(_cut_partial_char(raw[:MAX_BYTES]) if len(raw) > MAX_BYTES else raw, "-")
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
