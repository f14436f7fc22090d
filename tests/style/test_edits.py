"""The everyday edits do what they say, the canonical form undoes typography, case and layout exactly,
and every regex over user text stays linear on adversarial input."""

from __future__ import annotations

import time

import pytest

from whowrote.style.edits import (
    canonical,
    combined,
    crlf,
    drop_ends,
    edits,
    first_chars,
    first_words,
    html_text,
    lower,
    markdown_html_roundtrip,
    one_blank_line,
    same_list_markers,
    sent_shuffle,
    single_newlines,
    smart_quotes,
    split_sentences,
    star_bullets,
    strip_markdown,
    to_ascii,
)
from whowrote.typography import plain_layout

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


@pytest.mark.parametrize("strip", [strip_markdown, markdown_html_roundtrip])
def test_markdown_goes_and_the_words_stay(strip):
    out = strip(MD)
    for gone in ("# ", "**", "](", "https://", "- first", "* second", "> a quote", "|", "---"):
        assert gone not in out, (strip.__name__, gone)
    for kept in ("Title here", "A section", "bold", "italic", "link", "first bullet", "second bullet",
                 "numbered item", "a quote", "done."):
        assert kept in out, (strip.__name__, kept)


def test_plain_text_is_left_alone():
    plain = "A plain sentence, with commas; and a dash-like word. Another one?"
    assert strip_markdown(plain) == plain
    assert markdown_html_roundtrip(plain) == plain


def test_html_text_puts_blocks_on_lines_and_decodes_entities():
    assert html_text("<h1>Head</h1><p>One &amp; two</p><ul><li>a</li><li>b</li></ul>") == "Head\n\nOne & two\n\na\nb"


def test_a_rendered_page_reads_back_as_a_browsers_copy():
    """markdown-it writes a line break between tags; a browser does not show it (innerText), so a
    tight list's items stay on consecutive lines (until session 45 each came back as a paragraph),
    a soft line break inside a paragraph is a space, code keeps its indentation, cells split by tabs."""
    md = ("Intro line one\nand its soft break.\n\n- first item\n- second item\n\n1. one\n2. two\n\n"
          "```\ndef f():\n    return 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nLast *para*.\n")
    assert markdown_html_roundtrip(md) == ("Intro line one and its soft break.\n\nfirst item\nsecond item\none\ntwo"
                                           "\ndef f():\n    return 1\n\na\tb\n1\t2\n\nLast para.")
    loose = "- first, with a blank line after\n\n- second\n"  # a loose list's items are paragraphs
    assert markdown_html_roundtrip(loose) == "first, with a blank line after\n\nsecond"
    assert html_text("<p>x<br>\n  y</p>\n<p>  lead  <b> bold </b>tail</p>") == "x\ny\n\nlead bold tail"


def test_to_ascii_and_smart_quotes():
    s = "He paused\u2014then \u201cspoke\u201d \u2013 it\u2019s said\u2026 \u2018so\u2019"
    assert to_ascii(s) == "He paused--then \"spoke\" - it's said... 'so'"
    back = smart_quotes(to_ascii(s))
    assert back == "He paused\u2014then \u201cspoke\u201d - it\u2019s said\u2026 \u2018so\u2019"
    assert smart_quotes("a rule\n---\nstays") == "a rule\n---\nstays"


def test_canonical_undoes_typography_and_case_exactly(corpus):
    texts = corpus.groupby("genre").head(20)["text"].tolist()
    n_curly = sum("\u2019" in t for t in texts)
    assert n_curly > 5 and any("'" in t for t in texts)  # both apostrophe styles are in the sample
    for t in texts:
        c = canonical(t)
        assert canonical(to_ascii(t)) == c
        assert canonical(smart_quotes(t)) == c
        assert canonical(lower(t)) == c
        assert canonical(smart_quotes(to_ascii(t))) == c
        assert canonical(crlf(t)) == c
    # the corpus's own texts: 11 % of them end some line with spaces (Markdown hard breaks), read alike
    hard = [t for t in corpus["text"].head(3000) if "  \n" in t][:20]
    assert len(hard) == 20
    for t in hard:
        assert canonical(t) == canonical(t.replace("  \n", "\n")) == canonical(crlf(t).replace("\r\n", " \t\r\n"))


def test_plain_layout_undoes_invisible_edits_and_nothing_else():
    s = "\ufeffTitle  \r\n\r\n- one\t\r\n- tw\u200bo \rend  "
    assert plain_layout(s) == "Title\n\n- one\n- two\nend"
    kept = "Indented\n    code\n\n\u00e9t\u00e9 \u2014 caf\u00e9\n"  # leading spaces, accents, dashes stay
    assert plain_layout(kept) is kept
    assert crlf("a\r\nb\nc") == "a\r\nb\r\nc" and plain_layout(crlf("a\nb")) == "a\nb"


def test_lengths_and_shuffle():
    text = " ".join(f"Sentence number {i} is here." for i in range(12))
    assert first_chars("x" * 2000) == "x" * 800
    assert first_words("one  two\nthree, four", 3) == "one  two\nthree,"
    a = sent_shuffle(text, seed=0)
    assert a == sent_shuffle(text, seed=0) and a != text and sent_shuffle(text, seed=1) != a
    assert sorted(s.strip() for s in split_sentences(a)) == sorted(s.strip() for s in split_sentences(text))
    assert "".join(split_sentences(text)) == text


def test_combined_composes_the_content_keeping_edits():
    s = "## Head\n\nIt was **good**\u2014really. \u201cYes,\u201d she said. A third one!"
    out = combined(s)
    assert out == out.lower() and "**" not in out and "#" not in out and "\u201c" not in out
    assert sorted(out.split()) == sorted(lower(to_ascii(strip_markdown(s))).split())


def test_suite_order():
    assert list(edits()) == ["raw", "to_ascii", "smart_quotes", "crlf", "strip_markdown", "markdown_html", "html_file",
                             "docx_file", "star_bullets",
                             "single_newlines", "hard_wrap", "lower", "first_800_chars", "first_300_words", "drop_ends", "sent_shuffle",
                             "combined"]


def test_drop_ends_cuts_the_first_and_last_paragraphs_only():
    answer = "Sure! Here's a post:\n\n# Title\n\nBody one.\nStill one.\n\n\n- a\n- b\n\nLet me know!\n"
    assert drop_ends(answer) == "# Title\n\nBody one.\nStill one.\n\n\n- a\n- b"
    # blank lines with spaces or "\r" in them are paragraph breaks too; leading/trailing space is not a paragraph
    assert drop_ends("\n\n  Hi!\r\n \r\nkept\r\n\t\r\nBye.  \n") == "kept"
    for short in ("one paragraph only", "two\n\nparagraphs", "line\nbreaks\nonly\n", ""):
        assert drop_ends(short) == short  # fewer than three paragraphs: nothing to cut


def test_paragraph_ends_walks_back_to_the_break_the_regex_would_find():
    """paragraph_ends finds the last break by walking back from the end (a long middle is not
    scanned); on any text it must split where every break found left to right would."""
    import random
    import re

    from whowrote.typography import paragraph_ends

    breaks = re.compile(r"\r?\n(?:[ \t\r]*\n)+")

    def by_regex(text):
        s = text.strip()
        found = list(breaks.finditer(s))
        return None if len(found) < 2 else (s[: found[0].start()], s[found[0].end() : found[-1].start()], s[found[-1].end() :])

    rng = random.Random(0)
    for _ in range(20_000):
        text = "".join(rng.choice("ab \n\t\r") for _ in range(rng.randint(0, 30)))
        assert paragraph_ends(text) == by_regex(text), repr(text)


def test_bullets_change_marker_and_nothing_else():
    s = "Intro - with a dash.\n\n- one\n  - nested\n+ plus\n- **Bold** lead\n\n- - -\n---\n-1 below zero\n"
    starred = star_bullets(s)
    assert starred == ("Intro - with a dash.\n\n* one\n  * nested\n* plus\n* **Bold** lead\n\n- - -\n---\n"
                       "-1 below zero\n")
    assert same_list_markers(starred) == s.replace("+ plus", "- plus")
    assert same_list_markers("* * *\n**bold** start\na * b") == "* * *\n**bold** start\na * b"  # rules, emphasis


ADVERSARIAL = ["\n* " * 70_000 + "x", "\n- " * 70_000 + "x", "* " * 100_000 + "*", "\n- -" * 60_000,
               "\n" * 200_000, "-" * 200_000 + "x", "[" * 200_000, "\\(" * 100_000, "\\[" * 100_000,
               "*" * 200_000, "**a" * 70_000, '"' * 200_000, " " * 200_000 + "x", "|-" * 100_000 + "x",
               "```" * 70_000, "![" * 100_000, "[a](" * 50_000, " \u2014" * 100_000, "_a" * 100_000, "#" * 200_000,
               "\n" + " \t\r" * 66_000 + "x", "\n \r" * 66_000 + "x"]


@pytest.mark.parametrize("text", ADVERSARIAL, ids=[repr(t[:4]) for t in ADVERSARIAL])
def test_regex_edits_are_linear_on_adversarial_input(text):
    """200k characters of each pathological shape: a quadratic pattern would take minutes here."""
    t0 = time.perf_counter()
    for name, edit in edits().items():
        if name not in ("markdown_html", "html_file"):  # markdown-it's parser, not our regexes (linear, but slower)
            edit(text)
    canonical(text)
    plain_layout(text)
    same_list_markers(text)
    assert time.perf_counter() - t0 < 20


def test_single_newlines_and_its_reverse_reading():
    s = "Title\r\n\r\nFirst para.\nstill first.\n\n\n- one\n- two\n\nEnd"
    assert single_newlines(s) == "Title\nFirst para.\nstill first.\n- one\n- two\nEnd"
    assert one_blank_line(s) == "Title\n\nFirst para.\n\nstill first.\n\n- one\n\n- two\n\nEnd"
    assert one_blank_line(single_newlines(s)) == one_blank_line(s) == one_blank_line(crlf(s))
    assert one_blank_line("no breaks at all") == "no breaks at all"


def test_tight_lists_drops_only_the_blank_lines_between_list_items():
    from whowrote.style.edits import tight_lists

    text = ("Intro:\n\n1. **A**: one.\n\n2. **B**: two.\n   more\n\n   an indented paragraph of B\n\n3. C\n\n"
            "Outro paragraph.\n\n- x\n\n\n- y\n\nEnd.\n")
    assert tight_lists(text) == ("Intro:\n\n1. **A**: one.\n2. **B**: two.\n   more\n\n   an indented paragraph of B\n3. C\n\n"
                                 "Outro paragraph.\n\n- x\n- y\n\nEnd.\n")
    assert tight_lists(tight_lists(text)) == tight_lists(text)
    assert tight_lists("- a\n\n- b\n\n1. c\n\n2. d\n\n  - nested\n\n3. e") == "- a\n- b\n\n1. c\n2. d\n  - nested\n3. e"
    for same in ("No lists here.\n\nJust paragraphs.", "1. one\n2. two", "Para.\n\n- only item\n\nPara.", ""):
        assert tight_lists(same) == same
    start = time.perf_counter()  # linear: a long loose list and a long run of blank lines
    tight_lists("- item\n\n" * 100_000 + "\n" * 100_000 + "x" * 100_000)
    assert time.perf_counter() - start < 2.0
