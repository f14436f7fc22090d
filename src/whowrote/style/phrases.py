"""Stock phrases (sequences of <= 4 tokens) counted in token hashes, as ``bytes.count`` counts them.

A phrase's hits are what ``bytes.count`` finds of b" w1 w2 " in b" " + b" ".join(tokens) + b" ":
left to right and non-overlapping, and a hit uses up the space after it, so the next hit must
start one token after its end. :func:`phrase_counts` counts them in one text's
:class:`~whowrote.style.vocab.Vocab` (a few anchor positions, checked in Python);
:func:`phrase_starts` finds them in a whole batch's tokens at once (vectorised).
"""

from __future__ import annotations

import numpy as np

from whowrote.style.vocab import Vocab

_ZERO3 = np.zeros(3, dtype=np.uint64)  # padding: 0 is no token's key
_NEAR = np.arange(7)  # the 3 tokens either side of a phrase anchor, in the padded keys


def phrase_counts(voc: Vocab, phrases: list[list[int]]) -> list[int]:
    """Non-overlapping occurrences of each token sequence (distinct-entry indices, <= 4
    words), as ``bytes.count`` finds b" w1 w2 " in b" " + b" ".join(tokens) + b" ": a hit
    uses up the space after it, so the next hit must start one token after its end.

    Each phrase is anchored on its rarest word; one vectorised pass finds every anchor
    position and the keys of the 3 tokens either side, checked in Python (few)."""
    n, th = voc.n, voc.token_hashes
    used = sorted({i for ids in phrases for i in ids})  # the phrases' words: their counts and keys only
    cnt = dict(zip(used, voc.counts[used].tolist(), strict=True))
    key = dict(zip(used, voc.uh[used].tolist(), strict=True))
    anchors = []
    for ids in phrases:
        cs = [cnt[i] for i in ids]
        anchors.append(cs.index(min(cs)))
    # One pass for all anchors: == per anchor value (a few) beats searchsorted/isin here.
    hv = voc.uh[sorted({ids[a] for ids, a in zip(phrases, anchors, strict=True)})]
    mask = th == hv[0]
    for h in hv[1:]:
        mask |= th == h
    pos = mask.nonzero()[0]
    padded = np.concatenate((_ZERO3, th, _ZERO3))  # no clipping needed near the ends
    found: dict[int, list[tuple[int, list[int]]]] = {}
    for q, row in zip(pos.tolist(), padded[pos[:, None] + _NEAR].tolist(), strict=True):
        found.setdefault(row[3], []).append((q, row))  # row[3] is the anchor's own key
    out = []
    for ids, a in zip(phrases, anchors, strict=True):
        m, hs = len(ids), [key[i] for i in ids]
        hits, nxt = 0, 0
        for q, row in found.get(hs[a], ()):
            p = q - a  # phrase start; positions ascend, as bytes.count scans
            if 0 <= p <= n - m and p >= nxt and all(row[3 + k - a] == hs[k] for k in range(m)):
                hits, nxt = hits + 1, p + m + 1
        out.append(hits)
    return out


_PAD = 3  # zero keys either side of the token hashes: a phrase of <= 4 words read around its anchor stays inside


def phrase_starts(th: np.ndarray, phrases: list[list[int]], anchors: list[int],
                  tid: np.ndarray) -> list[np.ndarray]:
    """Where each phrase (its words' hashes, <= 4, never 0) starts among the token hashes ``th``
    of several texts (``tid``: each token's text), left to right and non-overlapping within a
    text as :func:`phrase_counts` counts: a hit uses up the token after it.

    The positions of every anchor word (``anchors``: which word of each phrase) are found in one
    pass, the 3 tokens either side of each compared with every phrase at once; only phrases
    found twice too close together in one text (rare) are replayed one hit at a time."""
    n_ph = len(phrases)
    width = 2 * _PAD + 1
    want = np.zeros((n_ph, width), dtype=np.uint64)  # each phrase's words around its anchor (slot _PAD)
    need = np.zeros((n_ph, width), dtype=bool)
    for p, (hs, a) in enumerate(zip(phrases, anchors, strict=True)):
        for k, h in enumerate(hs):
            want[p, _PAD + k - a], need[p, _PAD + k - a] = h, True
    uniq = sorted(set(want[:, _PAD].tolist()))
    mask = th == uniq[0]
    for h in uniq[1:]:
        mask |= th == h
    pos = mask.nonzero()[0]
    padded = np.zeros(len(th) + 2 * _PAD, dtype=np.uint64)
    padded[_PAD:len(padded) - _PAD] = th  # 0 is no phrase word's hash: reading past an end never matches
    rows = padded[pos[:, None] + np.arange(width)]  # the tokens around each anchor position
    hit = ((rows[:, None, :] == want[None]) | ~need[None]).all(axis=2)  # (position, phrase)
    at, ph = hit.nonzero()
    lens = np.array([len(hs) for hs in phrases], dtype=np.int64)
    starts = pos[at] - np.array(anchors, dtype=np.int64)[ph]
    ok = tid[starts] == tid[starts + lens[ph] - 1]  # all words in one text
    starts, ph = starts[ok], ph[ok]
    order = np.lexsort((starts, ph))
    starts, ph = starts[order], ph[order]
    cuts = np.searchsorted(ph, np.arange(n_ph + 1)).tolist()
    out = []
    for p in range(n_ph):
        st = starts[cuts[p]:cuts[p + 1]]
        if len(st) > 1:
            close = (st[1:] - st[:-1] <= lens[p]) & (tid[st[1:]] == tid[st[:-1]])
            if close.any():
                st = _greedy(st, int(lens[p]), tid)
        out.append(st)
    return out


def _greedy(st: np.ndarray, m: int, tid: np.ndarray) -> np.ndarray:
    """The hits ``st`` (ascending) that ``bytes.count`` keeps: each at least ``m + 1`` tokens
    after the last kept one of its text."""
    kept, nxt, text = [], 0, -1
    for q, t in zip(st.tolist(), tid[st].tolist(), strict=True):
        if t != text:
            text, nxt = t, 0
        if q >= nxt:
            kept.append(q)
            nxt = q + m + 1
    return np.array(kept, dtype=np.int64)
