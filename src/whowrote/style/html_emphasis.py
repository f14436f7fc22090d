"""The emphasis of an HTML element, for the HTML reader (:mod:`whowrote.style.html_reader`): its tag's
(``<strong>`` ``**``, ``<em>`` ``*``), unless its styles say otherwise, inline or by a style sheet's
class rules (:func:`emphasis`).

Editors such as Google Docs mark bold inline, as ``<span style="font-weight:700">``. Some producers
mark bold and italics only through classes: Google Docs' "Download as web page" writes ``<span
class="c3">`` with ``.c3{font-weight:700}`` in the page's ``<style>``, and e-book converters (Calibre)
write ``<span class="bold">`` or ``class="calibre7"`` with the rule in the book's ``stylesheet.css``.
Without the rules those words read as plain text, as if the Markdown's ``**`` had been stripped.
:func:`class_styles` keeps, per class, the font declarations of rules whose selector is one class
(``.c3``, ``span.c3``); descendant, pseudo-class and attribute selectors are not matched (pandoc's
``code span.kw`` colours code, which has no emphasis). The margins are kept too: Word's HTML (an
Outlook mail, a paste from Word) sets ``p.MsoNormal{margin:0cm; margin-bottom:.0001pt}``, so its
paragraphs show as lines and an empty paragraph is the blank line between them (:func:`tight`).
All string methods, no regex: linear in the input.
"""

from __future__ import annotations

EMPHASIS = {"strong": "**", "b": "**", "em": "*", "i": "*", "span": ""}  # span: only by its style
_BOLD_WEIGHTS = ("font-weight:bold", "font-weight:bolder", "font-weight:600", "font-weight:700",
                 "font-weight:800", "font-weight:900")
_FONT_PROPERTIES = ("font-weight", "font-style")  # what emphasis() reads
# what tight() reads (Outlook's "auto" spacing: a paragraph that came from an HTML mail keeps its gaps)
_MARGIN_PROPERTIES = ("margin", "margin-top", "margin-bottom", "mso-margin-top-alt", "mso-margin-bottom-alt")
_PROPERTIES = _FONT_PROPERTIES + _MARGIN_PROPERTIES
_SMALL = {"pt": 1.0, "px": 1.0}  # a length under this (in its unit; 0.05 in any other) is no gap
MAX_STYLE_CHARS = 4 * 1024 * 1024  # style sheet text read per page or book (a book's is ~20 kB)


def style_blocks(html: str) -> str:
    """The text of the page's ``<style>`` elements, joined (at most :data:`MAX_STYLE_CHARS`)."""
    lower = html.lower()
    parts: list[str] = []
    size, at = 0, lower.find("<style")
    while at >= 0 and size < MAX_STYLE_CHARS:
        start = lower.find(">", at)
        if start < 0:
            break
        end = lower.find("</style", start)
        end = len(html) if end < 0 else end
        parts.append(html[start + 1:end])
        size += end - start
        at = lower.find("<style", end)
    return "\n".join(parts)[:MAX_STYLE_CHARS]


def _without_comments(css: str) -> str:
    parts, at = [], 0
    while (start := css.find("/*", at)) >= 0:
        parts.append(css[at:start])
        end = css.find("*/", start + 2)
        if end < 0:
            return "".join(parts)
        at = end + 2
    parts.append(css[at:])
    return "".join(parts)


def _class_of(selector: str) -> str | None:
    """``c3`` for the selector ``.c3``, ``span.c3`` for ``span.c3``; None for any other selector."""
    element, dot, name = selector.strip().partition(".")
    if not dot or not name or not (element == "" or element.isalnum()):
        return None
    if not all(ch.isalnum() or ch in "-_" for ch in name):
        return None
    return f"{element.lower()}.{name}" if element else name


ClassStyles = dict[str, dict[str, str]]  # class name (``c3``, ``span.c3``) -> {property: value}


def _declarations(body: str) -> list[tuple[str, str]]:
    """A rule's or a ``style`` attribute's font and margin declarations, lower-case: a font value
    without spaces (``bold!important``), a margin's with single ones (``0cm 0cm .0001pt``)."""
    out = []
    for decl in body.lower().split(";"):
        prop, colon, value = decl.partition(":")
        prop = prop.strip()
        if colon and prop in _PROPERTIES:
            out.append((prop, value.replace(" ", "") if prop in _FONT_PROPERTIES else " ".join(value.split())))
    return out


def class_styles(css: str, into: ClassStyles | None = None) -> ClassStyles:
    """Per class name (``c3``, or ``span.c3`` for a rule on one element), the font declarations of
    its one-class rules (lower-case, no spaces; a later rule's value replacing an earlier one's, so
    that a sheet of many rules stays two values a class), added to a copy of ``into`` (a book's
    style sheet, which a chapter's own ``<style>`` then overrides)."""
    found = {name: dict(props) for name, props in (into or {}).items()}
    # ("<!--" and "-->" around a sheet, as Word writes it, are not part of a selector: CSS ignores them)
    for rule in _without_comments(css[:MAX_STYLE_CHARS]).replace("<!--", " ").replace("-->", " ").split("}"):
        selectors, brace, body = rule.partition("{")
        if not brace or "@" in selectors:  # (an @media block's first rule: its selector is not plain)
            continue
        fonts = _declarations(body) if "font-" in body or "margin" in body else []
        if not fonts:
            continue
        for selector in selectors.split(","):
            name = _class_of(selector)
            if name is not None:
                found.setdefault(name, {}).update(fonts)
    return found


def declared(tag: str, classes: str, inline: str, styles: ClassStyles) -> str:
    """The font and margin declarations of a ``tag`` element: its classes' rules (a later class's
    winning: an approximation of the sheet's order), then its inline ``style`` (which wins), one per
    property, as ``"font-weight:700;font-style:italic"``."""
    found: dict[str, str] = {}
    for c in classes.split():
        found.update(styles.get(c, {}))
        found.update(styles.get(f"{tag}.{c}", {}))
    found.update(_declarations(inline))
    return ";".join(f"{k}:{v.removesuffix('!important').strip()}" for k, v in found.items())


def _no_gap(length: str | None) -> bool:
    if length is None or length == "auto":
        return False
    number = length.rstrip("abcdefghijklmnopqrstuvwxyz%")
    try:
        return abs(float(number)) < _SMALL.get(length[len(number):], 0.05)
    except ValueError:
        return False


def tight(style: str) -> bool:
    """Whether an element's declarations (:func:`declared`'s string) leave no space above and below
    it (Word's ``margin:0cm; margin-bottom:.0001pt``); a longhand wins over the shorthand, and
    Outlook's ``mso-margin-*-alt:auto`` (a paragraph from an HTML mail) keeps a gap."""
    found = dict(decl.partition(":")[::2] for decl in style.split(";"))
    sides = found.get("margin", "").split()
    top = found.get("margin-top", sides[0] if sides else None)
    bottom = found.get("margin-bottom", sides[2] if len(sides) > 2 else sides[0] if sides else None)
    auto = "auto" in (found.get("mso-margin-top-alt"), found.get("mso-margin-bottom-alt"))
    return not auto and _no_gap(top) and _no_gap(bottom)


def emphasis(tag: str, style: str) -> str:
    """The Markdown mark of an inline element: its tag's, unless its style says otherwise (editors
    such as Google Docs mark bold as ``<span style="font-weight:700">`` and wrap a whole copy in
    ``<b style="font-weight:normal">``)."""
    mark = EMPHASIS[tag]
    if "font-" not in style:
        return mark
    style = style.lower().replace(" ", "")
    bold, italic = "**" in mark, mark == "*"
    if "font-weight:" in style:
        bold = any(w in style for w in _BOLD_WEIGHTS)
    if "font-style:" in style:
        italic = "font-style:italic" in style or "font-style:oblique" in style
    return ("**" if bold else "") + ("*" if italic else "")
