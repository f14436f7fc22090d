"""Token counts of WORD_TABLE-translated text without a Python object per token (:class:`Vocab`),
one text at a time or for a batch of texts at once (:func:`vocabs`).

A batch shares every numpy pass: the buffers are joined with a space (no token crosses it), the
tokens are found, keyed and hashed once, and each text's distinct tokens and counts come from one
sort of ``(text, token id)`` pairs (for long texts, from a sort of each text's own tokens:
:data:`PER_TEXT_SORT`); the lookups of fixed word lists (function words, lexicons) are
made for all texts with one search. Each text's :class:`Vocab` then holds views of those arrays, so
the per-text cost of a short text is a few slices instead of ~50 small numpy calls, and every count,
hash and lookup equals what ``Vocab(buf)`` gives for that text alone. Phrases are counted in
:mod:`whowrote.style.phrases`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# Token identity without a Python object per token: a token of <= 16 bytes is exactly its
# two little-endian 8-byte words (k1, k2), zero-padded (token bytes are never 0). They are
# hashed into one uint64 for sorting; equal hashes are verified against (k1, k2), so a
# collision can only switch to another multiplier pair, never change a count.
_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)
_TOP = np.uint64(1 << 63)
_MULTS = ((0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F), (0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD),
          (0x94D049BB133111EB, 0xBF58476D1CE4E5B9))
_MULT_PAIRS = tuple((np.uint64(a), np.uint64(b)) for a, b in _MULTS)


def word_keys(words: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """(k1, k2) of each word (<= 16 bytes), for :meth:`Vocab.lookup`."""
    assert all(0 < len(w) <= 16 for w in words)
    return (np.array([int.from_bytes(w[:8], "little") for w in words], dtype=np.uint64),
            np.array([int.from_bytes(w[8:16], "little") for w in words], dtype=np.uint64))


class Vocab:
    """Counts of the space-separated tokens of a WORD_TABLE-translated buffer (like a
    ``Counter`` of its ``split()``), computed with a few numpy passes."""

    batch: VocabBatch | None = None  # the batch's arrays, for a Vocab made by vocabs()
    index = 0  # this text's place in it

    def __init__(self, buf: bytes) -> None:
        n = len(buf)
        isw = np.zeros(n + 2, dtype=bool)
        isw[1:-1] = np.frombuffer(buf, np.uint8) != 32
        edges = (isw[1:] != isw[:-1]).nonzero()[0]  # word starts and ends, alternating
        starts = edges[::2]
        lens = edges[1::2] - starts
        self.n = len(starts)
        self.starts, self.lens = starts, lens  # byte offset and length of each token
        self.buf = buf
        self._apos_at: np.ndarray | None = None  # indices of the tokens holding one (vocabs() sets it)
        win = np.ndarray((n + 9,), dtype="<u8", buffer=buf + bytes(16), strides=(1,))  # 8 bytes at each offset
        keys = win[starts] & _MASKS[np.minimum(lens, 8)]  # first 8 bytes (all of a short token)
        self.long: Counter[bytes] = Counter()  # > 16 bytes (rare): kept as bytes
        short = None
        med = (lens > 8).nonzero()[0]
        if len(med) and lens[med].max() > 16:
            long = lens > 16
            self.long.update(buf[a:a + m] for a, m in zip(starts[long].tolist(), lens[long].tolist(), strict=True))
            short = (~long).nonzero()[0]
            keys = keys[short]
            med = (lens[short] > 8).nonzero()[0]
            starts, lens = starts[short], lens[short]
        # Only 9-16 byte keys are hashed: argsort just those to check that equal hashes have
        # equal keys; everything else needs only a plain sort of the hashes.
        m1 = keys[med]
        m2 = win[starts[med] + 8] & _MASKS[lens[med] - 8]
        self.mult, hm, (self.mh, self.mk1, self.mk2) = _hash_medium(m1, m2)
        h = keys
        h[med] = hm  # <= 8 bytes: the key itself (top bit clear: ASCII); 9-16: hash, top bit set
        sh = np.sort(h)
        new = np.ones(len(sh), dtype=bool)
        new[1:] = sh[1:] != sh[:-1]
        first = new.nonzero()[0]
        self.uh = sh[first]
        self.counts = _run_lengths(first, len(sh))
        self._h, self._short = h, short
        self._ids: np.ndarray | None = None
        self._hapax: int | None = None
        self._pre: dict[int, tuple[tuple, np.ndarray]] = {}  # lookups made by vocabs(), by id of the keys

    @property
    def token_hashes(self) -> np.ndarray:
        """Each token's exact hash (0 for long ones, which no key equals: tokens are non-empty)."""
        if self._ids is None:
            if self._short is None:
                self._ids = self._h
            else:
                self._ids = np.zeros(self.n, dtype=np.uint64)
                self._ids[self._short] = self._h
        return self._ids

    def apostrophe_at(self) -> np.ndarray:
        """Indices of the tokens that hold an apostrophe, ascending, once each (cached)."""
        if self._apos_at is None:
            self._apos_at = _holding(self.buf, self.starts)
        return self._apos_at

    @property
    def distinct(self) -> int:
        return len(self.uh) + len(self.long)

    @property
    def hapax(self) -> int:
        if self._hapax is None:
            self._hapax = int((self.counts == 1).sum()) + sum(1 for v in self.long.values() if v == 1)
        return self._hapax

    def lookup(self, keys: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """Distinct-entry index of each word of ``keys`` (see :func:`word_keys`), -1 if absent."""
        made = self._pre.get(id(keys[0]))
        if made is not None and made[0] is keys:
            return made[1]
        k1, k2 = keys
        if not len(self.uh):
            return np.full(len(k1), -1, dtype=np.int64)
        med, h = _hashed(keys, self.mult)
        j = np.minimum(self.uh.searchsorted(h), len(self.uh) - 1)  # (the method: no dispatch layer)
        ok = self.uh[j] == h
        if len(med):  # a hashed word must also have the keys of the tokens with its hash
            hm = h[med]
            if len(self.mh):
                i = np.minimum(self.mh.searchsorted(hm), len(self.mh) - 1)
                ok[med] &= (self.mh[i] == hm) & (self.mk1[i] == k1[med]) & (self.mk2[i] == k2[med])
            else:
                ok[med] = False
        return np.where(ok, j, -1)


_NONE = np.zeros(0, dtype=np.int64)  # no token holds an apostrophe


def _run_lengths(first: np.ndarray, total: int) -> np.ndarray:
    """``np.diff(np.append(first, total))`` (integers: exact) without the wrappers' cost."""
    out = np.empty(len(first), dtype=first.dtype)
    out[:-1] = first[1:] - first[:-1]
    out[-1:] = total - first[-1:]
    return out


def _holding(buf: bytes, starts: np.ndarray) -> np.ndarray:
    """Indices of the tokens (starting at ``starts``) that hold an apostrophe, ascending, once each."""
    ap = (np.frombuffer(buf, np.uint8) == 39).nonzero()[0]
    at = np.searchsorted(starts, ap, side="right") - 1  # ascending: ap is
    return at[np.append(True, at[1:] != at[:-1])] if len(at) else at  # = np.unique, without numpy.ma


# (id of a keys pair, multiplier pair) -> (indices of its 9-16 byte words, every word's lookup hash);
# the keys are module constants, so this holds a handful of entries.
_HASHED: dict[tuple[int, tuple], tuple[np.ndarray, np.ndarray, tuple]] = {}


def _hash_medium(m1: np.ndarray, m2: np.ndarray) -> tuple[tuple[np.uint64, np.uint64], np.ndarray,
                                                              tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Hashes of the 9-16-byte tokens (first 8 bytes ``m1``, the rest ``m2``) under the first
    multiplier pair of ``_MULTS`` with which no two different keys share a hash: (the pair, every
    token's hash, and the sorted distinct hashes with one key pair each)."""
    for mult in _MULT_PAIRS:
        hm = (m1 * mult[0] + m2 * mult[1]) | _TOP
        om = np.argsort(hm)
        shm, t1, t2 = hm[om], m1[om], m2[om]
        same = shm[1:] == shm[:-1]
        if not (same & ((t1[1:] != t1[:-1]) | (t2[1:] != t2[:-1]))).any():
            keep = np.ones(len(shm), dtype=bool)
            keep[1:] = ~same
            return mult, hm, (shm[keep], t1[keep], t2[keep])
    raise RuntimeError("token hash collided under every multiplier")  # ~2**-64 per pair


def _hashed(keys: tuple[np.ndarray, np.ndarray], mult: tuple[np.uint64, np.uint64]) -> tuple[np.ndarray, np.ndarray]:
    """What :meth:`Vocab.lookup` computes from the words alone, once per keys and multiplier."""
    key = (id(keys[0]), (int(mult[0]), int(mult[1])))
    hit = _HASHED.get(key)
    if hit is None or hit[2] is not keys:
        k1, k2 = keys
        is_med = k2 != 0
        hit = (is_med.nonzero()[0], np.where(is_med, (k1 * mult[0] + k2 * mult[1]) | _TOP, k1), keys)
        if len(_HASHED) > 64:  # callers with ad-hoc keys: stay bounded
            _HASHED.clear()
        _HASHED[key] = hit
    return hit[0], hit[1]



@dataclass
class VocabBatch:
    """The arrays :func:`vocabs` made for a whole batch (tokens in the joined buffer's order), for
    features counted over all its texts at once."""

    sizes: np.ndarray  # each text's buffer length
    starts: np.ndarray  # each token's offset in the buffers joined by one byte
    lens: np.ndarray
    hashes: np.ndarray  # each token's hash (0: longer than 16 bytes)
    tid: np.ndarray  # each token's text
    lo: np.ndarray  # text i's tokens are lo[i]:hi[i]
    hi: np.ndarray
    run_count: np.ndarray  # text i's distinct tokens' counts are run_count[rlo[i]:...]
    rlo: np.ndarray
    mult: tuple
    presets: dict  # id of a preset's k1 -> (keys, (texts, words) lookup)


def vocabs(bufs: Sequence[bytes], presets: Sequence[tuple[np.ndarray, np.ndarray]] = ()) -> list[Vocab]:
    """``[Vocab(b) for b in bufs]`` (the same tokens, counts, hashes and lookups) from numpy passes
    over all buffers at once; ``lookup(keys)`` of each of ``presets`` (:func:`word_keys` tuples,
    the same objects later passed to ``lookup``) is made for every text here."""
    n = len(bufs)
    lengths = np.array([len(b) for b in bufs], dtype=np.int64)
    off = np.zeros(n, dtype=np.int64)
    np.cumsum(lengths[:-1] + 1, out=off[1:])
    joined = b" ".join(bufs)
    size = len(joined)
    isw = np.zeros(size + 2, dtype=bool)
    isw[1:-1] = np.frombuffer(joined, np.uint8) != 32
    edges = (isw[1:] != isw[:-1]).nonzero()[0]
    starts, lens = edges[::2], edges[1::2] - edges[::2]
    lo, hi = np.searchsorted(starts, off), np.searchsorted(starts, off + lengths)
    win = np.ndarray((size + 9,), dtype="<u8", buffer=joined + bytes(16), strides=(1,))
    keys = win[starts] & _MASKS[np.minimum(lens, 8)]
    tid = np.repeat(np.arange(n, dtype=np.int64), hi - lo)  # each token's text
    longs: dict[int, Counter[bytes]] = {}
    short = None
    if len(lens) and lens.max() > 16:  # > 16 bytes (rare): kept as bytes, per text
        is_long = lens > 16
        li = is_long.nonzero()[0]
        for t, a, m in zip(tid[li].tolist(), starts[li].tolist(), lens[li].tolist(), strict=True):
            longs.setdefault(t, Counter())[joined[a:a + m]] += 1
        short = (~is_long).nonzero()[0]
    h = keys if short is None else keys[short]
    s_starts, s_lens = (starts, lens) if short is None else (starts[short], lens[short])
    med = (s_lens > 8).nonzero()[0]
    m1, m2 = h[med], win[s_starts[med] + 8] & _MASKS[s_lens[med] - 8]
    # one multiplier pair for the batch: no two keys of any text share a hash
    mult, hm, (mh, mk1, mk2) = _hash_medium(m1, m2)
    h[med] = hm
    hashes = h if short is None else np.zeros(len(starts), dtype=np.uint64)
    if short is not None:
        hashes[short] = h
    if len(h) > PER_TEXT_SORT * n:  # long texts: a sort of each beats the batch-wide search for ids
        run_hash, run_count, rlo, rhi, hapax = _sorted_per_text(h, lo, hi, short, n)
        made = [(k, _preset_per_text(k, mult, (mh, mk1, mk2), run_hash, rlo, rhi)) for k in presets]
    else:
        run_hash, run_count, rlo, rhi, hapax, made = _sorted_together(h, tid, short, n, mult, (mh, mk1, mk2), presets)
    apos = _holding(joined, starts)
    alo, ahi = np.searchsorted(apos, lo).tolist(), np.searchsorted(apos, hi).tolist()
    info = VocabBatch(lengths, starts, lens, hashes, tid, lo, hi, run_count, rlo, mult, {id(k[0]): (k, j) for k, j in made})
    out = []
    for i, (a, b, ra, rb, hp) in enumerate(zip(lo.tolist(), hi.tolist(), rlo.tolist(), rhi.tolist(),
                                                hapax.tolist(), strict=True)):
        v = Vocab.__new__(Vocab)
        v.n, v.buf, v.long = b - a, bufs[i], longs.get(i, Counter())
        v.starts, v.lens = starts[a:b] - off[i], lens[a:b]
        v.mult, v.mh, v.mk1, v.mk2 = mult, mh, mk1, mk2
        v.uh, v.counts = run_hash[ra:rb], run_count[ra:rb]
        v._h, v._short, v._ids = hashes[a:b], None, None
        v._hapax = hp + (sum(1 for c in v.long.values() if c == 1) if v.long else 0)
        v._pre = {id(k[0]): (k, j[i]) for k, j in made}
        if alo[i] == ahi[i]:
            v._apos_at = _NONE
        else:
            v._apos_at = apos[alo[i]:ahi[i]] - a
        v.batch, v.index = info, i
        out.append(v)
    return out


PER_TEXT_SORT = 1000  # tokens per text above which vocabs() sorts each text's tokens on its own


def _sorted_together(h, tid, short, n, mult, med_keys, presets):
    """Each text's distinct token hashes and counts from one sort of text * G + id, where id is
    the token's place among the batch's distinct hashes; and the presets' lookups."""
    hs = np.sort(h)
    new = np.ones(len(hs), dtype=bool)
    new[1:] = hs[1:] != hs[:-1]
    distinct = hs[new]
    g = len(distinct)
    gid = distinct.searchsorted(h)  # (a sort and a search beat an argsort)
    pair = np.sort((tid if short is None else tid[short]) * g + gid)
    first = np.ones(len(pair), dtype=bool)
    first[1:] = pair[1:] != pair[:-1]
    at = first.nonzero()[0]
    run = pair[at]  # (text, distinct token) pairs, ascending
    run_count = _run_lengths(at, len(pair))
    run_hash = distinct[run % g] if g else distinct
    texts = np.arange(n + 1, dtype=np.int64) * g
    rlo = np.searchsorted(run, texts[:-1])
    rhi = np.searchsorted(run, texts[1:])
    hapax = np.bincount(run[run_count == 1] // g, minlength=n) if g else np.zeros(n, dtype=np.int64)
    made = [(k, _preset(k, mult, med_keys, distinct, run, rlo, n)) for k in presets]
    return run_hash, run_count, rlo, rhi, hapax, made


def _sorted_per_text(h, lo, hi, short, n):
    """Each text's distinct token hashes and counts, as ``Vocab`` sorts them, one text at a time."""
    if short is not None:  # h holds the short tokens only
        lo, hi = np.searchsorted(short, lo), np.searchsorted(short, hi)
    uhs, cnts = [], []
    for a, b in zip(lo.tolist(), hi.tolist(), strict=True):
        sh = np.sort(h[a:b])
        new = np.ones(len(sh), dtype=bool)
        new[1:] = sh[1:] != sh[:-1]
        first = new.nonzero()[0]
        uhs.append(sh[first])
        cnts.append(_run_lengths(first, len(sh)))
    sizes = np.array([len(u) for u in uhs], dtype=np.int64)
    rhi = np.cumsum(sizes)
    rlo = rhi - sizes
    run_count = np.concatenate(cnts) if cnts else np.zeros(0, dtype=np.int64)
    owner = np.repeat(np.arange(n, dtype=np.int64), sizes)
    hapax = np.bincount(owner[run_count == 1], minlength=n)
    return (np.concatenate(uhs) if uhs else np.zeros(0, dtype=np.uint64)), run_count, rlo, rhi, hapax


def _preset_per_text(keys, mult, med_keys, run_hash, rlo, rhi) -> np.ndarray:
    """``(n, words)``: each text's :meth:`Vocab.lookup` of ``keys``, one text at a time."""
    med, h = _hashed(keys, mult)
    ok = _medium_ok(keys, med, h, med_keys)
    out = np.full((len(rlo), len(h)), -1, dtype=np.int64)
    for t, (a, b) in enumerate(zip(rlo.tolist(), rhi.tolist(), strict=True)):
        if a < b:
            uh = run_hash[a:b]
            j = np.minimum(uh.searchsorted(h), b - a - 1)
            out[t] = np.where((uh[j] == h) & ok, j, -1)
    return out


def _medium_ok(keys, med, h, med_keys) -> np.ndarray:
    """False for each hashed (9-16 byte) word whose hash no batch token with its keys has."""
    mh, mk1, mk2 = med_keys
    ok = np.ones(len(h), dtype=bool)
    if len(med):
        hm = h[med]
        if len(mh):
            i = np.minimum(np.searchsorted(mh, hm), len(mh) - 1)
            ok[med] = (mh[i] == hm) & (mk1[i] == keys[0][med]) & (mk2[i] == keys[1][med])
        else:
            ok[med] = False
    return ok


def _preset(keys, mult, med_keys, distinct, run, rlo, n) -> np.ndarray:
    """``(n, words)``: each text's :meth:`Vocab.lookup` of ``keys``, from the batch's arrays."""
    med, h = _hashed(keys, mult)
    ok = _medium_ok(keys, med, h, med_keys)
    g = len(distinct)
    if not g or not len(run):
        return np.full((n, len(h)), -1, dtype=np.int64)
    gid = np.minimum(np.searchsorted(distinct, h), g - 1)
    ok &= distinct[gid] == h
    q = np.arange(n, dtype=np.int64)[:, None] * g + gid[None, :]
    pos = np.searchsorted(run, q)
    found = ok[None, :] & (run[np.minimum(pos, len(run) - 1)] == q)
    return np.where(found, pos - rlo[:, None], -1)
