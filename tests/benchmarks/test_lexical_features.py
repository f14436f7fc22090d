"""benchmarks/lexical_features.py: the stored counts agree with the predict-path block, a fold's
vocabulary reads its training rows only, and the selection rule is the one its docstring fixes."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
lf = pytest.importorskip("lexical_features")

from lexical_terms import rates, term_counts, term_key, tokens  # noqa: E402

STEMS = ("blogs", "debates", "fiction", "longform")


@pytest.fixture(scope="module")
def sample(corpus_sample):
    texts = corpus_sample([(s, 12) for s in STEMS])
    return texts, np.repeat(np.array(STEMS, dtype=object), 12)


def lexicon(texts, terms) -> lf.Lexicon:
    arrays = lf.count_arrays(texts, terms, "raw") | lf.count_arrays(texts, terms, "copy")
    return lf.Lexicon({"terms": np.array([lf.term_name(k) for k in terms])} | arrays)


def test_block_equals_the_predict_path_rates(sample):
    texts, g = sample
    lex = lexicon(texts, lf.pruned_terms(texts, g))
    rows = np.arange(len(texts))
    cols = lex.vocabulary(rows, g, 200)
    assert len(cols) == 200
    np.testing.assert_allclose(lex.block(rows, cols), rates(texts, [lex.terms[j] for j in cols]), rtol=1e-12)


def test_a_folds_vocabulary_ignores_the_held_out_genre(sample):
    texts, g = sample
    terms = lf.pruned_terms(texts, g)
    train = np.flatnonzero(g != "fiction")
    before = lexicon(texts, terms).vocabulary(train, g, 300)
    # the held-out genre's texts replaced: the fold's vocabulary cannot change
    swapped = [t if gg != "fiction" else "zebra quokka. " * 200 for t, gg in zip(texts, g, strict=True)]
    np.testing.assert_array_equal(lexicon(swapped, terms).vocabulary(train, g, 300), before)
    # with three training genres every chosen term is in >= MIN_DF of each one's texts
    names = lexicon(texts, terms).terms
    held = [[term_counts(tokens(texts[i]))[0] for i in train[g[train] == s]] for s in ("blogs", "debates", "longform")]
    for j in before[:50]:
        assert all(np.mean([term_key(names[j]) in c for c in cs]) >= lf.MIN_DF for cs in held), names[j]


def test_rule_needs_the_margin_and_prefers_the_smaller_vocabulary():
    def inner(means):
        return {c: {"a": {"acc3": v}, "b": {"acc3": v}} for c, v in means.items()}

    assert lf.choose(inner({"base": 0.60, "third:300": 0.604, "alone:100": 0.59}))[0] == "base"
    assert lf.choose(inner({"base": 0.60, "third:300": 0.62, "alone:1000": 0.62, "concat:100": 0.61}))[0] == "third:300"
    assert lf.choose(inner({"base": 0.60, "third:1000": 0.63, "alone:100": 0.62}))[0] == "third:1000"
