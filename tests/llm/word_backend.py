"""A fake backend's token accounting for the harness tests: one token per whitespace word.

A plain module next to the tests (imported as ``from word_backend import WordTokens``), not
conftest: importing from conftest breaks when another folder's conftest is loaded first."""

from __future__ import annotations


class WordTokens:
    """count / truncate / prompt tokens as words; subclasses add ``generate``."""

    name = "scripted"

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def truncate_tokens(self, text: str, n: int) -> str:
        return " ".join(text.split()[:n])

    def prompt_tokens(self, messages: list[dict]) -> int:
        return sum(self.count_tokens(m["content"]) for m in messages)
