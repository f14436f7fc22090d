"""Word's HTML, for the HTML reader (:mod:`whowrote.style.html_reader`): what Outlook sends and saves
(its editor is Word), what Word's "Save as Web Page" writes, and what a copy from Word puts on the
clipboard (the page's paste).

Word writes every paragraph as ``<p class=MsoNormal>``, its style sheet giving the class its
spacing: Outlook's ``margin:0cm`` makes paragraphs lines, and an empty ``&nbsp;`` paragraph is the
blank line between them (:func:`line_paragraph`). A list is not ``<ul>`` but paragraphs styled
``mso-list:l0 level2 lfo1``, each opening with its bullet or number in a ``<span
style='mso-list:Ignore'>`` inside ``<![if !supportLists]>`` (a browser shows it: :func:`list_level`,
:func:`is_marker`, :func:`list_marker`). A page is Word's when its style sheet styles ``MsoNormal``.
"""

from __future__ import annotations

import re

from whowrote.style.html_emphasis import ClassStyles, declared, tight

WORD_PARAGRAPHS = ("p.MsoNormal", "MsoNormal")  # Word's paragraph style in its style sheet
_LEVEL = re.compile(r"mso-list:\s{0,8}l\d{1,4}\s{1,8}level(\d)")
_NUMBER = re.compile(r"\(?(\d{1,9}|[a-zA-Z]|[ivxlcdmIVXLCDM]{1,8})[.)]")


def is_word_page(classes: ClassStyles | None) -> bool:
    """Whether a page's style sheet (its class rules) styles Word's ``MsoNormal`` paragraphs."""
    return classes is not None and any(c in classes for c in WORD_PARAGRAPHS)


def line_paragraph(attrs: dict, classes: ClassStyles | None) -> bool:
    """Whether a ``<p>`` of a Word page shows as a line: no margin above or below it."""
    return tight(declared("p", attrs.get("class") or "", attrs.get("style") or "", classes or {}))


def list_level(style: str) -> int:
    """A Word list paragraph's level (1 for the outermost) from its ``style``; 0 for any other paragraph."""
    found = _LEVEL.search(style.lower()) if "mso-list" in style.lower() else None
    return int(found.group(1)) if found else 0


def is_marker(style: str) -> bool:
    """A ``<span>`` holding a list paragraph's bullet or number (Word hides it from itself, not from browsers)."""
    return "mso-list:ignore" in style.lower().replace(" ", "")


def list_marker(shown: str, level: int) -> str:
    """The Markdown marker for a list paragraph whose marker span showed ``shown`` ("·", "o", "§" in
    a symbol font, or "1.", "a)"): ``- `` or ``1. `` (its number kept when it is one), indented by level."""
    label = shown.replace("\u00a0", " ").strip()
    number = _NUMBER.fullmatch(label)
    mark = "-" if number is None else f"{number.group(1)}." if number.group(1).isdigit() else "1."
    return "  " * (level - 1) + mark + " "
