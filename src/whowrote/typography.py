"""ASCII typography and plain layout: the invisible edits that neither the style model nor the LLM task may read.

Curly quotes and apostrophes, em- and en-dashes, the ellipsis character and non-breaking spaces are
what a word processor, a CMS or a chat window's copy button adds or removes without changing a word
(in the corpus, 1 of 1,234 CLAUDE texts has a curly apostrophe against most CHATGPT texts, so a model
that sees them learns "straight apostrophes => CLAUDE"). :func:`to_ascii` writes them the way
plain-text pipelines do (the unidecode spellings: em-dash ``--``). It is shared, standard library
only, by the style model's canonical form (:mod:`whowrote.style.canonical`) and by the task's prompts
(:mod:`whowrote.task.prompts`), so both read the same text whatever its typography.

:func:`plain_layout` does the same for what an operating system, an editor or a form field changes
without a visible difference: Windows line endings (``\\r\\n``), spaces and tabs at the ends of lines,
and zero-width characters. A file saved on Windows flipped 9.7 % of the style model's verdicts on the
corpus's texts (chat answers 21 %; ``benchmarks/layout_edits.py``) before it read this form (its blank-line, paragraph and end-of-line counts saw no ``\\n\\n``).

:func:`paragraph_ends` splits off a text's first and last paragraphs: where an answer greets and
offers more, the lines a user cuts when pasting it elsewhere. :func:`frontmatter_end` finds where a
Markdown file's YAML frontmatter (metadata, not the writing) ends: read by ``predict``'s input check
(:mod:`whowrote.style.textcheck`) and kept as it is by the ``hard_wrap`` edit.
"""

from __future__ import annotations

import re

TO_ASCII: dict[str, str] = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"', "\u00bb": '"', "\u2033": '"',
    "\u2014": "--", "\u2015": "--", "\u2013": "-", "\u2012": "-", "\u2010": "-", "\u2011": "-",
    "\u2026": "...", "\u00a0": " ", "\u202f": " ", "\u2009": " ",
}
_PAIRS = tuple(TO_ASCII.items())


def to_ascii(text: str) -> str:
    """Curly quotes and apostrophes -> straight, em-dash -> ``--``, en-dash -> ``-``, ``…`` -> ``...``."""
    if text.isascii():  # most texts: nothing to do (str.translate to multi-character strings is slow)
        return text
    for src, dst in _PAIRS:
        if src in text:
            text = text.replace(src, dst)
    return text


# zero-width space / non-joiner / joiner, word joiner, byte-order mark, soft hyphen, left-to-right and
# right-to-left marks: the common characters never seen on screen
INVISIBLE = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e", "\u200f")


def plain_layout(text: str) -> str:
    """Line endings as ``\\n``, no spaces or tabs at the ends of lines, no invisible characters.

    Linear time: ``str.replace`` and one split of the lines, only when the text needs it."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.isascii():
        for ch in INVISIBLE:
            if ch in text:
                text = text.replace(ch, "")
    # ("\t" alone first: a one-character search is several times faster than " \n" or "\t\n")
    if " \n" in text or ("\t" in text and "\t\n" in text) or text.endswith((" ", "\t")):
        text = "\n".join(line.rstrip(" \t") for line in text.split("\n"))
    return text


# A paragraph break: a line break, then one or more (blank line, line break) runs; "\r" counts as space.
_PARAGRAPH_BREAK = re.compile(r"\r?\n(?:[ \t\r]*\n)+")


def paragraph_ends(text: str) -> tuple[str, str, str] | None:
    """``(first, middle, last)`` paragraphs of a text with at least three (blocks separated by blank
    lines; the middle keeps its own breaks), or None: where an answer's opening and closing lines
    are, for ``style.edits.drop_ends`` and for the tells they carry (``style.explain``). Only the
    first break is searched for from the start and the last from the end: a long middle is not scanned."""
    stripped = text.strip()
    first = _PARAGRAPH_BREAK.search(stripped)
    if first is None:
        return None
    last = _last_break(stripped, first.end())
    if last is None:
        return None
    return stripped[: first.start()], stripped[first.end() : last[0]], stripped[last[1] :]


def _last_break(text: str, after: int) -> tuple[int, int] | None:
    """``(start, end)`` of the last paragraph break that starts at or after ``after``: the span
    ``_PARAGRAPH_BREAK`` would match there, found by walking back from the last line break."""
    end = len(text)
    while (j := text.rfind("\n", after, end)) >= 0:
        k = j - 1
        while k >= after and text[k] in " \t\r":
            k -= 1
        if k >= after and text[k] == "\n":  # a blank line ends at j: extend the run backwards
            start = k
            while True:
                k = start - 1
                while k >= after and text[k] in " \t\r":
                    k -= 1
                if k < after or text[k] != "\n":
                    break
                start = k
            if start > after and text[start - 1] == "\r":
                start -= 1
            return start, j + 1
        end = j
    return None


# YAML frontmatter of a Markdown file (Jekyll, Hugo, Obsidian): "---", then "key: value" lines (or their
# indented / list continuations, comments), closed by "---" or "..." within FRONTMATTER_LINES lines.
FRONTMATTER_LINES = 60
_FENCE_LINE = re.compile(r"---[ \t]*\r?\n")
_YAML_KEY = re.compile(r"[A-Za-z_][\w .-]{0,60}:(?:[ \t]|\r?$)")


def frontmatter_end(text: str) -> int:
    """Where the body starts when ``text`` opens with a YAML frontmatter block (its blank lines after
    it skipped), else 0. The block is metadata (title, date, tags), not the writing: no corpus text
    has one. Reads at most :data:`FRONTMATTER_LINES` lines. (The corpus loader keeps the research
    rule, :func:`whowrote.data.clean.split_frontmatter`: any block up to the next ``---`` line, parsed
    with PyYAML for its metadata; predict's input needs a stricter test, and no PyYAML.)"""
    if not _FENCE_LINE.match(text):
        return 0
    pos, keys = text.index("\n") + 1, 0
    for _ in range(FRONTMATTER_LINES):
        end = text.find("\n", pos)
        line = text[pos : len(text) if end < 0 else end].rstrip("\r")
        if line.rstrip() in ("---", "..."):
            if not keys:
                return 0
            body = len(text) if end < 0 else end + 1
            return body + len(text[body : body + 1000]) - len(text[body : body + 1000].lstrip("\r\n"))
        if _YAML_KEY.match(line):
            keys += 1
        elif line.strip() and not line.startswith((" ", "\t", "- ", "#")):
            return 0  # prose, not YAML: a rule at the top of a text
        if end < 0:
            return 0
        pos = end + 1
    return 0
