"""The inputs of ``whowrote predict``: files, folders, globs, stdin, table rows, a mailbox's
messages and web addresses, as :class:`Item` s (tables: :mod:`whowrote.cli.table_inputs`;
mailboxes: :mod:`whowrote.cli.mailbox_inputs`; addresses: :mod:`whowrote.cli.url_inputs`; decoding:
:mod:`whowrote.cli.decoding`).

Every input yields items, never an exception: unreadable input (a missing file, binary, not
text) becomes an item with ``error`` set, which the caller reports as an explicit "cannot tell"
result. File kinds and text-column names come from :mod:`whowrote.formats`, shared with the
corpus readers of :mod:`whowrote.data`. Standard library only (start-up time matters); pyarrow is
imported only when a Parquet file is given (the ``[data]`` extra).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO

from whowrote.cli.decoding import MAX_BYTES, Item, decode, read_document
from whowrote.cli.mailbox_inputs import MAILBOX_SUFFIXES, read_mailbox
from whowrote.cli.paths import STDIN, Missing, TextFile, Url, expand
from whowrote.cli.paths import warn as _warn
from whowrote.cli.table_inputs import read_table
from whowrote.formats import TABLE_SUFFIXES, is_document, table_suffix


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
    if is_document(raw):  # one over the cap is read from its path (a ZIP, and a PDF, ends in its index)
        return read_document(raw if len(raw) >= size else name, name)
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


def iter_items(paths: Sequence[str], column: str | None = None, stdin: IO[bytes] | None = None,
               warn: Callable[[str], None] = _warn, defer: bool = False) -> Iterator[Item]:
    """The items of ``whowrote predict PATHS``, in argument order (folders and globs sorted).

    ``defer``: plain regular files come unread (``unread`` set, no text; :func:`read_file` of
    their path reads them), so that ``--jobs`` workers read their own files instead of getting
    the texts through a pipe."""
    for target in expand(paths, warn):
        if isinstance(target, Missing):
            yield Item(target.name, error=target.reason)
        elif isinstance(target, Url):
            from whowrote.cli.url_inputs import read_url  # (urllib loads only for an address)

            yield read_url(target.url)
        elif type(target) is TextFile:  # found in a folder: a text file, never a table
            yield Item(str(target), unread=True) if defer else read_file(target)
        elif target == STDIN:
            raw = (stdin if stdin is not None else sys.stdin.buffer).read(MAX_BYTES + 1)
            if is_document(raw):
                yield read_document(raw, STDIN)
            else:
                yield _capped(raw, len(raw), STDIN, f"stdin: only the first {MAX_BYTES / 1e6:.0f} MB were read")
        elif table_suffix(target) in TABLE_SUFFIXES:
            yield from read_table(target, column)
        elif Path(target).suffix.lower() in MAILBOX_SUFFIXES:  # one item per message
            yield from read_mailbox(Path(target))
        elif defer and _is_regular_file(target):  # a pipe or device is read here, once, as before
            yield Item(str(target), unread=True)
        else:
            yield read_file(target)


def _is_regular_file(path: Path | str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # read here, which says why it cannot be read
