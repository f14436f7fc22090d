"""Where in the text each tell shows: character spans for the page to mark.

The model's own patterns come first (a tell may carry ``spans``; else the feature's regex from
:func:`whowrote.style.highlight.highlight_patterns`); for features that have none, a small table
of regexes keyed by words in the feature name covers common surface tells (emoji, italics…).
Offsets count Unicode code points (Python ``str`` indices; ``Array.from(text)`` in JavaScript).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from whowrote.style.highlight import highlight_patterns

MAX_SPANS = 4000
_WORDS = r"(?<![\w'’])(?:{})(?![\w'’])"

# keyword in the feature name/label -> pattern that shows it in a text
FALLBACK_PATTERNS: tuple[tuple[tuple[str, ...], str, int], ...] = (
    (("em_dash", "emdash", "em-dash", "em dash"), r"—| -- ", 0),
    (("en_dash", "endash", "en-dash", "en dash"), r"–", 0),
    (("heading", "header"), r"^ {0,3}#{1,6}[ \t]+\S.*$", re.M),
    (("bold", "strong"), r"\*\*(?=[^\s*])[^*\n]+?(?<=[^\s*])\*\*|__(?=[^\s_])[^_\n]+?(?<=[^\s_])__", 0),
    (("italic", "emphasis"), r"(?<![*\w])\*(?=[^\s*])[^*\n]+?(?<=[^\s*])\*(?![*\w])", 0),
    (("bullet", "list"), r"^[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+", re.M),
    (("hedge", "hedging"), _WORDS.format(
        "perhaps|maybe|might|arguably|likely|possibly|probably|seems?|seemingly|somewhat|"
        "suggests?|appears? to|it is possible|to some extent|in some ways|may"), re.I),
    (("intensifier", "booster", "amplifier"), _WORDS.format(
        "very|really|truly|incredibly|extremely|deeply|profoundly|absolutely|genuinely|"
        "remarkably|utterly|entirely|fundamentally|crucially|incredible|extraordinary|vital"), re.I),
    (("semicolon",), r";", 0),
    (("colon",), r"(?<!\d):(?!\d)", 0),
    (("exclamation",), r"!", 0),
    (("question",), r"\?", 0),
    (("ellipsis", "ellipses"), r"…|\.\.\.", 0),
    (("paren", "parens", "parentheses", "parenthetical"), r"\([^()\n]{1,200}\)", 0),
    (("curly_quote", "smart_quote", "curly quote"), r"[“”‘’]", 0),
    (("not_but", "contrast", "not just", "not_just", "negation_pivot"),
     r"\bnot (?:just|only|merely|simply)\b|\bisn['’]t (?:just|about)\b|\bit['’]s not\b", re.I),
    (("contraction",), r"\b\w+['’](?:s|t|re|ve|ll|d|m)\b", re.I),
    (("first_person", "first person", "pronoun_i"), _WORDS.format("I|me|my|mine|we|us|our"), 0),
    (("second_person", "second person", "you"), _WORDS.format("you|your|yours"), re.I),
    (("emoji",), r"[\U0001F300-\U0001FAFF\u2600-\u27BF]", 0),
    (("code",), r"`[^`\n]+`|^```.*$", re.M),
    (("link", "url"), r"\[[^\[\]\n]+\]\([^()\n]+\)|https?://\S+", 0),
    (("table",), r"^\|.*\|[ \t]*$", re.M),
)

PatternSource = Callable[[str], "re.Pattern[str] | str | None"]


def fallback_pattern(feature: str, label: str = "") -> re.Pattern[str] | None:
    """The fallback regex for a feature, chosen by words in its name or label."""
    name = re.sub(r"[^a-z0-9]+", " ", f"{feature} {label}".lower())
    for keys, pattern, flags in FALLBACK_PATTERNS:
        for key in keys:
            key = re.sub(r"[^a-z0-9]+", " ", key)
            if re.search(rf"(?<![a-z]){key}(?:s|es)?(?![a-z])", name):
                return re.compile(pattern, flags)
    return None


def model_pattern_source(model: Any) -> PatternSource:
    """``feature -> regex`` from ``model.patterns`` (a mapping) or else
    ``whowrote.style.highlight.highlight_patterns("full")``; None where neither has one."""
    table = getattr(model, "patterns", None)
    if not isinstance(table, Mapping):
        table = highlight_patterns("full")
    return lambda feature: table.get(feature) or None


@lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def spans_for(text: str, tells: Sequence[Mapping[str, Any]], source: PatternSource | None = None,
              limit: int = MAX_SPANS) -> list[dict[str, Any]]:
    """Non-overlapping ``{feature, start, end}`` spans of the given tells, in text order."""
    found: list[tuple[int, int, int, str]] = []  # (start, -length, rank, feature)
    for rank, tell in enumerate(tells):
        feature = str(tell.get("feature", ""))
        for start, end in _tell_spans(text, tell, source):
            if 0 <= start < end <= len(text):
                found.append((start, start - end, rank, feature))
    found.sort()
    out: list[dict[str, Any]] = []
    last_end = 0
    for start, neg_len, _rank, feature in found:
        if start < last_end:
            continue  # overlaps an earlier (or longer) span
        out.append({"feature": feature, "start": start, "end": start - neg_len})
        last_end = start - neg_len
        if len(out) >= limit:
            break
    return out


def _tell_spans(text: str, tell: Mapping[str, Any], source: PatternSource | None) -> Iterable[tuple[int, int]]:
    given = tell.get("spans")
    if isinstance(given, list) and given:
        for s in given:
            if isinstance(s, Mapping):
                yield int(s.get("start", -1)), int(s.get("end", -1))
            elif isinstance(s, list | tuple) and len(s) == 2:
                yield int(s[0]), int(s[1])
        return
    feature = str(tell.get("feature", ""))
    pattern = source(feature) if source else None
    if isinstance(pattern, str):
        pattern = _compile(pattern)
    if pattern is None:
        pattern = fallback_pattern(feature, str(tell.get("label", "")))
    if pattern is None:
        return
    for m in pattern.finditer(text):
        if m.end() > m.start():
            yield m.start(), m.end()
