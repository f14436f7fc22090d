"""``style.literals.long_counts`` (one positions pass for the multi-byte literals of long texts)
equals ``bytes.count`` of each literal, and the features of long texts stay bit-identical to the
per-literal counting path, on real corpus texts and on adversarial runs of the literals' bytes."""

from __future__ import annotations

import random

import numpy as np
import pytest

from whowrote.style import extended, literals
from whowrote.style.edits import canonical
from whowrote.style.features import extract

NEEDLES = {"double_hyphen": b"--", "spaced_hyphen": b" - ", "bold_bullet": b"- **", "hrule": b"\n---",
           "colon_eol": b":\n", "h4": b"\n#### ", "blank_line": b"\n\n", "ellipsis_dots": b"...", "link": b"](",
           "table_row": b"\n|"}
PIECES = ["-", " ", "\n", ".", ":", "#", "*", "]", "(", "|", "a", "é", "--", " - ", "- **", "\n---", "\n#### ", "...",
          "\n\n", "\u2014", " -- "]


@pytest.fixture(scope="module")
def texts(corpus_sample) -> list[str]:
    out = corpus_sample((("blogs", 60), ("debates", 40), ("fiction", 40), ("longform", 40), ("chat", 80)))
    rng = random.Random(7)
    out += ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 3000))) for _ in range(400)]
    return out + ["", "-", "\n", " - - - ", "- - -", "#### x", "\n####", ":", "...."]


def test_long_counts_equal_bytes_count(texts):
    for t in texts:
        for form in (t, canonical(t)):
            raw = form.encode("utf-8", "surrogatepass")
            assert literals.long_counts(raw) == {k: raw.count(v) for k, v in NEEDLES.items()}, form[:200]


def test_long_texts_get_the_same_features_either_way(texts, monkeypatch):
    long = [t for t in texts if len(t.encode("utf-8", "surrogatepass")) > 1000]
    assert len(long) > 300 and sum(len(t) > literals.LONG for t in long) > 50
    for form in (long, [canonical(t) for t in long]):
        monkeypatch.setattr(extended, "LONG", 1000)  # every one of these through the positions pass
        got = extract(form, "full")
        monkeypatch.setattr(extended, "LONG", 10**12)  # none of them
        want = extract(form, "full")
        monkeypatch.undo()
        assert got.tobytes() == want.tobytes() == extract(form, "full").tobytes()
    assert np.isfinite(got).all()
