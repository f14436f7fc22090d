"""A lexical profile of a text: per-1,000-word rates of a fixed vocabulary of words and word pairs.

The text is read in the model's canonical form (:func:`~whowrote.style.canonical.canonical`:
ASCII typography, lower case), so quote, dash and case edits cannot change the profile. Tokens are
words (letters and digits, with one in-word apostrophe part: ``don't``, ``it's``) and the
punctuation marks ``. , ; : ! ?``, so a vocabulary can hold unigrams (``the``, ``crucial``), word
pairs (``of the``) and punctuation-adjacent pairs (``, and``; ``. however``: a sentence opener).
A term is a space-joined string of one or two tokens.

:func:`choose_vocabulary` picks the terms from per-genre statistics of training texts only: a term
must occur in at least ``min_df`` of the texts of at least ``min_genres`` genres (so it is not one
genre's content), and the terms are ranked by their ``min_genres``-th highest per-genre mean rate.

Tokenising is one linear-time regex pass (no nested quantifiers) plus two C-level ``Counter``
passes; :func:`rates` costs O(tokens + vocabulary) per text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from whowrote.style.canonical import canonical

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)?|[.,;:!?]")
PUNCTUATION = frozenset(".,;:!?")


def tokens(text: str) -> list[str]:
    """The tokens of the canonical form of ``text`` (module docstring)."""
    return _TOKEN.findall(canonical(text))


def term_counts(toks: Sequence[str]) -> tuple[Counter, int]:
    """``(counts of every unigram and adjacent pair, number of word tokens)``; a pair is keyed as
    the tuple of its two tokens, a unigram as its string."""
    c = Counter(toks)
    n_words = len(toks) - sum(c.get(p, 0) for p in PUNCTUATION)
    c.update(zip(toks, toks[1:], strict=False))
    return c, n_words


def term_key(term: str) -> str | tuple[str, str]:
    """A vocabulary term (``"of the"``, ``", and"``, ``"the"``) as :func:`term_counts` keys it."""
    parts = term.split(" ")
    if len(parts) == 1 and parts[0]:
        return parts[0]
    if len(parts) == 2 and all(parts):
        return parts[0], parts[1]
    raise ValueError(f"a lexical term is one or two space-separated tokens, not {term!r}")


def term_name(key: str | tuple[str, str]) -> str:
    return key if isinstance(key, str) else " ".join(key)


def rates(texts: Sequence[str], vocabulary: Sequence[str]) -> np.ndarray:
    """``(texts, terms)``: occurrences of each term per 1,000 words of each text (0 for a text with
    no words)."""
    keys = [term_key(t) for t in vocabulary]
    out = np.zeros((len(texts), len(keys)))
    for i, text in enumerate(texts):
        c, n = term_counts(tokens(text))
        if n:
            out[i] = [c.get(k, 0) for k in keys]
            out[i] *= 1000.0 / n
    return out


def choose_vocabulary(df: Mapping[str, np.ndarray], mean_rate: Mapping[str, np.ndarray], terms: Sequence[str],
                      size: int, min_df: float = 0.05, min_genres: int = 3) -> list[str]:
    """The ``size`` terms (of ``terms``) in at least ``min_df`` of the texts of at least
    ``min_genres`` genres (fewer when fewer genres are given), ranked by their ``min_genres``-th
    highest per-genre mean rate (ties by term). ``df[genre]`` / ``mean_rate[genre]``: per term,
    the share of the genre's texts holding it and its mean rate per 1,000 words."""
    genres = sorted(df)
    k = min(min_genres, len(genres))
    if k < 1 or size < 1:
        raise ValueError("choose_vocabulary needs at least one genre and a positive size")
    share = np.array([df[g] for g in genres])
    rate = np.array([mean_rate[g] for g in genres])
    ok = np.count_nonzero(share >= min_df, axis=0) >= k
    score = np.sort(rate, axis=0)[-k]
    order = sorted(np.flatnonzero(ok).tolist(), key=lambda j: (-score[j], terms[j]))
    return [terms[j] for j in order[:size]]
