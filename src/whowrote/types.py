"""Shapes shared by every part: the provider labels, the corpus table's columns, the user-facing
error, plain-JSON conversion, a file's sha256 and the cores a process may use."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

PROVIDERS: tuple[str, ...] = ("CLAUDE", "CHATGPT", "GEMINI")
OTHER = "OTHER"
LABELS: tuple[str, ...] = (*PROVIDERS, OTHER)

# The one table every part reads: a pandas DataFrame with these columns (plus any extra
# metadata columns the source had, kept as they are).
CORPUS_COLUMNS: tuple[str, ...] = ("id", "text", "provider", "model", "category", "topic", "genre")


class WhowroteError(Exception):
    """A user-facing error: the CLI prints its message on one line and exits non-zero."""


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON types, for ``json.dumps``: mappings -> dicts with string keys,
    sequences -> lists, numpy scalars and arrays (anything with ``tolist``) -> numbers and lists,
    other objects -> their ``str``. Imports nothing (numpy is duck-typed)."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):  # subclasses (numpy's str_, str enums) made plain too
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):  # numpy's float64 is one
        return float(value)
    if isinstance(value, Mapping):
        return {_json_key(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v) for v in value]
    if callable(getattr(value, "tolist", None)):
        return jsonable(value.tolist())
    return str(value)


def _json_key(key: Any) -> str:
    """A mapping key as ``json.dumps`` writes it (``1`` -> ``"1"``, ``True`` -> ``"true"``)."""
    key = jsonable(key)
    return key if isinstance(key, str) else json.dumps(key)


def file_sha256(path: str | Path) -> str:
    """The sha256 of a file, read in 1 MiB blocks (corpus files, eval splits)."""
    import hashlib  # here: hashlib loads OpenSSL (5 ms), which predict's start-up does not need

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), not the machine's count."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)
