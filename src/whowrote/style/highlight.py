"""Where a feature occurs in a text, for highlighting in a UI (the page of ``whowrote serve``).

Every feature with something countable in the text (a punctuation mark, a Markdown construct, a
word or phrase) has a regex in its :class:`~whowrote.style.specs.FeatureSpec` ``pattern``;
length/ratio features (sentence length, vocabulary variety) have none, and nothing is guessed for
them. Every pattern runs in linear time (``benchmarks/adversarial_regex.py`` checks them all).
Offsets count Unicode code points (Python ``str`` indices; ``Array.from(text)`` in JavaScript).

- ``highlight_patterns(feature_set)`` -> ``{feature: regex source}`` (Python ``re`` syntax; the
  inline flags ``(?m)``/``(?i)`` are the only flags used, so most also work in JavaScript once
  the inline flags are turned into ``"m"``/``"i"`` flags).
- ``tell_spans(text, feature)`` -> ``[(start, end), ...]`` character offsets of the matches.
- ``tell_spans_many(text, features)`` -> ``{feature: [(start, end), ...]}``.
- ``highlight_spans(text, features)`` -> non-overlapping ``{feature, start, end}`` in text order,
  what ``POST /v1/predict`` answers as ``highlights``; in a pasted conversation, only in the
  assistant's turns (the text the model attributed; :mod:`whowrote.style.transcript`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from whowrote.style.features import FEATURES, feature_specs
from whowrote.style.transcript import assistant_turns

MAX_SPANS = 2000  # spans per text (and per feature): a UI cannot show more, and a 50 MB text has millions


def highlight_patterns(feature_set: str = "full") -> dict[str, str]:
    return {s.name: s.pattern for s in feature_specs(feature_set) if s.pattern}


@lru_cache(maxsize=512)
def _compiled(feature: str) -> re.Pattern[str] | None:
    spec = FEATURES.get(feature)
    if spec is None:
        raise KeyError(f"unknown feature {feature!r}")
    return re.compile(spec.pattern) if spec.pattern else None


def tell_spans(text: str, feature: str, limit: int = MAX_SPANS) -> list[tuple[int, int]]:
    """Character spans of ``feature`` in ``text`` (empty if the feature is not local)."""
    rx = _compiled(feature)
    if rx is None:
        return []
    out: list[tuple[int, int]] = []
    for m in rx.finditer(text):
        if m.end() > m.start():
            out.append((m.start(), m.end()))
            if len(out) >= limit:
                break
    return out


def tell_spans_many(text: str, features: Iterable[str], limit: int = MAX_SPANS) -> dict[str, list[tuple[int, int]]]:
    return {f: tell_spans(text, f, limit) for f in features}


def highlight_spans(text: str, features: Iterable[str], limit: int = MAX_SPANS) -> list[dict[str, int | str]]:
    """Non-overlapping ``{"feature", "start", "end"}`` spans of ``features`` (a model's tells, most
    important first) in text order, at most ``limit``. Where spans overlap, the one that starts
    first wins, then the longer, then the earlier feature; names of no known feature are skipped.
    A pasted conversation is searched in its assistant turns only, so the user's turns neither
    get marks nor use up ``limit``."""
    conversation = assistant_turns(text)
    regions = conversation.spans if conversation is not None else ((0, len(text)),)
    found: list[tuple[int, int, int, str]] = []  # (start, -length, rank, feature)
    for rank, feature in enumerate(dict.fromkeys(features)):
        if feature in FEATURES:
            for lo, hi in regions:
                part = text if conversation is None else text[lo:hi]
                found.extend((lo + a, a - b, rank, feature) for a, b in tell_spans(part, feature, limit))
    found.sort()
    out: list[dict[str, int | str]] = []
    last_end = 0
    for start, neg_len, _rank, feature in found:
        if start >= last_end:
            out.append({"feature": feature, "start": start, "end": start - neg_len})
            last_end = start - neg_len
            if len(out) >= limit:
                break
    return out
