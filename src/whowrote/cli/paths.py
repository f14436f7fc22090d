"""The arguments of ``whowrote predict`` as files: folders (recursing into .md/.txt/.html/.docx/.odt/.pdf/.epub/.rtf/.eml/.msg/.doc), globs, ``-``, web addresses.

:func:`expand` turns each argument into the files it names, in order (folders and globs
sorted), ``-`` into :data:`STDIN`, an ``http(s)://`` address into a :class:`Url`, and an argument
that names no file into a :class:`Missing`;
:mod:`whowrote.cli.inputs` reads them. Standard library only (start-up time matters).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from whowrote.formats import FOLDER_SUFFIXES

STDIN = "-"


@dataclass(frozen=True)
class Missing:
    """An argument that names no file: what :func:`expand` gives instead of a path."""

    name: str  # the item's path: the argument
    reason: str


@dataclass(frozen=True)
class Url:
    """A web address argument (``http://``, ``https://``): :mod:`whowrote.cli.url_inputs` fetches it."""

    url: str


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return True  # let the read report why it cannot be read


def warn(message: str) -> None:
    print(f"whowrote: warning: {message}", file=sys.stderr)


class TextFile(str):
    """The path of a text file found in a folder (.md/.txt/.html/.docx/.odt/.pdf/.epub/.rtf/.eml/.msg/.doc, a regular file): read as a text, never as a table."""


def _folder_files(top: str, warn: Callable[[str], None]) -> Iterator[TextFile]:
    """What ``os.walk(top)`` finds, with folders and names sorted, hidden folders and symlinked
    folders not entered: the regular files named ``*.md``/``*.txt``. One ``scandir`` per folder;
    a file's type comes from its directory entry (no ``stat`` for a plain file)."""
    try:
        with os.scandir(top) as it:
            entries = list(it)
    except OSError:
        return
    dirs, files = [], []
    for e in entries:
        try:
            is_dir = e.is_dir()
        except OSError:
            is_dir = False
        (dirs if is_dir else files).append(e)
    files.sort(key=lambda e: e.name)
    prefix = str(Path(top))  # paths spelled as Path(root, name) spells them ("./a.md" is "a.md")
    for e in files:
        # "~$essay.docx": the lock file Word keeps beside a document while it is open, not a document
        if e.name.lower().endswith(FOLDER_SUFFIXES) and not e.name.startswith("~$"):
            found = e.name if prefix == "." else os.path.join(prefix, e.name)
            if _entry_is_regular(e, found):
                yield TextFile(found)
            else:  # a FIFO or device would block the read forever
                warn(f"skipped {found}: not a regular file")
    for e in sorted(dirs, key=lambda e: e.name):
        if not e.name.startswith(".") and not e.is_symlink():
            yield from _folder_files(os.path.join(top, e.name), warn)


def _entry_is_regular(entry: os.DirEntry, path: str) -> bool:
    try:
        return entry.is_file() or _is_regular(Path(path))
    except OSError:
        return True  # let the read report why it cannot be read


def expand(paths: Sequence[str], warn: Callable[[str], None] = warn) -> Iterator[Path | TextFile | Missing | Url | str]:
    """Arguments -> files (folders recurse into .md/.txt/.html/.docx/.odt/.pdf/.epub/.rtf/.eml/.msg/.doc; globs expand); ``-`` stays :data:`STDIN`;
    an argument that names no file is a :class:`Missing`.

    Inside folders and globs only regular files are taken (a FIFO named ``*.md`` is skipped with
    a warning); a path named on the command line is read as given (``<(cmd)`` is a pipe)."""
    for arg in paths:
        if arg == STDIN:
            yield STDIN
            continue
        if arg[:8].lower().startswith(("http://", "https://")):
            yield Url(arg)
            continue
        p = Path(arg)
        if p.is_dir():
            yield from _folder_files(str(p), warn)
        elif p.exists():
            yield p
        elif any(ch in arg for ch in "*?["):
            import glob  # only for a glob (start-up time)

            matches = sorted(glob.glob(arg, recursive=True))
            if not matches:
                yield Missing(arg, "no file matches this pattern")
            for m in matches:
                if Path(m).is_file():  # a regular file: FIFOs and folders are left out
                    yield Path(m)
        else:
            yield Missing(arg, "no such file or folder")
