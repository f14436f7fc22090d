"""Label-preserving text edits for the robustness table (spec §4.4 ``adversarial_eval.py``).

Each edit removes one kind of surface tell and keeps the wording:

- ``strip_md``: Markdown (code, math, headers, blockquotes, bullets, numbered lists, rules,
  table pipes, bold, italic, links) — the words stay, the layout goes;
- ``norm_punct``: typographic punctuation — em-dash -> comma, en-dash -> "-", curly -> straight
  quotes, ellipsis -> "...", bullets and arrows removed (Markdown is left alone);
- ``lower``: lower-casing;
- ``prefix800``: only the first 800 characters;
- ``sent_shuffle``: a seeded shuffle of the sentences;
- ``hard``: ``sent_shuffle(lower(norm_punct(strip_md(text))))``.
"""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Callable

# The length curve's prefixes are cut as the style model's training copies are (re-exported here).
from whowrote.style.train import truncate_words as truncate_words

_FENCE = re.compile(r"```.*?```|~~~.*?~~~", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$|\\\[.*?\\\]", re.S)
_INLINE_MATH = re.compile(r"\$[^$\n]+\$|\\\(.*?\\\)")
_HEADER = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]*", re.M)
_BLOCKQUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.M)
_RULE = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$", re.M)
_BULLET = re.compile(r"^[ \t]*[-*+•][ \t]+", re.M)
_NUMBERED = re.compile(r"^[ \t]*\d+[.)][ \t]+", re.M)
_TABLE_SEP = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$", re.M)
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__", re.S)
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)([^*\n]+?)\*(?![\w*])|(?<![\w_])_(?!\s)([^_\n]+?)_(?![\w_])")
_SPACES = re.compile(r"[ \t]{2,}")
_BLANKS = re.compile(r"\n{3,}")


def strip_md(text: str) -> str:
    """Remove Markdown (and LaTeX math) but keep the words."""
    text = _FENCE.sub(" ", text)
    text = _DISPLAY_MATH.sub(" ", text)
    text = _INLINE_MATH.sub(" ", text)
    text = _INLINE_CODE.sub(" ", text)
    text = _TABLE_SEP.sub("", text)
    text = _RULE.sub("", text)
    text = _HEADER.sub("", text)
    text = _BLOCKQUOTE.sub("", text)
    text = _BULLET.sub("", text)
    text = _NUMBERED.sub("", text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _BOLD.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = _ITALIC.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = text.replace("**", "").replace("|", " ")
    text = _SPACES.sub(" ", text)
    text = "\n".join(line.strip() for line in text.split("\n"))
    return _BLANKS.sub("\n\n", text).strip()


_PUNCT_MAP = {
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2018": "'", "\u2019": "'", "\u201a": "'",
    "\u2013": "-", "\u2026": "...", "\u2022": "", "\u2192": "", "\u2190": "", "\u21d2": "",
}
_EMDASH = re.compile(r"\s*[\u2014\u2015]\s*")
_SPACE_BEFORE_COMMA = re.compile(r" +,")


def norm_punct(text: str) -> str:
    """Typographic punctuation -> plain: em-dash -> ", ", curly -> straight quotes, etc."""
    text = _EMDASH.sub(", ", text)
    for src, dst in _PUNCT_MAP.items():
        text = text.replace(src, dst)
    return _SPACE_BEFORE_COMMA.sub(",", text)


def lower(text: str) -> str:
    return text.lower()


def prefix(text: str, n_chars: int = 800) -> str:
    """The first ``n_chars`` characters."""
    return text[:n_chars]


_SENT_END = re.compile(r"(?<=[.!?])\s+")


def split_sentences(text: str) -> list[str]:
    """Sentences with their trailing whitespace kept, so that ``"".join`` gives ``text`` back."""
    pieces, start = [], 0
    for m in _SENT_END.finditer(text):
        pieces.append(text[start : m.end()])
        start = m.end()
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def sent_shuffle(text: str, seed: int = 0) -> str:
    """The same sentences in a shuffled order (seeded by ``seed`` and the text itself)."""
    pieces = split_sentences(text)
    if pieces and not pieces[-1][-1:].isspace():
        pieces[-1] += " "
    rng = random.Random(seed * 1_000_003 + zlib.crc32(text.encode("utf-8")))
    rng.shuffle(pieces)
    return "".join(pieces).strip()


def hard(text: str, seed: int = 0) -> str:
    return sent_shuffle(lower(norm_punct(strip_md(text))), seed=seed)


def perturbations(seed: int = 0) -> dict[str, Callable[[str], str]]:
    """The named edits of the robustness table, in report order (``raw`` first)."""
    return {
        "raw": lambda t: t,
        "strip_md": strip_md,
        "norm_punct": norm_punct,
        "lower": lower,
        "prefix800": prefix,
        "sent_shuffle": lambda t: sent_shuffle(t, seed=seed),
        "hard": lambda t: hard(t, seed=seed),
    }


_WORD = re.compile(r"\S+")


def n_words(text: str) -> int:
    return sum(1 for _ in _WORD.finditer(text))
