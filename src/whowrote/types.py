"""Shapes shared by every part: the provider labels and the corpus table's columns."""

from __future__ import annotations

PROVIDERS: tuple[str, ...] = ("CLAUDE", "CHATGPT", "GEMINI")
OTHER = "OTHER"
LABELS: tuple[str, ...] = (*PROVIDERS, OTHER)

# The one table every part reads: a pandas DataFrame with these columns (plus any extra
# metadata columns the source had, kept as they are).
CORPUS_COLUMNS: tuple[str, ...] = ("id", "text", "provider", "model", "category", "topic", "genre")


class WhowroteError(Exception):
    """A user-facing error: the CLI prints its message on one line and exits non-zero."""
