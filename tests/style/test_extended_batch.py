"""The batch paths of the features count exactly what the per-text paths count.

``extended_batch.extended_rows`` (a batch's extended values at once), ``research41._vocab_counts``
(the research words from the token counts), ``literals.counts_many`` (many texts' multi-byte
literals in one pass), ``phrases.phrase_starts`` (the phrases of a batch at once) and the per-text
sorts of ``vocabs`` (batches of long texts) replaced per-text code that is still there and is run
here beside them, bit for bit, on real corpus texts of all five genres (raw and canonical, in
mixed batches) and on adversarial inputs: runs of the words, literals and phrases, words next to
digits, '_', accented letters and apostrophes, curly apostrophes inside a batch.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from whowrote.style import extended, extended_batch, literals, research41, vocab
from whowrote.style.edits import canonical
from whowrote.style.features import extract, extract_one
from whowrote.style.specs import RESEARCH_WORDS

WORDS = list(RESEARCH_WORDS)
PIECES = ["however", "Indeed", "NUANCED", "delve", "'", "'s", "3", "_", "é", "ü", "日", "\u2019", " ", " ", "\n",
          "\n\n", ".", "!", "-", "--", " - ", "*", "**", "`", "#### ", ":\n", "](", "\n|", "...", "in fact", "of course",
          "the key", "let's", "imagine", "it's not", "on the other hand", "\u2014", " \u2014 ", "x"]


@pytest.fixture(scope="module")
def texts(corpus_sample) -> list[str]:
    out = corpus_sample((("blogs", 40), ("chat", 120), ("debates", 40), ("fiction", 40), ("longform", 30)))
    rng = random.Random(11)
    out += ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 400))) for _ in range(300)]
    out += [" ".join(rng.choice(WORDS + ["x"]) for _ in range(50)) for _ in range(20)]
    out += ["", " ", "'", "however however however", "'however'", "however's 'crucial' ''indeed''", "3however however3",
            "_nuanced nuanced_ nuanced", "caféhowever howeveré é however", "in fact in fact in fact", "imagine imagine imagine",
            "x" * 7000 + " the key " * 800, "the " * 3000]
    return out


def forms(texts: list[str]) -> list[str]:
    return [f for t in texts for f in (t, canonical(t))]  # raw ones keep curly apostrophes: not batchable


def bits(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.uint64)


def test_extended_rows_equal_extended_values_text_by_text(texts):
    fs = forms(texts)
    n_batched = 0
    for a in range(0, len(fs), 97):  # mixed batches: short and long, batchable and not
        scans = research41.scan_many(fs[a:a + 97], (research41.WORDS_KEYS, extended.ALL_KEYS))
        n_batched += sum(map(extended_batch.batchable, scans))
        got = extended_batch.extended_rows(scans)
        want = [extended.extended_values(research41.scan(t)) for t in fs[a:a + 97]]
        assert (bits(got) == bits(want)).all()
    assert 300 < n_batched < len(fs)  # both paths ran


def test_extract_equals_extract_one(texts):
    fs = forms(texts)
    got = extract(fs, "full")
    assert (bits(got) == bits([extract_one(t, "full") for t in fs])).all()


def test_vocab_counts_equal_the_bytes_path(texts):
    every = list(range(len(WORDS)))
    n_nonzero = 0
    for t in forms(texts) + [w for w in WORDS] + ["'" + w + "'" for w in WORDS] + [w + "1 1" + w for w in WORDS]:
        s = research41.scan(t)
        got = research41._vocab_counts(s)
        assert got == research41._vocab_counts_bytes(s, every), t[:200]
        assert got == [len(re.findall(rf"\b{w}\b", t.lower())) for w in WORDS] or not t.isascii(), t[:200]
        n_nonzero += any(got)
    assert n_nonzero > 100


def test_counts_many_equal_bytes_count(texts):
    fs = forms(texts)
    raws = [f.encode("utf-8", "surrogatepass") for f in fs]
    got = literals.counts_many(raws)
    for name, needle in {"double_hyphen": b"--", "spaced_hyphen": b" - ", "bold_bullet": b"- **", "hrule": b"\n---",
                         "colon_eol": b":\n", "h4": b"\n#### ", "blank_line": b"\n\n", "ellipsis_dots": b"...",
                         "link": b"](", "table_row": b"\n|"}.items():
        assert got[name] == [r.count(needle) for r in raws], name
    assert literals.counts_many([]) == {name: [] for name in got}


def test_batch_vocabs_equal_one_text_vocabs(texts, monkeypatch):
    bufs = [f.encode("utf-8", "surrogatepass").translate(research41.WORD_TABLE) for f in forms(texts)]
    keys = extended.ALL_KEYS
    for per_text in (0, 10 ** 9):  # each text sorted on its own / one sort for the batch
        monkeypatch.setattr(vocab, "PER_TEXT_SORT", per_text)
        for a in range(0, len(bufs), 61):
            for v, b in zip(vocab.vocabs(bufs[a:a + 61], (keys,)), bufs[a:a + 61], strict=True):
                w = vocab.Vocab(b)
                assert (v.n, v.distinct, v.hapax) == (w.n, w.distinct, w.hapax)
                assert (v.uh == w.uh).all() and (v.counts == w.counts).all()
                assert (v.lookup(keys) == w.lookup(keys)).all()
                assert (v.apostrophe_at() == w.apostrophe_at()).all()


def test_batch_phrases_equal_phrase_counts_per_text(texts):
    scans = research41.scan_many([canonical(t) for t in texts], (research41.WORDS_KEYS, extended.ALL_KEYS))
    batches = {id(s.vocab.batch): s.vocab.batch for s in scans if s.vocab.batch is not None}
    found = {k: extended_batch._phrase_counts(b, extended_batch._word_list_counts(b, len(b.lo)), len(b.lo))
             for k, b in batches.items()}
    n_hits = 0
    assert sum(s.vocab.batch is not None for s in scans) == len(scans)
    for s in scans:
        j = s.vocab.lookup(extended.ALL_KEYS)[extended._N_FW + len(extended._LEX_WORDS):].tolist()
        live = [p for p, idx in enumerate(extended._PHRASE_IDX) if all(j[i] >= 0 for i in idx)]
        want = [0] * len(extended.PHRASES)
        counts = extended.phrase_counts(s.vocab, [[j[i] for i in extended._PHRASE_IDX[p]] for p in live]) if live else []
        for p, n in zip(live, counts, strict=True):
            want[p] = n
        assert found[id(s.vocab.batch)][s.vocab.index].tolist() == want
        n_hits += sum(want)
    assert n_hits > 50
