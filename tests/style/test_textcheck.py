"""The input check on hostile text: HTML stripping with html.parser stays linear and correct."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from whowrote.style.html_reader import html_to_markdown
from whowrote.style.textcheck import inspect_text, looks_like_html

REPO = Path(__file__).resolve().parents[2]

PAGE = ("<html><head><title>T</title><style>p { color: red }</style></head><body>"
        + "<p>Some words in a <b>paragraph</b> here &amp; there.</p>" * 3
        + "<script>if (a < b) { x = '</p>'; }</script><!-- a comment <p>hidden</p> --><br>tail</body></html>")


def test_html_to_markdown_keeps_only_visible_text():
    text = html_to_markdown(PAGE)
    assert text.count("Some words in a **paragraph** here & there.") == 3
    assert "color" not in text and "x =" not in text and "hidden" not in text and "comment" not in text
    assert text.rstrip().endswith("tail")
    assert "\n\n" in text  # block ends become paragraph breaks


def test_html_to_markdown_keeps_a_lone_less_than_sign():
    assert " ".join(html_to_markdown("<p>if a < b then</p><p>ok</p>").split()) == "if a < b then ok"


# Each took quadratic time before: an unclosed <script> (80 kB ~4 s, the 2 MB cap tens of
# minutes) with the old regex, and unclosed tags / comments / marked sections in html.parser
# itself (Python 3.11: 80 kB of "<p " ~100 s; "<![" raised AssertionError). The bound is generous.
@pytest.mark.parametrize("unit", ["<script>", "<style>a", "<p ", "<a ", "<!--", "<!-- >", "</", "<![", "<?", "<"])
def test_hostile_html_is_linear(unit):
    text = "<html><body><p>x</p>" + unit * (1_000_000 // len(unit))
    assert looks_like_html(text)
    t0 = time.monotonic()
    chk = inspect_text(text)
    assert time.monotonic() - t0 < 5.0
    assert any("HTML" in w for w in chk.warnings)


def test_plain_text_with_angle_brackets_is_not_html():
    # (varied words: a sentence repeated 30 times is a degenerate text, flagged by the repetition check)
    prose = ("the river runs past old mills where farmers once ground wheat into flour for bread sold at "
             "markets across every valley town near our coast, while children watched boats drift slowly "
             "toward harbours full of fishing nets and gulls. ")
    chk = inspect_text("I think 3 < 4 and 5 > 2, which is " + prose * 3)
    assert not any("HTML" in w for w in chk.warnings) and not chk.force_uncertain


@pytest.mark.parametrize("unit", ["\n", " ", "-", "#", "*", '"', "'"])
def test_runs_of_marks_are_fast(unit):
    t0 = time.monotonic()
    chk = inspect_text("Some words here. " * 5 + unit * 2_000_000)
    assert time.monotonic() - t0 < 3.0 and chk.n_words >= 15


def test_long_texts_count_their_words_as_str_split(corpus):
    """Past ``COUNT_BY_NUMPY`` bytes the words are counted with numpy (word starts): still
    ``len(text.split())``, on corpus texts of every genre and on long random whitespace soup."""
    import random

    from whowrote.style.textcheck import COUNT_BY_NUMPY, count_words

    texts = [t for g in ("blog", "debate", "fiction", "longform") for t in corpus[corpus["genre"] == g]["text"].iloc[:25]]
    rng = random.Random(2)
    alphabet = list("ab \t\n\r\x0b\x0c\x1c\x1f\u00e9") + ["word ", "\U0001f600"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1000, 4000))) for _ in range(200)]
    texts += [" " * 3000, "x" * 3000, " " + "x " * 1500, "x " * 1500 + "x"]
    assert sum(len(t.encode("utf-8", "surrogatepass")) > COUNT_BY_NUMPY for t in texts) > 300
    for t in texts:
        assert count_words(t) == len(t.split())


def test_repetitive_texts_are_uncertain_and_prose_is_not(corpus_files, corpus_sample):
    # real model outputs that loop (phi-2 repeating one line) or are grids / ASCII art: under a quarter
    # distinct words among every 5th of their first 250 (textcheck.REPEAT_*), so no verdict is given
    # with confidence; the same check passes 300 texts of every genre
    import json

    from whowrote.style import load_model

    with open(corpus_files["blogs"].parent / "chat.jsonl", encoding="utf-8") as f:
        loops = [r["text"] for r in map(json.loads, f) if r["text"].startswith("Match a valid ip address\n\nMatch")]
    assert len(loops) == 1
    for text in [loops[0], "the the the " * 300, "It is what it is, and that is that. " * 100]:
        check = inspect_text(text)
        assert check.force_uncertain and "repeats itself" in check.warnings[-1]
    assert load_model().attribute(loops)[0].uncertain
    prose = corpus_sample([(g, 60) for g in ("blogs", "debates", "fiction", "longform", "chat")])
    assert not [t for t in prose if any("repeats itself" in w for w in inspect_text(t).warnings)]


FRONTMATTER = "---\ntitle: \"Keeping basil alive\"\ndate: 2024-05-01\ntags: [garden, herbs]\nauthors:\n  - Jane\n---\n\n"


@pytest.mark.parametrize(("head", "kept"), [
    (FRONTMATTER, False),
    (FRONTMATTER.replace("\n", "\r\n"), False),  # Windows line endings
    ("---\ntitle: A post\n...\n", False),  # YAML's document end
    ("---\nA story can open with a rule, then prose.\n\n---\n", True),  # a rule, not a block
    ("---\ntitle: never closed\n\n", True),
    ("---\n---\n", True),  # no key: nothing to call metadata
])
def test_yaml_frontmatter_is_metadata_not_writing(head, kept):
    """A blog post's frontmatter (Jekyll, Hugo, Obsidian) is not read as its first lines; a text that
    only opens with a rule is read whole."""
    from whowrote.style.textcheck import frontmatter_end

    body = "# Basil\n\nBasil is easier to keep than its reputation suggests, as long as it gets light. " * 8
    chk = inspect_text(head + body)
    if kept:
        assert frontmatter_end(head + body) == 0 and chk.text.startswith("---")
        assert not any("frontmatter" in w for w in chk.warnings)
    else:
        assert chk.text == body
        assert any(w.startswith("YAML frontmatter (") and "not attributed" in w for w in chk.warnings)


def test_a_post_with_frontmatter_gets_the_verdict_of_its_body():
    from whowrote.style import load_model

    post = (REPO / "examples" / "post.md").read_text(encoding="utf-8")
    body = post.split("---\n", 2)[2]
    with_fm, without = load_model().attribute([FRONTMATTER + body, body])
    assert with_fm.probabilities == without.probabilities and with_fm.n_words == without.n_words
