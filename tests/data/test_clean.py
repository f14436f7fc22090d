"""Frontmatter stripping (spec §1.4) and strip augmentation (spec §1.7), step by step."""

from __future__ import annotations

import pytest

from whowrote.data.clean import split_frontmatter, strip_formatting, strip_frontmatter


def test_frontmatter_removed_and_parsed():
    meta, body = split_frontmatter("---\nmodel: gpt-5.5\ncategory: stem\n---\n\n\nBody here.\n---\nrule")
    assert meta == {"model": "gpt-5.5", "category": "stem"}
    assert body == "Body here.\n---\nrule"


@pytest.mark.parametrize("text", ["No fence here.", "---\nmodel: x\nno closing fence", "text\n---\nmodel: x\n---\n"])
def test_frontmatter_untouched_without_leading_and_closing_fence(text):
    assert strip_frontmatter(text) == text


def test_frontmatter_closing_fence_line_is_skipped_whole():
    assert strip_frontmatter("---\na: 1\n---   trailing\nbody") == "body"
    assert strip_frontmatter("---\na: 1\n---") == ""


def test_bad_yaml_still_stripped():
    meta, body = split_frontmatter("---\n: : [\n---\nbody")
    assert meta == {} and body == "body"


@pytest.mark.parametrize(("before", "after"), [
    ("a\n```python\ncode\n```\nb", "a\n \nb"),                 # 1 code fences -> one space
    ("### Heading\ntext", "Heading\ntext"),                    # 2 heading markers
    ("    # not a heading (4 spaces)", "# not a heading (4 spaces)"),
    ("- one\n* two\n  + three", "one\ntwo\nthree"),            # 3 bullets
    ("1. first\n 12. second", "first\nsecond"),               # 4 numbered items
    ("**bold** and __under__", "bold and under"),               # 5 bold
    ("an *italic* word", "an italic word"),                    # 6 single stars
    ("a\u2014b \u2013 c", "a, b - c"),                          # 7 dashes
    ("a  \t b", "a b"),                                         # 8 spaces and tabs
    ("a\n\n\n\nb", "a\nb"),                                     # 9 blank lines
    ("  \n a \n ", "a"),                                        # 10 trim
    ("> quote | pipe | $x^2$ [link](u)", "> quote | pipe | $x^2$ [link](u)"),  # kept as is
])
def test_strip_formatting_steps(before, after):
    assert strip_formatting(before) == after
