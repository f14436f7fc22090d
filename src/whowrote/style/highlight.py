"""Where a feature occurs in a text, for highlighting in a UI.

Every feature with something countable in the text (a punctuation mark, a Markdown construct, a
word or phrase) has a regex in its :class:`~whowrote.style.specs.FeatureSpec` ``pattern``;
length/ratio features (sentence length, vocabulary variety) have none.

- ``highlight_patterns(feature_set)`` -> ``{feature: regex source}`` (Python ``re`` syntax; the
  inline flags ``(?m)``/``(?i)`` are the only flags used, so most also work in JavaScript once
  the inline flags are turned into ``"m"``/``"i"`` flags).
- ``tell_spans(text, feature)`` -> ``[(start, end), ...]`` character offsets of the matches.
- ``tell_spans_many(text, features)`` -> ``{feature: [(start, end), ...]}``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from whowrote.style.features import FEATURES, feature_specs

MAX_SPANS = 2000  # a UI cannot show more, and a 50 MB text would otherwise return millions


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
