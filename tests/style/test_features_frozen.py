"""Feature values are frozen: bit for bit what main@862f8a8 computed on 20 real corpus texts
(re-frozen with ``refreeze_features.py`` after research41's vocabulary run fix: no value moved).

Another part calibrates on cached feature matrices, so a speed-up must not move a single bit.
``data/frozen_features.json`` holds, per text (corpus file and row id; the texts are read from the
shared corpus at run time), ``extract([text], "full")`` of the raw text and of its canonical form
(what the model reads), as little-endian float64 in base64. A deliberate change to a feature
must re-freeze them and say so.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest

from whowrote.style import extended, extract, feature_names, research41
from whowrote.style.edits import canonical
from whowrote.style.features import FEATURE_SETS, values
from whowrote.style.specs import RESEARCH41

FROZEN = json.loads((Path(__file__).parent / "data" / "frozen_features.json").read_text())["rows"]
NAMES = feature_names("full")


@pytest.fixture(scope="module")
def frozen_texts(corpus_files) -> list[tuple[dict, str]]:
    corpus_dir = next(iter(corpus_files.values())).parent
    wanted: dict[str, set[str]] = {}
    for row in FROZEN:
        wanted.setdefault(row["corpus"], set()).add(row["id"])
    found: dict[tuple[str, str], str] = {}
    for stem, ids in wanted.items():
        with open(corpus_dir / f"{stem}.jsonl", encoding="utf-8") as f:
            for line in f:
                rec = json.loads(line)
                if rec.get("id") in ids:
                    found[stem, rec["id"]] = rec.get("text") or rec.get("content") or ""
    missing = [(r["corpus"], r["id"]) for r in FROZEN if (r["corpus"], r["id"]) not in found]
    assert not missing, f"frozen rows not in the corpus: {missing}"
    return [(r, found[r["corpus"], r["id"]]) for r in FROZEN]


def _decode(b64: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(b64), dtype="<f8")


def _differences(want: np.ndarray, got: np.ndarray) -> list[str]:
    return [f"{NAMES[j]}: {want[j]!r} -> {got[j]!r}" for j in np.flatnonzero(want.view("<u8") != got.view("<u8"))]


def test_the_sample_covers_every_genre_and_unicode(frozen_texts):
    assert len(frozen_texts) == 20 and len({r["corpus"] for r, _ in frozen_texts}) == 5
    assert any(not t.isascii() for _, t in frozen_texts) and any("**" in t for _, t in frozen_texts)


def test_features_are_bit_identical_to_the_frozen_values(frozen_texts):
    texts = [t for _, t in frozen_texts]
    for form, rows in (("full", texts), ("canonical_full", [canonical(t) for t in texts])):
        X = extract(rows, "full")
        for (row, _), got in zip(frozen_texts, X, strict=True):
            want = _decode(row[form])
            assert want.shape == got.shape
            assert not _differences(want, got), (form, row["corpus"], row["id"], _differences(want, got)[:10])


def test_name_value_pairs_match_the_specs_one_to_one(frozen_texts):
    """Each module's name -> value pairs carry exactly its specs' names, in the specs' order, and the
    matrix columns are those values by name."""
    assert [s.name for s in FEATURE_SETS["full"]] == NAMES
    assert tuple(s.name for s in RESEARCH41) == research41.NAMES
    assert tuple(s.name for s in extended.EXTENDED) == extended.NAMES
    for _, text in frozen_texts[::4]:
        s = research41.scan(text)
        r41, ext = research41.research41(s), extended.extended(s)
        assert tuple(r41) == research41.NAMES and tuple(ext) == extended.NAMES
        by_name = values(text, "full")
        assert list(by_name) == NAMES
        assert np.array_equal(np.array(list(by_name.values())), extract([text], "full")[0])
        assert list(values(text)) == NAMES[:41]
