"""The run folder: rows appended and fsync'ed one by one, recovered after a kill, and the
research system's Markdown-with-frontmatter tree.

``DIR/generated.jsonl`` holds one JSON object per kept text; ``DIR/dropped.jsonl`` the texts the
leak hygiene dropped (kept for inspection, never trained on). Both are append-only: a row is one
``os.write`` of a complete line followed by ``fsync``, so a kill leaves at most one partial last
line, which :func:`recover` cuts off on the next run.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from whowrote.types import WhowroteError

ROWS = "generated.jsonl"
DROPPED = "dropped.jsonl"
TOPICS = "topics.jsonl"
REPORT = "report.json"
MARKDOWN = "markdown"
# Provenance written into the Markdown frontmatter (the text is the body).
FRONTMATTER_KEYS = ("model", "provider", "category", "topic", "genre", "length", "sample", "prompt_id",
                    "api", "served_model", "response_id", "finish_reason", "truncated", "prompt_tokens",
                    "completion_tokens", "created", "id")


def recover(path: Path, log: Callable[[str], None] = print, repair: bool = True) -> list[dict]:
    """The complete rows of an append-only JSONL file; a partial last line (a killed writer) is
    cut off the file (``repair``; else only skipped). A bad line anywhere else is corruption, not
    a kill: an error, nothing changed."""
    if not path.exists():
        return []
    rows: list[dict] = []
    good_end = 0
    with open(path, "rb") as f:
        for n, line in enumerate(f, 1):
            if not line.endswith(b"\n"):
                break  # the partial last line
            try:
                row = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise WhowroteError(f"{path}:{n}: not a JSON row (the file was edited or damaged; "
                                    "fix or remove that line)") from None
            if not isinstance(row, dict) or "id" not in row:
                raise WhowroteError(f"{path}:{n}: a row without an id")
            rows.append(row)
            good_end += len(line)
    size = path.stat().st_size
    if size > good_end and not repair:
        log(f"{path.name}: a partial last line ({size - good_end} bytes) will be cut off by the next run")
    elif size > good_end:
        with open(path, "r+b") as f:
            f.truncate(good_end)
            os.fsync(f.fileno())
        log(f"{path.name}: cut off a partial last line ({size - good_end} bytes) left by an interrupted run")
    return rows


class Appender:
    """Append complete JSON lines to a file, each flushed to disk before the call returns."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def write(self, row: dict) -> None:
        data = memoryview((json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8"))
        while data:  # os.write may write less than asked
            data = data[os.write(self.fd, data):]
        os.fsync(self.fd)

    def close(self) -> None:
        os.close(self.fd)

    def __enter__(self) -> Appender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file and a rename (never half a file)."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


_NON_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str, limit: int = 60) -> str:
    return _NON_SLUG.sub("-", text.lower()).strip("-")[:limit].strip("-") or "x"


def markdown_path(root: Path, row: dict) -> Path:
    """``<root>/<genre>/<category>/<topic>/<model>__<length>[__s<n>].md`` (the research layout under
    a genre folder); the topic folder carries a short hash so two topics never share one."""
    topic = str(row["topic"])
    digest = hashlib.sha256(topic.encode("utf-8")).hexdigest()[:6]
    model = str(row["model"]).replace("/", "--")
    sample = f"__s{row['sample']}" if row.get("sample") else ""
    return (root / slug(str(row["genre"])) / slug(str(row["category"])) / f"{slug(topic)}-{digest}"
            / f"{model}__{row['length']}{sample}.md")


def write_markdown_tree(root: Path, rows: Iterable[dict]) -> int:
    """One Markdown file with YAML frontmatter per row; files already up to date are left alone."""
    import yaml

    written = 0
    for row in rows:
        path = markdown_path(root, row)
        head = yaml.safe_dump({k: row.get(k) for k in FRONTMATTER_KEYS}, sort_keys=False, allow_unicode=True)
        text = f"---\n{head}---\n\n{row['text'].rstrip()}\n"
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text)
        written += 1
    return written
