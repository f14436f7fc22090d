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


def _run_lengths(p: np.ndarray, step: int) -> np.ndarray:
    """Lengths of the maximal runs of ascending positions ``p`` spaced exactly ``step`` apart."""
    if not len(p):
        return p
    cut = ((p[1:] - p[:-1]) != step).nonzero()[0] + 1
    edges = np.empty(len(cut) + 2, dtype=np.int64)
    edges[0], edges[1:-1], edges[-1] = 0, cut, len(p)
    return edges[1:] - edges[:-1]


def long_counts(raw: bytes) -> dict[str, int]:
    """``raw.count`` of each literal that :func:`~whowrote.style.extended._split_counts` and the
    scanned literals count (keys: feature names; "emdash_spaced" is not among them)."""
    kept = np.frombuffer(raw.translate(_KEEP), np.uint8)
    pos = (kept != 0).nonzero()[0]  # (a bool array: nonzero() is ~3x faster than on the bytes)
    val = kept[pos]
    a = np.frombuffer(b"\0" + raw + bytes(_PAD), np.uint8)  # a[p + 1] is raw[p]; 0 outside raw

    def where(byte: int) -> np.ndarray:
        return pos[val == byte]

    hy, nl, dot = where(_HYPHEN), where(_NL), where(_DOT)
    # neighbours of each hyphen: before (a[p]), after (a[p + 2], a[p + 3], a[p + 4])
    before, after = a[hy], a[hy + 2]
    spaced = hy[(before == _SPACE) & (after == _SPACE)]
    star = a[hy + 3] == _STAR
    col, hs, rb, pipe = where(_COLON), where(_HASH), where(_RBRACKET), where(_PIPE)
    return {
        "double_hyphen": int((_run_lengths(hy, 1) // 2).sum()),
        "spaced_hyphen": int(((_run_lengths(spaced, 2) + 1) // 2).sum()),
        "bold_bullet": int(np.count_nonzero((after == _SPACE) & star & (a[hy + 4] == _STAR))),
        "hrule": int(np.count_nonzero((before == _NL) & (after == _HYPHEN) & (a[hy + 3] == _HYPHEN))),
        "colon_eol": int(np.count_nonzero(a[col + 2] == _NL)),
        "h4": int(np.count_nonzero((a[hs] == _NL) & (a[hs + 2] == _HASH) & (a[hs + 3] == _HASH)
                                   & (a[hs + 4] == _HASH) & (a[hs + 5] == _SPACE))),
        "blank_line": int((_run_lengths(nl, 1) // 2).sum()),
        "ellipsis_dots": int((_run_lengths(dot, 1) // 3).sum()),
        "link": int(np.count_nonzero(a[rb + 2] == _LPAREN)),
        "table_row": int(np.count_nonzero(a[pipe] == _NL)),
    }
