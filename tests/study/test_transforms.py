"""The robustness edits do what they say, on hand-made strings."""

from __future__ import annotations

from whowrote.study.transforms import (
    hard,
    lower,
    n_words,
    norm_punct,
    perturbations,
    prefix,
    sent_shuffle,
    split_sentences,
    strip_md,
    truncate_words,
)

MD = """# Title here

## A section

Some **bold** words and *italic* ones, `code`, and a [link](https://example.com).

- first bullet
* second bullet
1. numbered item

> a quote

| a | b |
|---|---|
| 1 | 2 |

---

```python
print("hi")
```

Math $x^2$ and $$y = 1$$ and \\(z\\) done."""


def test_strip_md_removes_markdown_keeps_words():
    out = strip_md(MD)
    for gone in ("#", "**", "`", "](", "https://", "- first", "* second", "1. numbered", "> a quote",
                 "|", "---", "print(", "$", "x^2", "\\("):
        assert gone not in out, gone
    for kept in ("Title here", "A section", "Some bold words and italic ones", "link", "first bullet",
                 "second bullet", "numbered item", "a quote", "Math", "done."):
        assert kept in out, kept


def test_strip_md_leaves_plain_text_alone():
    plain = "A plain sentence, with commas; and a dash-like word. Another one?"
    assert strip_md(plain) == plain


def test_norm_punct_em_dash_to_comma_and_straight_quotes():
    s = "He paused\u2014then spoke \u2014 \u201cquietly\u201d, it\u2019s said\u2026 pages 3\u20135 \u2022 \u2192 done"
    out = norm_punct(s)
    assert "\u2014" not in out and "\u201c" not in out and "\u201d" not in out and "\u2019" not in out
    assert out.startswith('He paused, then spoke, "quietly", it\'s said... pages 3-5')
    assert "\u2022" not in out and "\u2192" not in out
    assert norm_punct("**bold** # head") == "**bold** # head"  # Markdown is strip_md's job


def test_lower_and_prefix():
    assert lower("Hello World ÉTÉ") == "hello world été"
    text = "x" * 2000
    assert prefix(text) == "x" * 800
    assert prefix("short") == "short"


def test_sent_shuffle_is_a_seeded_permutation_of_sentences():
    text = " ".join(f"Sentence number {i} is here." for i in range(12))
    a, b = sent_shuffle(text, seed=0), sent_shuffle(text, seed=0)
    assert a == b  # deterministic
    assert a != text  # actually reordered (12! orders)
    assert sorted(s.strip() for s in split_sentences(a)) == sorted(s.strip() for s in split_sentences(text))
    assert sent_shuffle(text, seed=1) != a
    assert "".join(split_sentences(text)) == text


def test_hard_composes_all_edits():
    s = "## Head\n\nIt was **good**\u2014really. \u201cYes,\u201d she said. A third one!"
    out = hard(s)
    assert out == out.lower()
    assert "**" not in out and "#" not in out and "\u2014" not in out and "\u201c" not in out
    assert sorted(out.replace(",", " ").split()) == sorted(lower(norm_punct(strip_md(s))).replace(",", " ").split())


def test_perturbations_order_and_raw_identity():
    p = perturbations(0)
    assert list(p) == ["raw", "strip_md", "norm_punct", "lower", "prefix800", "sent_shuffle", "hard"]
    assert p["raw"]("Ab\u2014c") == "Ab\u2014c"


def test_truncate_words_keeps_original_prefix():
    text = "one  two\nthree, four five"
    assert truncate_words(text, 3) == "one  two\nthree,"
    assert truncate_words(text, 50) == text
    assert n_words(text) == 5
    assert text.startswith(truncate_words(text, 2))
