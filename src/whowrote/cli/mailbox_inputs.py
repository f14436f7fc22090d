"""An mbox mailbox given to ``whowrote predict`` (``.mbox``: Gmail's Takeout export, Thunderbird's
and Apple Mail's): one :class:`~whowrote.cli.decoding.Item` per message, named ``path:n`` as a
table's rows are, its ``id`` the message's ``Message-ID``. Each item's text is the message's
source, which the input check reads as a saved email (:mod:`whowrote.style.email_reader`: its
body as its sender wrote it).

The file is streamed a line at a time (standard library only): a message starts at a ``From ``
envelope line at the file's start or after a blank line (or one shaped like an envelope, ``From
addr Mon ...``, anywhere), and ``>From `` lines are unquoted (mboxrd). A message is read up to
:data:`~whowrote.cli.decoding.MAX_BYTES`, a line up to :data:`MAX_LINE` at a time: memory stays flat
however large the mailbox.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from whowrote.cli.decoding import MAX_BYTES, Item, decode

MAILBOX_SUFFIXES = (".mbox", ".mbx")
MAX_LINE = 1 << 20  # bytes read at once (a base64 attachment has short lines; a hostile file may not)
_ENVELOPE = re.compile(rb"From \S{1,500} +(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ")
_BLANK = (b"\n", b"\r\n")


def _messages(f: IO[bytes]) -> Iterator[tuple[bytes, bool]]:
    """Each message's bytes (its envelope line dropped, ``>From `` unquoted) and whether it was cut
    at :data:`MAX_BYTES` (a message with a large attachment is read for its start); nothing when
    the file does not open with an envelope line."""
    parts: list[bytes] = []
    size, cut, started, after_blank = 0, False, False, True
    while line := f.readline(MAX_LINE):
        if line.startswith(b"From ") and (after_blank or _ENVELOPE.match(line)):
            if started:
                yield b"".join(parts), cut
            parts, size, cut, started, after_blank = [], 0, False, True, False
            continue
        if not started:
            return
        after_blank = line in _BLANK
        if line.startswith(b">") and line.lstrip(b">").startswith(b"From "):
            line = line[1:]
        if size + len(line) <= MAX_BYTES:
            parts.append(line)
            size += len(line)
        else:
            cut = True
    if started:
        yield b"".join(parts), cut


def _message_id(raw: bytes) -> str | None:
    """The ``Message-ID`` header of a message's header block (its first 64 kB), or None."""
    for line in raw[:65536].split(b"\n"):
        if line in (b"", b"\r"):
            return None
        if line[:11].lower() == b"message-id:":
            return line[11:].strip().decode("ascii", "replace")[:300] or None
    return None


def read_mailbox(path: Path) -> Iterator[Item]:
    """One item per message of the mbox file at ``path`` (module docstring); a file that cannot be
    read, or holds no message, is one error item."""
    n = 0
    try:
        with open(path, "rb") as f:
            for n, (raw, cut) in enumerate(_messages(f), 1):
                item = decode(raw, f"{path}:{n}")
                item.id = _message_id(raw)
                if cut and item.error is None:
                    item.warnings.append(f"message over {MAX_BYTES >> 20} MB: only its first {MAX_BYTES >> 20} MB were read")
                yield item
    except OSError as e:
        yield Item(str(path) if n == 0 else f"{path}:{n + 1}", error=f"cannot read: {e.strerror or e}")
        return
    if n == 0:
        yield Item(str(path), error="no messages: not an mbox mailbox (it does not open with a 'From ' line)")
