"""Text clean-up that every reader and builder shares: frontmatter stripping (the label leak)
and the research system's strip augmentation (spec §1.7)."""

from __future__ import annotations

import re

import yaml


def split_frontmatter(text: str) -> tuple[dict, str]:
    """Split a leading YAML frontmatter block off ``text``: returns (metadata, body).

    Follows the research rule (spec §1.4): a text starting with ``---`` loses everything up to
    the end of the next line starting with ``---``; leading newlines of the rest are dropped.
    No leading fence or no closing fence -> ({}, text) unchanged. Unparseable YAML gives {}.
    """
    if not text.startswith("---"):
        return {}, text
    close = text.find("\n---", 3)
    if close < 0:
        return {}, text
    end = text.find("\n", close + 4)
    head = text[3:close]
    body = "" if end < 0 else text[end + 1 :]
    try:
        meta = yaml.safe_load(head)
    except yaml.YAMLError:
        meta = None
    return (meta if isinstance(meta, dict) else {}), body.lstrip("\n")


def strip_frontmatter(text: str) -> str:
    """The text without its YAML frontmatter block (see :func:`split_frontmatter`)."""
    return split_frontmatter(text)[1]


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def fix_surrogates(text: str) -> str:
    """Lone UTF-16 surrogates (JSON ``"\\ud83d"`` escapes of a cut emoji) -> U+FFFD: they
    cannot be written as UTF-8 and would crash every writer and encoder downstream."""
    return _LONE_SURROGATE.sub("\ufffd", text)


_CODE_FENCE = re.compile(r"```.*?```", re.S)
_HEADING = re.compile(r"^ {0,3}#{1,6}\s*", re.M)
_BULLET = re.compile(r"^[ \t]*[-*+][ \t]+", re.M)
_NUMBERED = re.compile(r"^[ \t]*\d+\.[ \t]+", re.M)
_ITALIC_STAR = re.compile(r"(?<!\*)\*(?!\*)")
_SPACES = re.compile(r"[ \t]+")
_NEWLINES = re.compile(r"\n{2,}")


def strip_formatting(text: str) -> str:
    """Remove Markdown formatting but keep the wording (spec §1.7, steps in that order).

    Not removed, as in the research system: LaTeX, table pipes, ASCII art, quotes,
    blockquote markers and links. Not :func:`whowrote.style.edits.strip_markdown` on purpose: that
    one is the robustness edit (what copying rendered text gives: math, tables, links go too); this
    one reproduces the research system's strip augmentation step for step.
    """
    text = _CODE_FENCE.sub(" ", text)
    text = _HEADING.sub("", text)
    text = _BULLET.sub("", text)
    text = _NUMBERED.sub("", text)
    text = text.replace("**", "").replace("__", "")
    text = _ITALIC_STAR.sub("", text)
    text = text.replace("\u2014", ", ").replace("\u2013", "-")
    text = _SPACES.sub(" ", text)
    text = _NEWLINES.sub("\n", text)
    return text.strip()
