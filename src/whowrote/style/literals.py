"""Counts of the extended features' multi-byte literals in a long text from the positions of a few
bytes, in one pass: what ``bytes.count`` of each literal gives, without a pass per literal.

``bytes.count`` of a short needle scans the text a few bytes at a time (a 20 kB blog post costs
~20 µs per literal, ~10 literals). Here one ``bytes.translate`` keeps only the bytes the literals
start or end with ('-', '\\n', '.', ':', '#', ']', '|'), one ``nonzero`` finds their positions, and
each literal is checked at its own byte's few positions (a neighbour is read from a zero-padded
copy, so no check runs past either end). ``bytes.count`` counts non-overlapping hits from the
left; four of these literals can overlap themselves, and for them the left-to-right count is
exact per run: ``k`` copies of a byte in a row hold ``k // n`` hits of that byte ``n`` times
("--", "...", "\\n\\n"), and a chain of " - " candidates two bytes apart ("`` - - - ``") shares
its spaces, so every other one counts. :func:`whowrote.style.extended.extended_values` uses this
for texts over :data:`LONG` bytes (shorter ones: ``_split_counts`` and a gated ``bytes.count``);
``tests/style/test_literals.py`` checks it against ``bytes.count``.
"""

from __future__ import annotations

import numpy as np

LONG = 16000  # bytes: above this (blog posts) one positions pass beats a bytes.count pass per literal

_HYPHEN, _NL, _DOT, _COLON, _HASH, _RBRACKET, _PIPE, _SPACE, _STAR, _LPAREN = b"-\n.:#]| *("
# Every byte that a literal below is anchored on keeps its value; the rest become 0.
_KEEP = bytes(c if c in b"-\n.:#]|" else 0 for c in range(256))
_PAD = 5  # zero bytes after the text (the longest look-ahead is 4)


def _runs(p: np.ndarray, step: int) -> tuple[np.ndarray, np.ndarray]:
    """(first position, length) of each maximal run of ascending positions ``p`` spaced ``step`` apart."""
    if not len(p):
        return p, p
    cut = ((p[1:] - p[:-1]) != step).nonzero()[0] + 1
    edges = np.empty(len(cut) + 2, dtype=np.int64)
    edges[0], edges[1:-1], edges[-1] = 0, cut, len(p)
    return p[edges[:-1]], edges[1:] - edges[:-1]


def long_counts(raw: bytes) -> dict[str, int]:
    """``raw.count`` of each literal that :func:`~whowrote.style.extended._split_counts` and the
    scanned literals count (keys: feature names; "emdash_spaced" is not among them)."""
    return {name: int(n.sum()) for name, (_, n) in _hits(raw).items()}


def counts_many(raws: list[bytes]) -> dict[str, list[int]]:
    """:func:`long_counts` of each of ``raws`` (one list per literal, one count per text), from
    one pass over the texts joined by a zero byte: every check below wants a given non-zero byte
    at each place it reads, so a zero between two texts ends a match as a text's end does."""
    m = len(raws)
    off = np.zeros(m, dtype=np.int64)
    if m > 1:
        np.cumsum(np.array([len(r) + 1 for r in raws[:-1]], dtype=np.int64), out=off[1:])
    out = {}
    for name, (at, n) in _hits(b"\0".join(raws)).items():
        owner = off.searchsorted(at, "right") - 1
        out[name] = np.bincount(owner, weights=n, minlength=m).astype(np.int64).tolist() if len(at) else [0] * m
    return out


def _hits(raw: bytes) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per literal: where its hits are (a position inside each hit or run of hits) and how many
    hits are there (1, or a run's count)."""
    kept = np.frombuffer(raw.translate(_KEEP), np.uint8)
    pos = (kept != 0).nonzero()[0]  # (a bool array: nonzero() is ~3x faster than on the bytes)
    val = kept[pos]
    a = np.frombuffer(b"\0" + raw + bytes(_PAD), np.uint8)  # a[p + 1] is raw[p]; 0 outside raw

    def where(byte: int) -> np.ndarray:
        return pos[val == byte]

    def each(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return p, np.ones(len(p), dtype=np.int64)

    def runs(p: np.ndarray, step: int, per: int, extra: int = 0) -> tuple[np.ndarray, np.ndarray]:
        first, n = _runs(p, step)
        return first, (n + extra) // per

    hy, nl, dot = where(_HYPHEN), where(_NL), where(_DOT)
    # neighbours of each hyphen: before (a[p]), after (a[p + 2], a[p + 3], a[p + 4])
    before, after = a[hy], a[hy + 2]
    spaced = hy[(before == _SPACE) & (after == _SPACE)]
    star = a[hy + 3] == _STAR
    col, hs, rb, pipe = where(_COLON), where(_HASH), where(_RBRACKET), where(_PIPE)
    return {
        "double_hyphen": runs(hy, 1, 2),
        "spaced_hyphen": runs(spaced, 2, 2, 1),
        "bold_bullet": each(hy[(after == _SPACE) & star & (a[hy + 4] == _STAR)]),
        "hrule": each(hy[(before == _NL) & (after == _HYPHEN) & (a[hy + 3] == _HYPHEN)]),
        "colon_eol": each(col[a[col + 2] == _NL]),
        "h4": each(hs[(a[hs] == _NL) & (a[hs + 2] == _HASH) & (a[hs + 3] == _HASH)
                      & (a[hs + 4] == _HASH) & (a[hs + 5] == _SPACE)]),
        "blank_line": runs(nl, 1, 2),
        "ellipsis_dots": runs(dot, 1, 3),
        "link": each(rb[a[rb + 2] == _LPAREN]),
        "table_row": each(pipe[a[pipe] == _NL]),
    }
