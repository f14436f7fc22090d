"""Exact and near-duplicate detection, vectorised with numpy (no datasketch needed).

- **Exact**: texts equal after lower-casing and keeping only word characters (so whitespace,
  punctuation and Markdown differences do not hide a copy), hashed with BLAKE2b.
- **Near**: each text becomes the set of its word 5-gram shingles, each shingle a 64-bit hash.
  Candidates come from bottom-k sketches (the ``k`` smallest shingle hashes of each text: texts
  that share many shingles share many of their smallest ones); every candidate pair sharing at
  least ``min_shared`` sketch values is then verified with the *exact* Jaccard similarity and
  containment of the full shingle sets. A pair is a near-duplicate when Jaccard >= 0.5 or
  containment (shared / smaller set) >= 0.8, i.e. half of all 5-grams in common, or the smaller
  text mostly copied into the larger. Texts with fewer than ``min_shingles`` shingles are skipped.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import pandas as pd

SHINGLE = 5
JACCARD = 0.5
CONTAINMENT = 0.8
SKETCH = 128
CHUNK = 2000
# Only the first part of a huge text is shingled: enough to recognise a copy, bounded in time.
MAX_CHARS = 200_000
_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class NearPair:
    """Positions ``a < b`` of two texts and how much of their 5-grams they share."""

    a: int
    b: int
    jaccard: float
    containment: float


def _digest(words: list[str]) -> str:
    """The exact-duplicate key: a hash of the word tokens (case, whitespace, punctuation and
    Markdown markup ignored)."""
    return hashlib.blake2b(" ".join(words).encode("utf-8"), digest_size=12).hexdigest()


def tokenise(texts: Sequence[str]) -> list[list[str]]:
    """Lower-cased word tokens of each text (the first ``MAX_CHARS`` characters)."""
    return [_WORD.findall(t[:MAX_CHARS].lower()) for t in texts]


def exact_duplicate_groups(texts: Sequence[str]) -> list[list[int]]:
    """Groups (positions, ascending) of texts equal up to case, whitespace, punctuation and
    markup; size >= 2. The first half of :func:`scan`."""
    return scan(texts, near=False)[0]


def near_duplicate_pairs(texts: Sequence[str], **kwargs) -> list[NearPair]:
    """Every pair of texts that are near-duplicates (see the module docstring), sorted.
    Keyword arguments are those of :func:`scan`."""
    return scan(texts, **kwargs)[1]


def scan(
    texts: Sequence[str],
    near: bool = True,
    jaccard: float = JACCARD,
    containment: float = CONTAINMENT,
    sketch: int = SKETCH,
    min_shared: int = 2,
    min_shingles: int = 20,
) -> tuple[list[list[int]], list[NearPair]]:
    """Exact-duplicate groups and near-duplicate pairs in one tokenising pass.

    Texts are processed in chunks (word hashes are deterministic, so chunks agree), which keeps
    memory near the size of the shingle arrays even for corpora of hundreds of megabytes.
    Near-duplicates are looked for among the first copies of exact duplicates only; pairs that
    are exact duplicates are not repeated among the near ones.
    """
    exact: list[str] = []
    seen: set[str] = set()
    docs, hashes = [], []
    for start in range(0, len(texts), CHUNK):
        words = tokenise(texts[start:start + CHUNK])
        digests = [_digest(w) for w in words]
        exact.extend(digests)
        if not near:
            continue
        # Only the first copy of an exact duplicate is shingled: its copies are already paired.
        first = [i for i, d in enumerate(digests) if not (d in seen or seen.add(d))]
        if first:
            doc, h = _shingles([words[i] for i in first])
            docs.append(np.asarray(first, dtype=np.int64)[doc] + start)
            hashes.append(h)
    groups = _groups(exact)
    if not near or not hashes:
        return groups, []
    doc, h = np.concatenate(docs), np.concatenate(hashes)
    if h.size == 0:
        return groups, []
    # One sort of packed (text, hash) keys: the text in the high bits, the hash below it.
    doc_bits = max(1, int(len(texts)).bit_length())
    low = np.uint64(64 - doc_bits)
    keys = np.sort((doc.astype(np.uint64) << low) | (h >> np.uint64(doc_bits)))
    keys = keys[np.r_[True, keys[1:] != keys[:-1]]]  # np.unique hashes: slower here
    doc, h = (keys >> low).astype(np.int64), keys & ((np.uint64(1) << low) - np.uint64(1))
    del keys
    starts = np.searchsorted(doc, np.arange(len(texts) + 1))
    sizes = np.diff(starts)
    rank = np.arange(doc.size) - starts[doc]
    in_sketch = (rank < sketch) & (sizes[doc] >= min_shingles)
    found = []
    for a, b in _candidate_pairs(doc[in_sketch], h[in_sketch], min_shared):
        if exact[a] == exact[b]:
            continue
        sa, sb = h[starts[a]:starts[a + 1]], h[starts[b]:starts[b + 1]]
        inter = np.intersect1d(sa, sb, assume_unique=True).size
        jac = inter / (sa.size + sb.size - inter)
        con = inter / min(sa.size, sb.size)
        if jac >= jaccard or con >= containment:
            found.append(NearPair(int(a), int(b), round(float(jac), 3), round(float(con), 3)))
    return groups, found


def _groups(hashes: list[str]) -> list[list[int]]:
    series = pd.Series(hashes, dtype=object)
    return sorted(sorted(ix.tolist()) for ix in series.groupby(series).indices.values() if len(ix) > 1)


def _shingles(words: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    """(text position in ``words``, 64-bit hash) of every word 5-gram of every text."""
    lengths = np.fromiter((len(w) for w in words), dtype=np.int64, count=len(words))
    flat = np.fromiter(chain.from_iterable(words), dtype=object, count=int(lengths.sum()))
    n = flat.size - SHINGLE + 1
    if n <= 0:
        return np.empty(0, np.int64), np.empty(0, np.uint64)
    ids = pd.util.hash_array(flat)  # deterministic 64-bit word hashes (same in every chunk)
    doc = np.repeat(np.arange(len(words)), lengths)
    with np.errstate(over="ignore"):
        h = ids[:n].copy()
        for j in range(1, SHINGLE):  # order-sensitive polynomial of the 5 word hashes
            h = h * np.uint64(0x100000001B3) + ids[j:j + n]
    same_doc = doc[:n] == doc[SHINGLE - 1:]
    return doc[:n][same_doc], _mix(h[same_doc])


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: a cheap, well-spread 64-bit hash of 64-bit integers."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9) & _MASK
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB) & _MASK
        return x ^ (x >> np.uint64(31))


def _candidate_pairs(doc: np.ndarray, hashes: np.ndarray, min_shared: int,
                     max_bucket: int = 200) -> list[tuple[int, int]]:
    """Pairs of texts whose sketches share at least ``min_shared`` hash values.

    A value shared by more than ``max_bucket`` texts is boilerplate (a stock phrase) and is
    ignored; exact copies are found by the exact hash anyway.
    """
    if doc.size == 0:
        return []
    order = np.argsort(hashes, kind="stable")
    doc, hashes = doc[order], hashes[order]
    bounds = np.flatnonzero(np.r_[True, hashes[1:] != hashes[:-1], True])
    codes: list[np.ndarray] = []
    n_docs = int(doc.max()) + 1
    sizes = np.diff(bounds)
    pairs = bounds[:-1][sizes == 2]  # most shared values join exactly two texts: vectorised
    codes.append(_pair_codes(doc[pairs], doc[pairs + 1], n_docs))
    chosen = np.flatnonzero((sizes > 2) & (sizes <= max_bucket))
    for lo, hi in zip(bounds[chosen].tolist(), bounds[chosen + 1].tolist(), strict=True):
        members = doc[lo:hi]  # distinct: each text's sketch values are unique
        a, b = np.triu_indices(members.size, k=1)
        codes.append(_pair_codes(members[a], members[b], n_docs))
    code = np.sort(np.concatenate(codes))
    if code.size == 0:
        return []
    starts = np.flatnonzero(np.r_[True, code[1:] != code[:-1]])
    count = np.diff(np.r_[starts, code.size])
    code = code[starts][count >= min_shared]
    return list(zip((code // n_docs).tolist(), (code % n_docs).tolist(), strict=True))


def _pair_codes(a: np.ndarray, b: np.ndarray, n_docs: int) -> np.ndarray:
    """One integer per unordered pair of text positions."""
    return np.minimum(a, b).astype(np.int64) * n_docs + np.maximum(a, b)
