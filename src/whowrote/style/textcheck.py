"""Sanity checks on one input text before attribution: empty, HTML, huge, non-English, binary.

Never raises: a text that cannot be attributed gets an explicit warning and is forced to
``uncertain``; HTML is reduced to its visible text (the features describe Markdown/plain prose).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_CHARS = 2_000_000  # ~300k words: far beyond any single answer; the rest is ignored
_HTML_TAG = re.compile(r"<(?:p|div|span|br|html|body|head|h[1-6]|li|ul|ol|a|table|td|tr|script|style)\b[^>]*>", re.I)
_SCRIPT = re.compile(r"<(script|style)\b.*?</\1\s*>", re.I | re.S)
_ANY_TAG = re.compile(r"<[^>]{0,500}>")
_WORD = re.compile(r"[A-Za-z']+")
_COMMON = frozenset(["the", "a", "an", "of", "and", "to", "in", "is", "it", "that", "for", "with", "as", "on", "be", "are", "this", "not", "or", "but", "you"])


@dataclass
class TextCheck:
    text: str
    n_words: int
    warnings: list[str] = field(default_factory=list)
    force_uncertain: bool = False
    skip: bool = False  # nothing to attribute: the result is uniform probabilities, uncertain


def html_to_text(html: str) -> str:
    import html as html_lib

    body = _SCRIPT.sub(" ", html)
    body = re.sub(r"(?i)<br\s*/?>|</p\s*>|</h[1-6]\s*>|</li\s*>|</div\s*>", "\n\n", body)
    return html_lib.unescape(_ANY_TAG.sub("", body))


def looks_like_html(text: str) -> bool:
    head = text[:20000]
    return head.lstrip()[:15].lower().startswith(("<!doctype", "<html")) or len(_HTML_TAG.findall(head)) >= 5


def inspect_text(text: str) -> TextCheck:
    warnings: list[str] = []
    force = False
    if "\x00" in text[:10000]:
        return TextCheck("", 0, ["binary data, not text: no attribution"], True, True)
    if len(text) > MAX_CHARS:
        warnings.append(f"very long text ({len(text):,} characters): only the first {MAX_CHARS:,} are used")
        text = text[:MAX_CHARS]
    if looks_like_html(text):
        text = html_to_text(text)
        warnings.append("input looks like HTML: tags were removed and the visible text attributed "
                        "(Markdown formatting tells are lost)")
    if not text.strip():
        return TextCheck(text, 0, [*warnings, "empty text: no attribution"], True, True)
    n_words = len(text.split())
    sample = text[:4000]  # enough to tell English prose; keeps this check cheap on long texts
    words = _WORD.findall(sample) or _WORD.findall(text)
    if not words:
        return TextCheck(text, n_words, [*warnings, "no English words found: no attribution"], True, True)
    common = sum(map(_COMMON.__contains__, map(str.lower, words))) / len(words)
    letters = sum(map(len, words)) / max(len("".join(sample.split())), 1)
    if n_words >= 20 and (common < 0.08 or letters < 0.5):
        warnings.append("this does not look like English prose; the model was trained on English only")
        force = True
    return TextCheck(text, n_words, warnings, force)
