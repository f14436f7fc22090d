"""The tells' per-model constants made once (``explain._norm_log``: the norms' logs, cached by
value; ``explain._rounded_norms``: the norms rounded per feature) give what computing them for
every tell gave: the same sentences (or none) for real feature values against every pair of
classes' norms, and the same rounded norms."""

from __future__ import annotations

import numpy as np
import pytest

from whowrote.style import explain, load_model


@pytest.fixture(scope="module")
def model():
    return load_model()


@pytest.fixture(scope="module")
def X(model, corpus_sample) -> np.ndarray:
    texts = corpus_sample((stem, 8) for stem in ("chat", "blogs", "debates", "fiction", "longform"))
    return model.features(texts + ["", "x"])


def test_sentences_with_the_cached_norm_logs_are_the_direct_ones(model, X):
    norms, classes = model.norms_, [str(c) for c in model.classes_]
    calls = [("label", x[j], "unit", classes[t], norms[t, j], classes[v], norms[v, j])
             for x in X for j in range(X.shape[1]) for t in range(len(classes)) for v in range(len(classes)) if t != v]
    got = [explain.sentence(*args) for args in calls]
    with pytest.MonkeyPatch.context() as mp:  # the same sentences with every norm's log computed anew
        mp.setattr(explain, "_norm_log", explain._signed_log)
        direct = [explain.sentence(*args) for args in calls]
    assert got == direct
    assert sum(g is not None for g in got) > 1000  # every branch of the test ran on real values
    for t in [0.0, -0.0, 1e-300, -2.5, float("inf")]:
        assert explain._norm_log(t) == float(np.sign(t) * np.log1p(abs(t)))


def test_rounded_norms_are_each_norm_rounded(model):
    classes = tuple(str(c) for c in model.classes_)
    got = explain._rounded_norms(model.norms_, classes)
    assert got is explain._rounded_norms(model.norms_, classes)  # made once
    for j in range(model.norms_.shape[1]):
        assert got[j] == {c: round(float(model.norms_[q, j]), 4) for q, c in enumerate(classes)}
    other = model.norms_.copy()
    other[0, 0] += 1.0
    assert explain._rounded_norms(other, classes)[0][classes[0]] == round(float(other[0, 0]), 4)
