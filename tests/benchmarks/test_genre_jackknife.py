"""Genre-jackknife trial (benchmarks/genre_jackknife.py): the helpers the decision rule rests on."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from genre_jackknife import disagreement, fit_cache, mixtures, selective_at, texts_key  # noqa: E402


def test_selective_at_shares_ties_pro_rata() -> None:
    score = np.array([0.0, 1.0, 1.0, 1.0, 2.0])
    correct = np.array([True, True, False, False, False])
    # coverage 0.6 keeps 3 of 5: the first row, then 2 of the 3 tied rows at 1/3 accuracy each
    assert np.isclose(selective_at(score, correct, 0.6), (1 + 2 / 3) / 3)
    assert np.isclose(selective_at(score, correct, 1.0), 2 / 5)
    assert np.isclose(selective_at(np.arange(5.0), correct, 0.4), 1.0)


def test_disagreement_and_mixtures() -> None:
    full = np.array([[0.7, 0.1, 0.1, 0.1], [0.25, 0.25, 0.25, 0.25]])
    same = [full.copy() for _ in range(4)]
    tv, flip = disagreement(same, full)
    assert np.allclose(tv, 0) and np.allclose(flip, 0)
    other = np.array([[0.1, 0.7, 0.1, 0.1], [0.25, 0.25, 0.25, 0.25]])
    tv, flip = disagreement([full, full, other, other], full)
    assert np.allclose(tv, [0.3, 0.0]) and np.allclose(flip, [0.5, 0.0])
    mix = mixtures(full, [full, full, other, other])
    assert np.allclose(mix["jack"][0], [0.4, 0.4, 0.1, 0.1])
    assert np.allclose(mix["full+jack"][0], (3 * full[0] + 2 * other[0]) / 5)
    assert np.allclose(mix["full"], full)


def test_a_fit_cache_belongs_to_one_corpus_in_one_order(tmp_path: Path) -> None:
    texts = ["one text", "another text", "a third"]
    f = fit_cache(tmp_path, texts_key(texts), ("blog", "chat"), 0)
    assert f == fit_cache(tmp_path, texts_key(list(texts)), ("blog", "chat"), 0) and f.parent == tmp_path
    assert f != fit_cache(tmp_path, texts_key([texts[1], texts[0], texts[2]]), ("blog", "chat"), 0)  # another order
    assert f != fit_cache(tmp_path, texts_key(texts), ("blog",), 0) != fit_cache(tmp_path, texts_key(texts), ("blog", "chat"), 1)
    assert fit_cache(tmp_path, texts_key(texts), ("blog", "chat"), 0, "topic-").name.split("-")[2] == "topic"
