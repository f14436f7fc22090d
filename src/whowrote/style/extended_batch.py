"""The extended features of a batch of short texts at once, equal to :func:`extended_values` per text.

A short text's extended values cost ~100 small numpy calls and a few hundred lines of Python,
paid per call rather than per byte. The texts whose token counts :func:`whowrote.style.vocab.vocabs`
made together share those passes here: sentence and paragraph lengths come from one search of the
batch's sentence ends and paragraph breaks among its word starts, first words, long words, the
function-word and lexicon counts from one array operation each, the multi-byte literals from
one positions pass (:func:`whowrote.style.literals.counts_many`) and the stock phrases from one
vectorised match over the batch's token hashes (:func:`whowrote.style.phrases.phrase_starts`). Per text there remain its
single-byte and non-ASCII literals, two standard deviations (numpy's own summation order, so each stays a per-text
``np.add.reduce``), a median and a few scalars. Every value is what
:func:`~whowrote.style.extended.extended_values` gives for that text alone
(``tests/style/test_extended_batch.py`` compares them bit for bit).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from whowrote.style import extended as ex
from whowrote.style.literals import counts_many
from whowrote.style.phrases import phrase_starts
from whowrote.style.research41 import APOSTROPHE, Scan
from whowrote.style.vocab import VocabBatch, _hashed

_N = len(ex.NAMES)
_FW = slice(ex._N_LITERALS + len(ex.DIST_FEATURES), ex._N_LITERALS + len(ex.DIST_FEATURES) + ex._N_FW)
_N_LEX = len(ex._LEX_WORDS)
_LEX_COLS = slice(ex._N_FW, ex._N_FW + _N_LEX)  # of the ALL_KEYS lookup
_PH_COLS = ex._N_FW + _N_LEX
_LEX_AT = np.array(ex._LEX_SPANS[:-1], dtype=np.intp)
_CONJ = np.array(ex._CONJ_K, dtype=np.uint64)
_THE = np.array(ex._THE_K, dtype=np.uint64)
_CURLY_APOS = "\u2019"
# The literals by how _text_values counts them: one byte (the histogram), non-ASCII characters,
# or multi-byte (counts_many, and "emdash_spaced" split out per text).
_BYTE_LITS = tuple((i, plan[1]) for i, plan, _ in ex._DIRECT if plan[0] == "byte")
_NONASCII_LITS = tuple((i, plan[1]) for i, plan, _ in ex._DIRECT if plan[0] == "nonascii")
_COUNTED_LITS = tuple((i, name) for i, plan, name in ex._DIRECT if plan[0] == "scan") + ex._SPLIT_NAMES
assert len(_BYTE_LITS) + len(_NONASCII_LITS) + len(_COUNTED_LITS) == ex._N_LITERALS


def batchable(s: Scan) -> bool:
    """Whether :func:`extended_rows` can take this text with its batch (a text with a curly
    apostrophe has its own word list in ``extended_values``)."""
    return s.vocab.batch is not None and _CURLY_APOS not in s.nonascii


def extended_rows(scans: Sequence[Scan]) -> np.ndarray:
    """``[extended_values(s) for s in scans]`` as a ``(len(scans), len(NAMES))`` float64 array."""
    out = np.empty((len(scans), _N), dtype=np.float64)
    groups: dict[int, tuple[VocabBatch, list[int]]] = {}
    for r, s in enumerate(scans):
        if batchable(s):
            groups.setdefault(id(s.vocab.batch), (s.vocab.batch, []))[1].append(r)
        else:
            out[r] = ex.extended_values(s)
    for batch, rows in groups.values():
        _batch_rows(batch, [scans[r] for r in rows], out, rows)
    return out


def _per_text(lengths: np.ndarray, owner: np.ndarray, m: int) -> list[list[int]]:
    """``lengths`` (in text order; ``owner``: each one's text among ``m``) as one list per text."""
    counts = np.bincount(owner, minlength=m).tolist()
    flat = lengths.tolist()
    out, a = [], 0
    for c in counts:
        out.append(flat[a:a + c])
        a += c
    return out


def _segments(cuts: np.ndarray, batch: VocabBatch, m: int) -> list[list[int]]:
    """Words between consecutive ``cuts`` (token indices) within each text, empty pieces dropped
    (what ``extended._gaps`` then ``> 0`` gives per text)."""
    edges = np.sort(np.concatenate((cuts, batch.lo, batch.hi)))
    gaps = edges[1:] - edges[:-1]
    keep = (gaps > 0).nonzero()[0]
    return _per_text(gaps[keep], batch.tid[edges[keep]], m)


def _batch_rows(batch: VocabBatch, scans: list[Scan], out: np.ndarray, rows: list[int]) -> None:
    n_tok = len(batch.tid)
    m = len(batch.lo)  # texts of the whole batch (scans may be fewer: only their rows are kept)
    idx = [s.vocab.index for s in scans]
    # Each text's shape alphabet, joined by '.' (a sentence end and no paragraph break: it cuts
    # nothing that the text's own ends do not), at the offsets of the vocabs' joined buffer.
    # Texts of the batch not among scans are blanks of their length (their rows are not kept).
    raws = [b" " * n for n in batch.sizes.tolist()] if len(scans) < m else [b""] * m
    for s, i in zip(scans, idx, strict=True):
        raws[i] = s.raw
    shape = b".".join(raws).translate(ex._SHAPE_TABLE)
    starts = batch.starts
    a = np.frombuffer(shape, np.uint8)
    cut = starts.searchsorted((a == ex._SENTENCE_END).nonzero()[0])
    sents = _segments(cut, batch, m)
    bounds = np.array([mt.start() for mt in ex._PARA_SPLIT.finditer(shape)], dtype=np.int64)
    paras = _segments(starts.searchsorted(bounds), batch, m)
    is_first = np.zeros(n_tok + 1, dtype=bool)
    is_first[batch.lo] = True  # (lo of a text without words is the next one's first word, or the end)
    is_first[cut] = True
    first = is_first[:n_tok].nonzero()[0]
    fh, ft = batch.hashes[first], batch.tid[first]
    conj = np.bincount(ft[np.isin(fh, _CONJ)], minlength=m).tolist()
    the = np.bincount(ft[np.isin(fh, _THE)], minlength=m).tolist()
    long_words = np.bincount(batch.tid[batch.lens >= ex.LONG_WORD], minlength=m).tolist()
    cnt = _word_list_counts(batch, m)
    ph = _phrase_counts(batch, cnt, m)
    lit = counts_many([s.raw for s in scans])  # the multi-byte literals of every text, in one pass
    names = list(lit)
    kw_all = np.empty(m, dtype=np.float64)
    for s, i, r, found in zip(scans, idx, rows, zip(*lit.values(), strict=True), strict=True):
        split = dict(zip(names, found, strict=True))
        split["emdash_spaced"] = ex._spaced(s.raw.split(ex._EMDASH)) if ex.EM_DASH in s.nonascii else 0
        vals, kw = _text_values(s, split, sents[i], paras[i], conj[i], the[i], long_words[i])
        kw_all[i] = kw
        out[r, :len(vals)] = vals
    sel = np.array(idx, dtype=np.intp)
    kw = kw_all[sel, None]
    c = cnt[sel]
    out[rows, _FW] = c[:, :ex._N_FW] * kw
    lex = np.add.reduceat(c[:, _LEX_COLS], _LEX_AT, axis=1) if _N_LEX else c[:, :0]
    n0 = _FW.stop
    out[rows, n0:n0 + lex.shape[1]] = lex * kw
    out[rows, n0 + lex.shape[1]:] = ph[sel] * kw


def _word_list_counts(batch: VocabBatch, m: int) -> np.ndarray:
    """``(texts, len(ALL_KEYS[0]))``: each text's count of every function, lexicon and phrase word."""
    keys, j = batch.presets[id(ex.ALL_KEYS[0])]
    if not len(batch.run_count):
        return np.zeros(j.shape, dtype=np.int64)
    found = j >= 0
    at = np.where(found, batch.rlo[:, None] + j, 0)
    return np.where(found, batch.run_count[at], 0)


def _phrase_counts(batch: VocabBatch, cnt: np.ndarray, m: int) -> np.ndarray:
    """``(texts, len(PHRASES))``: each text's non-overlapping hits of each phrase."""
    out = np.zeros((m, len(ex._PHRASE_IDX)), dtype=np.int64)
    pc = cnt[:, _PH_COLS:]
    total = pc.sum(axis=0).tolist()  # each phrase word's hits in the batch (0: absent everywhere)
    _, h = _hashed(ex._PHRASE_KEYS, batch.mult)
    h = h.tolist()
    live = [p for p, ids in enumerate(ex._PHRASE_IDX) if all(total[w] for w in ids)]
    if not live:
        return out
    hashes = [[h[w] for w in ex._PHRASE_IDX[p]] for p in live]
    anchors = []
    for p in live:
        cs = [total[w] for w in ex._PHRASE_IDX[p]]
        anchors.append(cs.index(min(cs)))
    for p, st in zip(live, phrase_starts(batch.hashes, hashes, anchors, batch.tid), strict=True):
        if len(st):
            out[:, p] = np.bincount(batch.tid[st], minlength=m)
    return out


def _text_values(s: Scan, split: dict[str, int], sent: list[int], paras: list[int], conj: int, the: int,
                 long_words: int) -> tuple[list[float], float]:
    """One text's literals (``split``: the multi-byte ones' counts) and distribution values
    (NAMES order), and its 1000 / words."""
    c, na = s.counts, s.nonascii
    k = 1000.0 / s.n_char
    vals = [0.0] * ex._N_LITERALS  # (0 * k is 0.0: absent literals keep it)
    for i, byte in _BYTE_LITS:
        vals[i] = c[byte] * k
    if na:
        for i, chars in _NONASCII_LITS:
            vals[i] = sum(na.count(ch) for ch in chars) * k
    for i, name in _COUNTED_LITS:
        vals[i] = split[name] * k
    voc = s.vocab
    apos_words = len(voc.apostrophe_at()) if c[APOSTROPHE] else 0  # (no curly apostrophe: batchable)
    dist, kw = ex.distribution_values(s, voc, sent, paras, conj, the, long_words, apos_words, 0)
    return vals + dist, kw
