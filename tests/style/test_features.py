"""Features: hand-made strings with known counts, and the research 41 against a literal reference."""

from __future__ import annotations

import itertools
import random
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from whowrote.style import FEATURES, extract, feature_names
from whowrote.style.specs import RESEARCH41

sys.path.insert(0, str(Path(__file__).parent))
from reference41 import reference41  # noqa: E402

R41 = feature_names("research41")


def one(text: str, feature_set: str = "research41") -> dict[str, float]:
    return dict(zip(feature_names(feature_set), extract([text], feature_set)[0], strict=True))


def test_names_and_specs():
    assert len(R41) == 41 and [s.name for s in RESEARCH41] == R41
    assert R41[:3] == ["avg_sent_len_words", "avg_word_len", "type_token_ratio"]
    assert R41[-2:] == ["digit_ratio", "upper_ratio"]
    full = feature_names("full")
    assert full[:41] == R41 and len(full) == len(set(full)) > 150
    for name in full:
        spec = FEATURES[name]
        assert spec.label and spec.doc and spec.unit


def test_punctuation_per_1k_chars():
    text = "a, b; c: d\u2014e? f! (g) \"h\"" + "x" * 976  # exactly 1000 characters
    assert len(text) == 1000
    f = one(text)
    assert (f["punc_comma"], f["punc_semicolon"], f["punc_colon"], f["punc_emdash"]) == (1, 1, 1, 1)
    assert (f["punc_question"], f["punc_exclaim"], f["punc_paren"], f["punc_dquote"]) == (1, 1, 1, 2)


def test_markdown_structure():
    text = "# T\n## A\n### B\n#### C\n- x\n  * y\n1. one\n 22. two\n> q\n**b** ``` |a|b|\n"
    f = one(text)
    k = 1000 / len(text)
    assert f["md_h1"] == pytest.approx(k) and f["md_h2_h3"] == pytest.approx(2 * k)
    assert f["md_bullet"] == pytest.approx(2 * k) and f["md_numbered"] == pytest.approx(2 * k)
    assert f["md_blockquote"] == pytest.approx(k) and f["md_bold"] == pytest.approx(2 * k)
    assert f["md_code"] == pytest.approx(k) and f["md_table"] == pytest.approx(3 * k)


def test_latex_ascii_art_and_voice():
    text = "$x$ \\(a\\) \\frac{1}{2} +==+ \u2500\u2502 I think we and We, WE; I'm"
    f = one(text)
    k = 1000 / len(text)
    assert f["latex"] == pytest.approx(4 * k)  # two $, one \(, one \frac
    assert f["ascii_art"] == pytest.approx(3 * k)  # "+==+" and two box-drawing characters
    assert f["first_person_I"] == pytest.approx(2 * k) and f["first_person_we"] == pytest.approx(2 * k)


def test_words_sentences_and_vocabulary():
    text = "However, it is crucial. HOWEVER it's crucially nuanced! Indeed however's"
    f = one(text)
    # words: However it is crucial HOWEVER it's crucially nuanced Indeed however's = 10
    assert f["avg_sent_len_words"] == pytest.approx(10 / 3)
    assert f["w_however"] == pytest.approx(3 * 100)  # "however's" counts: \b before the apostrophe
    assert f["w_crucial"] == pytest.approx(100) and f["w_nuanced"] == pytest.approx(100)
    assert f["type_token_ratio"] == pytest.approx(9 / 10)


def test_character_ratios_and_empty_text():
    f = one("AB12cd")
    assert f["digit_ratio"] == pytest.approx(2 / 6) and f["upper_ratio"] == pytest.approx(2 / 6)
    empty = extract(["", "   \n"], "full")
    assert empty.shape == (2, len(feature_names("full"))) and np.isfinite(empty).all()


def test_rich_families():
    text = ("\u201cYes,\u201d she said\u2026 It\u2019s fine -- really. Perhaps the key is this: "
            "additionally, it's truly vibrant.\n\n- **Bold** lead\n\nShort one.")
    f = one(text, "full")
    k = 1000 / len(text)
    assert f["curly_dquote"] == pytest.approx(2 * k) and f["ellipsis_char"] == pytest.approx(k)
    assert f["double_hyphen"] == pytest.approx(k) and f["bold_bullet"] == pytest.approx(k)
    assert f["curly_apostrophe_share"] == pytest.approx(0.5)  # one ’ and one '
    assert f["lex_hedges"] > 0 and f["lex_transitions"] > 0 and f["lex_intensifiers"] > 0
    assert f["lex_ai_register"] > 0 and f["ph_the_key"] > 0 and f["fw_the"] > 0
    assert f["para_per_1k_words"] > 0 and f["sent_len_std"] > 0


def test_extract_rejects_a_bare_string():
    with pytest.raises(TypeError):
        extract("just one string")


def test_research41_equals_literal_reference_on_real_rows(corpus):
    rng = random.Random(0)
    rows = []
    for genre in sorted(corpus["genre"].unique()):
        texts = corpus.loc[corpus["genre"] == genre, "text"].tolist()
        rows += rng.sample(texts, min(40, len(texts)))
    got = extract(rows, "research41")
    want = np.array([reference41(t) for t in rows])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_vocabulary_words_repeated_in_a_row_count_every_repeat(corpus):
    """A repetition loop ("however however however however", as degenerate decoding writes) in
    real texts: every repeat counts, as the literal \\b regex counts it (the old byte count
    found 3 of 4 and 5 of 6). The corpus itself has no such run, so the runs are spliced into
    real rows at the word's first use; one row has accented letters (the per-hit path)."""
    rng = random.Random(3)
    rows = []
    for genre in sorted(corpus["genre"].unique()):
        texts = corpus.loc[corpus["genre"] == genre, "text"].tolist()
        rows += [t for t in rng.sample(texts, min(60, len(texts))) if re.search(r"\b(?:however|indeed)\b", t)][:3]
    rows.append("Caf\u00e9 na\u00efve: " + rows[0])
    looped, want_k = [], []
    for t, k in zip(rows, itertools.cycle((4, 6, 5, 8)), strict=False):
        m = re.search(r"\b(however|indeed)\b", t)
        sep = "-" if len(looped) % 3 == 2 else " "
        looped.append(t[:m.start()] + sep.join([m.group(1)] * k) + t[m.end():])
        want_k.append((m.group(1), k))
    got = extract(looped, "research41")
    want = np.array([reference41(t) for t in looped])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    before = np.array([reference41(t) for t in rows])
    for i, (word, k) in enumerate(want_k):
        j = R41.index(f"w_{word}")
        n_words = len(re.findall(r"[A-Za-z']+", looped[i]))
        assert round((got[i, j] * n_words - before[i, j] * (n_words - k + 1)) / 1000) == k - 1
    # the batch path (one shared vocabulary pass) gives the same bits as one text at a time
    assert np.array_equal(extract(looped, "full"), np.vstack([extract([t], "full") for t in looped]))


def test_research41_values_are_sane_on_real_rows(corpus):
    blogs = corpus[corpus["genre"] == "blog"]
    X = extract(blogs["text"].tolist(), "research41")
    f = {n: X[:, i] for i, n in enumerate(R41)}
    assert 10 < np.median(f["avg_sent_len_words"]) < 35
    assert 4 < np.median(f["avg_word_len"]) < 7
    assert 0.15 < np.median(f["type_token_ratio"]) < 0.7
    claude = (blogs["provider"] == "CLAUDE").to_numpy()
    # The research spec's strongest tell: CLAUDE blogs use far more em-dashes than CHATGPT ones.
    assert f["punc_emdash"][claude].mean() > 5 * f["punc_emdash"][~claude].mean()
