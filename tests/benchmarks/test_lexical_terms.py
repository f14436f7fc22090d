"""The lexical profile (benchmarks/lexical_terms.py): counts, canonical invariance, vocabulary rule, cost."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pytest

from whowrote.style.edits import smart_quotes, to_ascii

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from lexical_terms import choose_vocabulary, rates, term_counts, term_key, tokens  # noqa: E402


def test_counts_words_pairs_and_punctuation_pairs():
    text = "The cat, and the dog. However, the end isn't near!"
    assert tokens(text) == ["the", "cat", ",", "and", "the", "dog", ".", "however", ",", "the", "end", "isn't", "near", "!"]
    c, n = term_counts(tokens(text))
    assert n == 10  # words only
    assert c["the"] == 3 and c[(",", "and")] == 1 and c[(".", "however")] == 1 and c[("the", "end")] == 1
    r = rates([text, "", "..."], ["the", ", and", ". however", "isn't near", "dog"])
    np.testing.assert_allclose(r[0], [300.0, 100.0, 100.0, 100.0, 100.0])
    assert not r[1:].any()  # no words: zeros, no division by zero


def test_term_key_rejects_malformed_terms():
    assert term_key("of the") == ("of", "the") and term_key("the") == "the"
    for bad in ("", "a  b", "a b c", " a"):
        with pytest.raises(ValueError):
            term_key(bad)


def test_typography_and_case_edits_leave_the_profile_unchanged(corpus_sample):
    texts = corpus_sample([("blogs", 5), ("debates", 5), ("fiction", 5), ("longform", 5)])
    vocab = ["the", "it's", "don't", ", and", ". the", "of the", "isn't"]
    base = rates(texts, vocab)
    assert (base[:, 0] > 0).all()  # every real text has "the"
    for edit in (to_ascii, smart_quotes, str.upper, str.lower):
        np.testing.assert_array_equal(rates([edit(t) for t in texts], vocab), base)
    # row by row equals the batch
    np.testing.assert_array_equal(np.vstack([rates([t], vocab) for t in texts[:4]]), base[:4])


def test_vocabulary_needs_three_genres_and_ranks_by_the_third_highest_rate():
    terms = ["a", "b", "c", "d"]
    df = {"g1": np.array([0.9, 0.9, 0.9, 0.01]), "g2": np.array([0.9, 0.9, 0.9, 0.9]),
          "g3": np.array([0.9, 0.01, 0.9, 0.9]), "g4": np.array([0.9, 0.9, 0.9, 0.9])}
    rate = {"g1": np.array([1.0, 50, 5, 1]), "g2": np.array([2.0, 50, 5, 100]),
            "g3": np.array([3.0, 0, 5, 100]), "g4": np.array([4.0, 50, 5, 100])}
    # d is common in g2-g4 only (still 3 genres); the third-highest rates: a 2, b 50, c 5, d 100
    assert choose_vocabulary(df, rate, terms, 10) == ["d", "b", "c", "a"]
    assert choose_vocabulary(df, rate, terms, 2) == ["d", "b"]
    three = {k: v for k, v in df.items() if k != "g4"}
    # with three genres every one must hold the term: b (g3 0.01) and d (g1 0.01) drop out
    assert choose_vocabulary(three, rate, terms, 10) == ["c", "a"]
    with pytest.raises(ValueError):
        choose_vocabulary({}, {}, terms, 3)


def test_tokenising_is_linear_time_on_adversarial_input():
    def cost(n: int) -> float:
        text = ("a'" * n) + ("'" * n) + ("x" * n) + (",." * n)
        t0 = time.perf_counter()
        rates([text], ["a", "a'a", ", ."])
        return time.perf_counter() - t0

    cost(1000)
    small, big = min(cost(20_000) for _ in range(3)), min(cost(80_000) for _ in range(3))
    assert big < 8 * small + 0.05  # 4x the input: ~4x the time, never quadratic
