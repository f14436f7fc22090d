"""A tool's line wrapping, and joining it back (whowrote.style.line_wrap): the hard_wrap edit, unwrap in
the canonical form the model reads, a wrapped HTML source (pandoc's page), real corpus texts,
a writer's own short lines kept, and linear time on hostile input."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from test_pdf_reader import LONG
from typer.testing import CliRunner

from whowrote.cli import app
from whowrote.style.canonical import canonical
from whowrote.style.edits import markdown_page
from whowrote.style.html_reader import html_to_markdown
from whowrote.style.line_wrap import hard_wrap, html_source_wrapped, unwrap

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "documents"
runner = CliRunner()

STORY = """# The crossing

The ferry left at six, and by the time the town had shrunk to a line of lights the wind had found the open deck and most of the passengers had gone below to the warm, loud cabin.

Those who stayed outside held the rail and watched the wake unroll behind them, white at first and then grey, until it was lost in the dark water and there was nothing to look at but the lamp on the mast and their own breath.

- A list item long enough to wrap, holding a **bold** phrase and a [link](https://example.org/crossing) that must stay whole.
- A short item.
  - A nested item that is also long enough to need a second line once it is wrapped by the tool.

> A quoted passage long enough that the wrap continues it on a second quoted line, as mail clients do.

```python
def keep(this_line_of_code, as_it_is, even_when_it_is_far_longer_than_any_wrap_width=True):
    return this_line_of_code
```

| a table row that is longer than the wrap width stays one line | because tables are never wrapped |
|---|---|

The crossing took longer than anyone planned. It cost them the whole of 2023. The captain said so twice, and nobody on the crossing argued with him about it afterwards, not even the man with the dog.
"""


def test_unwrap_undoes_the_hard_wrap_edit_exactly():
    for width in (60, 72, 80):
        wrapped = hard_wrap(STORY, width)
        prose = [line for line in wrapped.split("\n") if not line.startswith(("|", "def ", "    return"))]
        assert wrapped != STORY and max(map(len, prose)) <= width  # (code and tables as they are)
        assert ("\n2023. The" in wrapped) == (width == 72)  # (a wrap can put a number first: not a list)
        joined, found = unwrap(wrapped)
        assert joined == STORY and width - 8 <= found <= width, width  # (the longest wrapped line)
        assert canonical(wrapped) == canonical(STORY)


def test_a_writers_own_short_lines_are_kept():
    poem = "\n".join(["The tide goes out along the quay,", "the boats lie down like tired dogs,",
                      "and nobody remembers when", "the lamps were lit, or who lit them.", ""] * 4)
    assert unwrap(poem) == (poem, None)
    # a wrapped text that also has a writer's short lines: only the forced breaks are joined
    text = hard_wrap(STORY, 72) + "\nSigned,\nthe crew\n"
    assert unwrap(text)[0] == STORY + "\nSigned,\nthe crew\n"
    # a text with long prose lines was never wrapped, whatever its shorter lines look like
    soft = STORY.replace("ferry left at six, and", "ferry left at six,\nand")
    assert unwrap(soft) == (soft, None)


def test_corpus_texts_are_left_alone_and_their_wrapped_copies_joined(corpus_sample):
    texts = corpus_sample([("blogs", 30), ("debates", 30), ("fiction", 30), ("longform", 30), ("chat", 60)])
    assert all(unwrap(t) == (t, None) for t in texts)  # (the rule fires on none of the corpus's 11,165 texts)
    wrapped = [(t, hard_wrap(t, 72)) for t in texts]
    wrapped = [(t, w) for t, w in wrapped if w != t]
    joined = sum(unwrap(w)[1] is not None for _, w in wrapped)
    exact = sum(unwrap(w)[0] == t for t, w in wrapped)
    # (not exact: mostly a paragraph that ends on a single line break and a full-looking line, joined)
    assert len(wrapped) > 150 and joined >= 0.85 * len(wrapped) and exact >= 0.45 * len(wrapped), (len(wrapped), joined, exact)


def test_pandocs_wrapped_page_reads_as_its_text():
    """pandoc's page wraps its source at 72 columns, tags counted (tests/fixtures/documents): its
    line breaks are a browser's spaces, so the page reads back as the Markdown it came from; a
    markdown-it page keeps the writer's own line breaks (its source is not wrapped)."""
    page = (FIXTURES / "pandoc-3.9-wrapped.html").read_text()
    assert html_source_wrapped(page)
    assert html_to_markdown(page) == "# Notes\n\n" + LONG.strip().replace("early  \n", "early\n")
    # a writer's own breaks (a rendered Markdown text's soft breaks) fall where the writer put them
    soft = "".join(f"Note {i}: the writer broke this line{' after a few more words' * (i % 3)}\nhere, on purpose, "
                   f"and went on.\n\n" for i in range(12))
    assert not html_source_wrapped(markdown_page(soft))
    assert html_to_markdown(markdown_page(soft)) == soft.strip()


def test_predict_reads_a_wrapped_text_as_the_text(tmp_path):
    post = Path("examples/post.md").read_text()
    (tmp_path / "post.md").write_text(post)
    (tmp_path / "wrapped.md").write_text(hard_wrap(post, 72))
    res = runner.invoke(app, ["predict", str(tmp_path), "--jsonl"])
    a, b = [json.loads(x) for x in res.stdout.splitlines()]
    assert res.exit_code == 0 and a["probabilities"] == b["probabilities"] and a["n_words"] == b["n_words"]
    wrapped_warning = ("its lines look wrapped at about 72 columns (by a mail client, an editor or a converter): "
                       "read with the wrapped lines joined")
    assert sorted(b["warnings"]) == sorted([wrapped_warning, *a["warnings"]]) and wrapped_warning not in a["warnings"]


HOSTILE = {"many_lines": "a b\n" * 200_000, "wrapped_width": ("word " * 14 + "\n") * 200_000,  # (one 14 MB paragraph, joined)
           "long_words": ("x" * 119 + " " + "y" * 200 + "\n") * 2_000, "quotes": "> > > a b\n" * 100_000,
           "letters": "a" * 400_000, "fences": "```\n" * 100_000}


@pytest.mark.parametrize("name", HOSTILE)
def test_unwrap_and_the_html_test_stay_linear(name):
    text = HOSTILE[name]
    t0 = time.perf_counter()
    unwrap(text)
    hard_wrap(text)
    html_source_wrapped(text)
    assert time.perf_counter() - t0 < 10
