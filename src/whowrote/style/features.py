"""Feature extraction: ``extract(texts, feature_set)`` -> float64 matrix, with named, documented specs.

Feature sets:

- ``"research41"``: exactly the 41 features of the research spec §5.1 (see
  :mod:`whowrote.style.research41`), in the spec's order.
- ``"full"``: the research 41 plus the extended, genre-robust features of
  :mod:`whowrote.style.extended` (Unicode punctuation, structure, sentence/paragraph length
  distributions, function words, hedge/transition/intensifier lexicons, stock phrases).

Each module computes its values of one text as a ``name -> value`` dict; the matrix columns take
them in spec order, by name (``tests/style/test_features_frozen.py`` checks the names against the
specs and the values against frozen ones).

``FEATURES`` maps every feature name to its :class:`~whowrote.style.specs.FeatureSpec`
(label, one-line doc, unit, family, highlight pattern).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from whowrote.style import extended as _extended
from whowrote.style import extended_batch as _extended_batch
from whowrote.style import research41 as _r41
from whowrote.style.specs import RESEARCH41, FeatureSpec
from whowrote.types import WhowroteError

FEATURE_SETS: dict[str, tuple[FeatureSpec, ...]] = {
    "research41": RESEARCH41,
    "full": RESEARCH41 + _extended.EXTENDED,
}
FEATURES: dict[str, FeatureSpec] = {s.name: s for s in FEATURE_SETS["full"]}


def feature_names(feature_set: str = "research41") -> list[str]:
    return [s.name for s in _specs(feature_set)]


def feature_specs(feature_set: str = "research41") -> list[FeatureSpec]:
    return list(_specs(feature_set))


def _specs(feature_set: str) -> tuple[FeatureSpec, ...]:
    try:
        return FEATURE_SETS[feature_set]
    except KeyError:
        raise WhowroteError(f"unknown feature set {feature_set!r}; choose one of {sorted(FEATURE_SETS)}") from None


def values(text: str, feature_set: str = "research41") -> dict[str, float]:
    """One text's features by name, in spec order."""
    s = _r41.scan(text)
    found = _r41.research41(s)
    if feature_set == "full":
        found.update(_extended.extended(s))
    return {name: found[name] for name in feature_names(feature_set)}


def extract_one(text: str, feature_set: str = "research41") -> list[float]:
    s = _r41.scan(text)
    r41 = _r41.research41(s)
    vals = [r41[name] for name in _r41.NAMES]
    if feature_set == "full":
        vals += _extended.extended_values(s)
    return vals


BATCH_BYTES = 1 << 18  # texts are scanned in batches of about this many characters (bounded memory)


def extract(texts: Sequence[str], feature_set: str = "research41") -> np.ndarray:
    """Features of each text, shape ``(len(texts), len(feature_names(feature_set)))``, float64.

    Texts are scanned in batches (:func:`whowrote.style.research41.scan_many`): the token counts
    and word-list lookups of a batch share their numpy passes, and so do the extended values of
    its short texts (:mod:`whowrote.style.extended_batch`); every value is what
    :func:`extract_one` gives for that text alone."""
    if isinstance(texts, str):
        raise TypeError("extract() takes a sequence of texts, not one string")
    d = len(_specs(feature_set))
    out = np.empty((len(texts), d), dtype=np.float64)
    full = feature_set == "full"
    presets = (_r41.WORDS_KEYS, _extended.ALL_KEYS) if full else (_r41.WORDS_KEYS,)
    i = 0
    n41 = len(_r41.NAMES)
    for batch in _batches(texts):
        scans = _r41.scan_many(batch, presets)
        for r, s in enumerate(scans, start=i):
            r41 = _r41.research41(s)
            out[r, :n41] = [r41[name] for name in _r41.NAMES]
        if full:  # a batch's extended values at once (extended_batch): the same as one by one
            out[i:i + len(scans), n41:] = _extended_batch.extended_rows(scans)
        i += len(scans)
    return out


def _batches(texts: Sequence[str]) -> Iterator[list[str]]:
    batch, size = [], 0
    for t in texts:
        batch.append(t)
        size += len(t)
        if size >= BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch
