"""HTML input read back as the Markdown it displays (a saved blog page, a rendered chat answer).

The model counts Markdown marks: headings, bullets, numbered lines, bold, tables, code fences,
links, rules, quotes. A page's visible text has none of them, so until session 35 a post saved as
HTML read like its text with the Markdown stripped. Here each element is written as the Markdown
that renders to it (``<h2>`` ``## ``, ``<li>`` ``- `` or ``1. ``, ``<strong>`` ``**``, table rows
``| a | b |``, ``<pre>`` a fence, ``<a href>`` ``[text](url)``, ``<blockquote>`` ``> ``), so the
model reads a rendered Markdown text nearly as it read the source (docs/predict.md, "HTML pages read
as Markdown"). Outside ``<pre>`` each run of spaces, and the layout between tags, is one space, as a
browser shows it; a line break inside a run of text is kept (:func:`whowrote.style.html_text.shown_spaces`). A page that marks its
content (``<main>``, ``<article>``) is read there only, and menus, sidebars, footers and forms are
dropped (:func:`html_to_markdown`); editors' styles count as emphasis (:func:`emphasis`), inline or
by a style sheet's class rules (:mod:`whowrote.style.html_emphasis`).

Linear in the input: :func:`whowrote.style.html_text.defuse` first escapes every ``<`` that the standard library's
``html.parser`` would rescan from (Python 3.11: an unclosed ``<p <p ...`` takes minutes at 80 kB
without it), and containers whose text is rewritten when they close (list items, quotes, cells,
``<pre>``) nest at most :data:`MAX_NEST` deep: deeper ones read as plain blocks.
"""

from __future__ import annotations

import re

from whowrote.style.html_emphasis import EMPHASIS, ClassStyles, class_styles, declared, emphasis, style_blocks
from whowrote.style.html_text import blank_tail, code_language, defuse, indent, shown_spaces, table_text
from whowrote.style.html_word import is_marker, is_word_page, line_paragraph, list_level, list_marker
from whowrote.style.line_wrap import html_source_wrapped
from whowrote.style.transcript import ASSISTANT, CHAT_PAGE, chat_role

_HIDDEN = frozenset({"script", "style", "title", "template", "noscript"})
# a site's chrome around the post: menus, sidebars, footers, comment and search forms
_CHROME = frozenset({"nav", "aside", "footer", "form", "button", "select", "dialog"})
_CONTENT_TAGS = ("main", "article")  # where a page says its content is
_CONTENT = re.compile(r"<(?:main|article)\b", re.I)
_BLOCK = frozenset({"p", "div", "section", "article", "header", "footer", "main", "nav", "aside", "figure",
                    "figcaption", "dl", "dt", "dd", "form", "details", "summary", "address", "center"})
_HEADINGS = {f"h{n}": "#" * n for n in range(1, 7)}  # <h2>: "## "
_CONTAINERS = frozenset({"ul", "ol", "li", "blockquote", "pre", "tr", "td", "th", "table"})
_ITEMS_ONLY = frozenset({"ul", "ol", "table", "tr"})  # containers whose own text is only layout
_ITEM_OF = {"li": (("li",), ("ul", "ol")), "td": (("td", "th"), ("tr", "table")), "th": (("td", "th"), ("tr", "table")),
            "tr": (("tr",), ("table",))}  # an item: (the open items it closes, the frames that bound them)
MAX_NEST = 8  # containers rewritten on close; each level re-reads its text once
_BLANKS = re.compile(r"\n{3,}")


class _Frame:
    """An open container: its tag, the text written inside it, and what its closing needs."""

    __slots__ = ("tag", "parts", "number", "header", "cells", "loose", "lang", "rows", "layout")

    def __init__(self, tag: str, number: int = 0) -> None:
        self.tag, self.parts, self.number, self.header = tag, [], number, False
        self.cells: list[str] = []  # a row's cells' text, as written inside them
        self.rows: list[tuple[list[str], bool]] = []  # a table's rows: their cells, whether any is a <th>
        self.layout = False  # a table that lays a page out (an email's): its cells read as blocks, not a grid
        self.loose = False  # a list item whose text is in paragraphs: a blank line before it, as written
        self.lang = ""  # a <pre>'s code language (``class="language-x"``), written after its fence


def _parser(scoped: bool, chrome: bool, turns: bool = False, classes: ClassStyles | None = None,
            wrapped: bool = False, word: bool = False):
    """The parser; ``scoped``: only the text inside ``<main>`` / ``<article>`` is read; ``chrome``:
    the text inside :data:`_CHROME` elements is dropped; ``turns``: only the turns of a chat
    window's page are read, each after a role line (:func:`whowrote.style.transcript.chat_role`);
    ``classes``: the font declarations of the style sheets' class rules (:func:`class_styles`);
    ``wrapped``: the source's lines were wrapped at a fixed width, so its line breaks are spaces;
    ``word``: Word's HTML (an Outlook mail): margin-less paragraphs are lines, an empty one a blank
    line, list paragraphs list items (:mod:`whowrote.style.html_word`)."""
    from html.parser import HTMLParser  # loaded only for HTML input

    hiding = _HIDDEN | _CHROME if chrome else _HIDDEN

    class _Markdown(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.root: list[str] = []
            self.stack: list[_Frame] = []
            self.hidden = 1 if scoped or turns else 0  # > 0: nothing is written (outside the content, or hidden)
            self.turn: list = []  # the open turn's element: [tag, how many of that tag are open]
            self.role = ""  # the side of the last role line written
            self.roles: set[str] = set()
            self.links: list[tuple[str, list[str], int] | None] = []  # open <a>: href, buffer, where "[" is
            self.marks: dict[str, list[str]] = {}  # per inline tag, the marks of its open elements
            self.lines: list[int] = []  # per open <p> of a Word page: where a margin-less one's text starts, else -1
            self.level = 0  # the open Word list paragraph's level (0: none)
            self.marker: list[str] = []  # the text of a Word list paragraph's marker span, while it is open
            self.in_marker = 0  # spans open inside that marker span (0: not in one)

        # -- writing ---------------------------------------------------------------------
        def out(self) -> list[str]:
            return self.stack[-1].parts if self.stack else self.root

        def write(self, s: str) -> None:
            self.out().append(s)

        def breaks(self, s: str) -> None:
            """``s``, which starts with line breaks: no spaces before them (a browser shows none at a
            line's end), and as many breaks as the larger of ``s``'s and those just written (the source's
            line break before a block is not a second one)."""
            parts = self.out()
            if parts and parts[-1][-1:] in (" ", "\n"):
                kept = parts[-1].rstrip(" \n")
                had, lead = parts[-1].count("\n", len(kept)), len(s) - len(s.lstrip("\n"))
                parts[-1] = kept
                s = "\n" * max(had - lead, 0) + s
            parts.append(s)

        @property
        def in_pre(self) -> bool:
            """Inside an open ``<pre>`` (from the open frames: one closed by an outer tag is closed)."""
            return any(frame.tag == "pre" for frame in self.stack)

        def at_line_start(self) -> bool:
            parts = self.out()
            return not parts or parts[-1].endswith("\n")

        # -- containers ------------------------------------------------------------------
        def open_frame(self, tag: str, attrs) -> bool:
            if len(self.stack) >= MAX_NEST:
                return False
            number = 1
            if tag == "ol":
                start = dict(attrs).get("start") or "1"
                number = int(start) if start.isdigit() and len(start) < 10 else 1
            # HTML may leave items open: a new one closes the open one of its list, row or table
            open_item = self.open_in(*_ITEM_OF.get(tag, ((), ())))
            if open_item:
                self.close_frame(open_item)
            frame = _Frame(tag, number)
            if tag == "table":
                frame.layout = (dict(attrs).get("role") or "").lower() == "presentation"
                outer = next((f for f in reversed(self.stack) if f.tag == "table"), None)
                if outer is not None:  # (a table inside a table's cell: the outer one lays out)
                    outer.layout = True
            self.stack.append(frame)
            return True

        def open_in(self, items: tuple[str, ...], bounds: tuple[str, ...]) -> str | None:
            """The innermost open frame among ``items`` if no ``bounds`` frame is open inside it."""
            for frame in reversed(self.stack):
                if frame.tag in items:
                    return frame.tag
                if frame.tag in bounds:
                    return None
            return None

        def close_frame(self, tag: str) -> bool:
            """Close the innermost open ``tag`` (and anything left open inside it); False if none is."""
            depth = next((i for i in range(len(self.stack) - 1, -1, -1) if self.stack[i].tag == tag), None)
            if depth is None:
                return False
            while len(self.stack) > depth:
                self.finish(self.stack.pop())
            return True

        def finish(self, frame: _Frame) -> None:
            text = "".join(frame.parts)
            # a blank line around a list or a table (a line break inside a list item, as its Markdown is written)
            around = "\n" if self.stack and self.stack[-1].tag == "li" else "\n\n"
            if frame.tag == "pre":
                self.breaks(f"\n\n```{frame.lang}\n" + text.strip("\n") + "\n```\n\n")
            elif frame.tag in ("td", "th"):
                row = self.stack[-1] if self.stack and self.stack[-1].tag == "tr" else None
                if row is not None:
                    row.cells.append(text)
                    row.header |= frame.tag == "th"
                else:  # (a cell outside a row: its text)
                    self.write(" " + " ".join(text.split()) + " ")
            elif frame.tag == "tr":
                if text.strip():  # (text in the row outside its cells, as a cell of its own: not lost)
                    frame.cells.append(text)
                table = self.stack[-1] if self.stack and self.stack[-1].tag == "table" else None
                if table is not None:
                    table.rows.append((frame.cells, frame.header))
                else:
                    self.breaks("\n\n" + " ".join(" ".join(c.split()) for c in frame.cells) + "\n\n")
            elif frame.tag == "table":
                self.breaks(table_text(frame.rows, frame.layout, text, around))
            elif frame.tag == "li":
                parent = self.stack[-1] if self.stack and self.stack[-1].tag in ("ul", "ol") else None
                marker = "- "
                if parent is not None and parent.tag == "ol":
                    marker = f"{parent.number}. "
                    parent.number += 1
                self.breaks(("\n\n" if frame.loose else "\n") + indent(text.strip("\n "), marker))
            elif frame.tag == "blockquote":
                lines = text.strip("\n ").split("\n")
                self.breaks("\n\n" + "\n".join("> " + line if line else ">" for line in lines) + "\n\n")
            else:  # ul, ol: their items are written
                self.breaks(around + text.strip("\n") + around)

        # -- the parser's events -----------------------------------------------------------
        def enter_turn(self, tag: str, attrs) -> None:
            """A chat page's turn opens (a role line, unless the same side goes on), or a nested
            element of its tag."""
            if self.turn:
                self.turn[1] += tag == self.turn[0]
                return
            role = chat_role(tag, attrs)
            if role:
                self.turn = [tag, 1]
                self.hidden -= 1
                if role != self.role:
                    self.breaks(f"\n\n{role}:\n")
                    self.role = role
                    self.roles.add(role)

        def handle_starttag(self, tag: str, attrs) -> None:
            if self.in_marker or (word and self.level and tag == "span" and is_marker(dict(attrs).get("style") or "")):
                self.in_marker += tag == "span"  # (a Word list paragraph's bullet or number: written when it closes)
                return
            if turns:
                self.enter_turn(tag, attrs)
            if scoped and tag in _CONTENT_TAGS:
                self.hidden -= 1
                self.breaks("\n\n")
            elif tag in hiding:
                self.hidden += 1
            elif self.hidden > 0:
                return
            elif tag in _CONTAINERS and self.open_frame(tag, attrs):
                pass  # (a frame: written when it closes)
            elif tag in _HEADINGS:
                self.breaks("\n\n" + _HEADINGS[tag] + " ")
            elif tag in _BLOCK or tag in _CONTAINERS:
                if tag == "p" and self.stack and self.stack[-1].tag == "li":
                    self.stack[-1].loose = True
                line = False
                if tag == "p" and word:  # (a Word page's paragraphs: a list item or a margin-less one is a line)
                    attr = dict(attrs)
                    self.level = list_level(attr.get("style") or "")
                    line = self.level > 0 or line_paragraph(attr, classes)
                    self.lines.append(len(self.out()) if line else -1)
                self.breaks("\n" if line else "\n\n")
            elif tag == "br":  # (a second in a row is a blank line, as a browser shows it: a mail's or a web editor's paragraph)
                parts = self.out()
                self.breaks("\n\n" if parts and parts[-1] == "\n" else "\n")
            elif tag == "hr":
                self.breaks("\n\n---\n\n")
            elif tag in EMPHASIS:
                attr = dict(attrs)
                style = attr.get("style") or ""
                if classes and attr.get("class"):
                    style = declared(tag, attr["class"], style, classes)
                mark = "" if self.in_pre else emphasis(tag, style)  # (a code block has no emphasis)
                self.marks.setdefault(tag, []).append(mark)
                self.write(mark)
            elif tag == "code" and not self.in_pre:
                self.write("`")
            elif tag == "code" and self.stack and self.stack[-1].tag == "pre":
                # the block's code; what came before it is a chat window's header (the language, a
                # copy button), not code
                self.stack[-1].parts.clear()
                self.stack[-1].lang = code_language(dict(attrs).get("class") or "")
            elif tag == "a":
                # (a code block has no links: pandoc's line anchors in highlighted code are not text)
                href = "" if self.in_pre else (dict(attrs).get("href") or "").strip()
                self.links.append((href, self.out(), len(self.out())) if href else None)
                if href:
                    self.write("[")

        def handle_startendtag(self, tag: str, attrs) -> None:
            if tag in ("br", "hr"):
                self.handle_starttag(tag, attrs)

        def handle_endtag(self, tag: str) -> None:
            if self.in_marker:
                self.in_marker = 0 if tag == "p" else self.in_marker - (tag == "span")  # (a marker left open ends with its paragraph)
                if not self.in_marker:
                    self.write(list_marker("".join(self.marker), self.level))
                    self.marker.clear()
                if tag != "p":
                    return
            self.end(tag)
            if self.turn and tag == self.turn[0]:
                self.turn[1] -= 1
                if not self.turn[1]:  # the turn's element closed: what follows is outside the turns
                    self.turn = []
                    self.hidden += 1

        def end(self, tag: str) -> None:
            if scoped and tag in _CONTENT_TAGS:
                self.hidden += 1
                self.breaks("\n\n")
            elif tag in hiding:
                self.hidden = max(self.hidden - 1, 0)
            elif self.hidden > 0:
                return
            elif tag in _CONTAINERS and self.close_frame(tag):
                pass  # (the frame and any left open inside it written)
            elif tag == "p" and self.lines and self.lines[-1] >= 0:  # a margin-less Word paragraph: a line
                start, parts, self.level = self.lines.pop(), self.out(), 0
                if all(not part.strip() or part in ("*", "**", "***") for part in parts[start:]):
                    del parts[start:]  # (an empty one, "&nbsp;": the blank line between paragraphs)
                    self.breaks("\n\n")
                else:
                    self.breaks("\n")
            elif tag in _HEADINGS or tag in _BLOCK or tag in _CONTAINERS:
                if tag == "p" and self.lines:
                    self.lines.pop()
                if tag in _HEADINGS:  # an empty heading shows nothing (pandoc's title page without a title)
                    parts = self.out()
                    while parts and parts[-1] == " ":
                        parts.pop()
                    if parts and parts[-1].endswith(_HEADINGS[tag] + " "):
                        parts[-1] = parts[-1][: -len(_HEADINGS[tag]) - 1]
                self.breaks("\n\n")
            elif tag in EMPHASIS:
                mark = self.marks[tag].pop() if self.marks.get(tag) else ""
                parts = self.out()
                blank = blank_tail(parts)
                if mark and len(parts) > blank and parts[-1 - blank] == mark:  # nothing inside: no "****"
                    spaced = any(parts[-blank:]) if blank else False  # (Word's bold "&nbsp;": a space)
                    del parts[-1 - blank:]
                    if spaced and parts and not parts[-1].endswith((" ", "\n")):
                        self.write(" ")
                else:
                    self.write(mark[::-1])
            elif tag == "code" and not self.in_pre:
                self.write("`")
            elif tag == "a" and self.links:
                link = self.links.pop()
                if link is None:
                    return
                href, parts, at = link
                # a link with no text (an anchor, an image's link) shows nothing; a bare URL shows as itself
                if parts is self.out() and (len(parts) - at - 1 == blank_tail(parts) or (len(parts) == at + 2 and parts[-1] == href)):
                    parts[at] = ""
                else:
                    self.write(f"]({href})")

        def handle_data(self, data: str) -> None:
            if self.in_marker:
                if len(self.marker) < 16:  # (a bullet or number and its spacing)
                    self.marker.append(data)
                    return
                data, self.in_marker = "".join(self.marker) + data, 0  # (more is not a marker: it is text)
                self.marker.clear()
            if self.hidden > 0:
                return
            if not self.in_pre:
                if self.stack and self.stack[-1].tag in _ITEMS_ONLY and data.isspace():
                    return  # (the layout between list items or table cells)
                # layout between tags (pretty-printed HTML) is one space, as a browser shows it; a
                # line break inside a run of text is the source's (Markdown's soft breaks)
                data = " " if data.isspace() else shown_spaces(data, wrapped)
                if self.at_line_start():
                    data = data.lstrip(" ")
            if data:
                self.write(data)

        def text(self) -> str:
            while self.stack:
                self.finish(self.stack.pop())
            return _BLANKS.sub("\n\n", "".join(self.root)).strip()

    return _Markdown()


def _read(page: str, scoped: bool, chrome: bool, turns: bool = False,
          classes: ClassStyles | None = None, wrapped: bool = False, word: bool = False) -> str | None:
    """The page's Markdown; with ``turns``, None when no assistant turn was found."""
    parser = _parser(scoped, chrome, turns, classes, wrapped, word)
    try:
        parser.feed(page)
        parser.close()
    except (AssertionError, ValueError):  # malformed declarations: keep what was parsed so far
        pass
    if not turns:
        return parser.text()
    if parser.roles == {ASSISTANT}:  # the assistant's turns only: no role line to tell them apart
        return parser.text().removeprefix(f"{ASSISTANT}:").lstrip("\n")
    return parser.text() if ASSISTANT in parser.roles else None


def html_to_markdown(html: str, book_styles: ClassStyles | None = None) -> str:
    """The visible text of ``html`` with its structure written as Markdown (module docstring).

    A saved page holds the site around the post: when it marks its content (``<main>``,
    ``<article>``) only that is read, and menus, sidebars, footers and forms are dropped anywhere.
    If that leaves nothing (a page that is all "chrome", or a ``<nav>`` left open), the whole
    visible text is read instead. A chat window's saved page (:func:`whowrote.style.transcript.chat_role`)
    is read as its turns, each after a ``User:`` / ``Assistant:`` line; if no assistant turn is
    found there, as an ordinary page. ``book_styles``: the class rules of the style sheets the page
    links to (an e-book's, :func:`class_styles`, parsed once a book); the page's own ``<style>`` is
    read too. A page whose source lines were wrapped at a fixed width
    (pandoc's: :func:`whowrote.style.line_wrap.html_source_wrapped`) has its line breaks read as
    the spaces a browser shows, not as the writer's. Three linear passes at most."""
    page = defuse(html).replace("\r\n", "\n").replace("\r", "\n")  # (a browser reads CR LF and CR as LF, in <pre> too)
    classes = class_styles(style_blocks(page), into=book_styles) if "class=" in page else None
    wrapped = html_source_wrapped(page)
    if CHAT_PAGE.search(page):  # a chat window's page: its turns, each after a role line
        text = _read(page, False, True, turns=True, classes=classes, wrapped=wrapped)
        if text:
            return text
    word = is_word_page(classes)
    text = _read(page, _CONTENT.search(page) is not None, True, classes=classes, wrapped=wrapped, word=word)
    return text if text else _read(page, False, False, classes=classes, wrapped=wrapped, word=word)
