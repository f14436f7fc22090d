"""Everyday, label-preserving text edits, and the canonical form the classifier reads.

The edits are what happens to a text between the assistant and the user's clipboard: a CMS turns
quotes curly, a plain-text pipeline straightens them, a page strips or renders the Markdown, someone
lower-cases or quotes only the opening. They drive three things:

- the robustness suite (``benchmarks/robustness.py``, the study report): accuracy under each edit;
- training augmentation (``whowrote.style.train``): the classifier also sees edited copies;
- :func:`canonical`, applied before feature extraction: it undoes the typography, case and
  line-ending edits exactly (``canonical(to_ascii(t)) == canonical(smart_quotes(t)) ==
  canonical(t.lower()) == canonical(crlf(t))`` up to the quote/dash spelling), so those edits cannot
  move the verdict at all, and the ``hard_wrap`` edit (a tool's 72-column wrap,
  :mod:`whowrote.style.line_wrap`) for most texts.

Every regex here runs in linear time on any input: no two adjacent quantifiers over the same
characters, and bodies of delimited spans exclude their own opener (``[^\\[\\]]``), so a failed
match stops at the next opener instead of scanning to the end of the text from every start.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from whowrote.formats import markdown_parser
from whowrote.style.canonical import canonical as canonical  # re-exported: the form these edits cannot move
from whowrote.style.canonical import to_ascii
from whowrote.style.line_wrap import hard_wrap
from whowrote.typography import paragraph_ends

# ---- typography (to_ascii and canonical live in style.canonical: predict needs only them) -----
_DOUBLE_HYPHEN = re.compile(r"(?<!-)--(?!-)")  # "---" rules and longer runs stay as they are
_OPEN_DQUOTE = re.compile(r'(^|[\s(\[{<\u2014-])"', re.M)
_OPEN_SQUOTE = re.compile(r"(^|[\s(\[{<\u2014-])'", re.M)


def smart_quotes(text: str) -> str:
    """ASCII -> typographic, as word processors and CMSs apply it ("smart quotes").

    ``--`` (not a longer run) -> em-dash, ``...`` -> ``…``, a quote after a space or an opening bracket opens
    (``“`` / ``‘``), every other one closes (``”`` / ``’``, so in-word apostrophes become ``’``).
    """
    text = _DOUBLE_HYPHEN.sub("\u2014", text).replace("...", "\u2026")
    text = _OPEN_DQUOTE.sub("\\1\u201c", text).replace('"', "\u201d")
    return _OPEN_SQUOTE.sub("\\1\u2018", text).replace("'", "\u2019")


def lower(text: str) -> str:
    return text.lower()


def crlf(text: str) -> str:
    """Windows line endings, as a file saved on Windows or a browser's form submission holds them."""
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


# ---- Markdown ---------------------------------------------------------------------------------
_FENCE = re.compile(r"```.*?```|~~~.*?~~~", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_DISPLAY_MATH = re.compile(r"\$\$[^$]*\$\$|\\\[(?:(?!\\\[).)*?\\\]", re.S)
_INLINE_MATH = re.compile(r"\$[^$\n]+\$|\\\((?:(?!\\\()[^\n])*?\\\)")
_HEADER = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t]+|$)", re.M)
_BLOCKQUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.M)
_RULE = re.compile(r"^[ \t]*[-*_](?:[ \t]*[-*_]){2,}[ \t]*$", re.M)
_BULLET = re.compile(r"^[ \t]*[-*+\u2022][ \t]+", re.M)
_NUMBERED = re.compile(r"^[ \t]*\d+[.)][ \t]+", re.M)
_TABLE_SEP = re.compile(r"^[ \t|:]*(?:-[ \t|:]*){2,}$", re.M)
_IMAGE = re.compile(r"!\[([^\[\]\n]*)\]\([^()\n]*\)")
_LINK = re.compile(r"\[([^\[\]\n]+)\]\([^()\n]*\)")
_BOLD = re.compile(r"\*\*([^*]+)\*\*|__([^_]+)__")
_ITALIC = re.compile(r"(?<![\w*])\*(?![\s*])([^*\n]+)\*(?![\w*])|(?<![\w_])_(?![\s_])([^_\n]+)_(?![\w_])")
_SPACES = re.compile(r"[ \t]{2,}")
_BLANKS = re.compile(r"\n{3,}")


def strip_markdown(text: str) -> str:
    """Markdown (and LaTeX math) removed, the words kept: what copying rendered text gives.

    Not :func:`whowrote.data.clean.strip_formatting`, which follows the research spec's strip
    augmentation (§1.7: LaTeX, tables and links kept, em-dashes to commas) for the LLM data."""
    text = _FENCE.sub(" ", text)
    text = _DISPLAY_MATH.sub(" ", text)
    text = _INLINE_MATH.sub(" ", text)
    text = _INLINE_CODE.sub(" ", text)
    text = _TABLE_SEP.sub("", text)
    text = _RULE.sub("", text)
    text = _HEADER.sub("", text)
    text = _BLOCKQUOTE.sub("", text)
    text = _BULLET.sub("", text)
    text = _NUMBERED.sub("", text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _BOLD.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = _ITALIC.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = text.replace("**", "").replace("|", " ")
    text = _SPACES.sub(" ", text)
    text = "\n".join(line.strip() for line in text.split("\n"))
    return _BLANKS.sub("\n\n", text).strip()


# What a browser's copy (the HTML standard's ``innerText``, "rendered text collection steps") puts
# around an element: a blank line around a <p>, a line break around other blocks (headings and list
# items included), a tab between table cells; text outside <pre> has its whitespace collapsed, so the
# line breaks between a renderer's tags are not text. (Until session 45 they were read as text, and
# every rendered list item came back as a paragraph of its own.)
_PARAGRAPH_TAGS = frozenset({"p"})
_BLOCK_TAGS = frozenset({"div", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "pre", "blockquote",
                         "table", "tr", "hr", "section", "article", "header", "footer", "main", "nav", "dl", "dt", "dd"})
_CELL_TAGS = frozenset({"td", "th"})
_WHITESPACE = re.compile(r"[ \t\r\n\f]+")


def html_text(html: str) -> str:
    """The visible text of an HTML document as a browser's copy gives it (``innerText``): paragraphs
    apart, headings, list items and table rows on lines of their own, cells split by a tab, the
    whitespace of text outside ``<pre>`` collapsed (stdlib ``html.parser``, loaded only here)."""
    from html.parser import HTMLParser

    # ("text" | "pre", string), ("breaks", n): n line breaks required there, ("tab", ""), ("br", "")
    items: list[tuple[str, str | int]] = []
    in_pre, first_cell = 0, True

    class _TextOf(HTMLParser):
        def handle_starttag(self, tag: str, attrs) -> None:
            nonlocal in_pre, first_cell
            in_pre += tag == "pre"
            self._boundary(tag)
            first_cell = first_cell or tag == "tr"
            if tag == "br":
                items.append(("br", ""))
            elif tag in _CELL_TAGS:
                if not first_cell:
                    items.append(("tab", ""))
                first_cell = False

        def handle_endtag(self, tag: str) -> None:
            nonlocal in_pre
            in_pre -= tag == "pre" and in_pre > 0
            self._boundary(tag)

        def _boundary(self, tag: str) -> None:
            if tag in _PARAGRAPH_TAGS or tag in _BLOCK_TAGS:
                items.append(("breaks", 2 if tag in _PARAGRAPH_TAGS else 1))

        def handle_data(self, data: str) -> None:
            items.append(("pre", data) if in_pre else ("text", _WHITESPACE.sub(" ", data)))

    parser = _TextOf(convert_charrefs=True)
    parser.feed(html)
    parser.close()
    out: list[str] = []
    breaks, line_start = 0, True  # line_start: collapsed text drops its leading space here

    def separate(s: str) -> None:  # a line break or a tab: no space before it, none kept after it
        nonlocal line_start
        if out:
            out[-1] = out[-1].rstrip(" ")
        out.append(s)
        line_start = True

    for kind, value in items:
        if kind == "breaks":
            breaks = max(breaks, int(value)) if out else 0  # none before the first text
            continue
        if kind == "text" and not str(value).strip(" "):  # whitespace between tags: a space, if inline
            if not breaks and not line_start and out and not out[-1].endswith(" "):
                out.append(" ")
            continue
        if breaks:
            separate("\n" * breaks)
            breaks = 0
        if kind == "br":
            separate("\n")
        elif kind == "tab":
            separate("\t")
        elif kind == "pre" and value:
            out.append(str(value))
            line_start = str(value).endswith("\n")
        elif kind == "text":
            text = str(value).lstrip(" ") if line_start or (out and out[-1].endswith(" ")) else str(value)
            if text:
                out.append(text)
                line_start = False
    return "".join(out).rstrip(" \n\t").lstrip("\n")


def render_markdown(text: str) -> str:
    """The Markdown's HTML (:func:`whowrote.formats.markdown_parser`: what a site or a chat window renders)."""
    return markdown_parser().render(text)


def markdown_html_roundtrip(text: str) -> str:
    """Render the Markdown to HTML (:func:`render_markdown`) and read the page's text back."""
    return html_text(render_markdown(text))


def html_page(body: str) -> str:
    """A rendered body as the HTML page a site saves."""
    return f"<!doctype html>\n<html><head><title>post</title></head><body>\n{body}</body></html>\n"


def markdown_page(text: str) -> str:
    """The Markdown rendered (:func:`render_markdown`) into an HTML page (:func:`html_page`)."""
    return html_page(render_markdown(text))


def markdown_html_file(text: str) -> str:
    """The Markdown's HTML page (:func:`markdown_page`) read as ``whowrote predict`` reads an ``.html``
    file (:func:`whowrote.style.html_reader.html_to_markdown`: the page's structure back as Markdown)."""
    from whowrote.style.html_reader import html_to_markdown

    return html_to_markdown(markdown_page(text))


def markdown_docx_file(text: str) -> str:
    """The Markdown as a rendered answer pasted into Word (:func:`whowrote.style.docx_writer.markdown_docx`)
    read back as ``whowrote predict`` reads a ``.docx`` (:func:`whowrote.style.docx_reader.docx_to_markdown`)."""
    from whowrote.style.docx_reader import docx_to_markdown
    from whowrote.style.docx_writer import markdown_docx

    return docx_to_markdown(markdown_docx(text))


# ---- length and order -------------------------------------------------------------------------
def first_chars(text: str, n_chars: int = 800) -> str:
    return text[:n_chars]


def first_words(text: str, n: int) -> str:
    """The text up to the end of its ``n``-th whitespace-separated word (formatting kept)."""
    count, inword = 0, False
    for i, ch in enumerate(text):
        if ch.isspace():
            if inword:
                count += 1
                if count >= n:
                    return text[:i]
            inword = False
        else:
            inword = True
    return text


def drop_ends(text: str) -> str:
    """The text without its first and last paragraphs when it has at least three: what a user cuts
    when pasting an assistant's answer elsewhere (the opening "Sure! Here's ..." and the closing "Let
    me know if ..."), or a title and a sign-off. Shorter texts are unchanged: there is nothing to cut
    without cutting the text itself."""
    parts = paragraph_ends(text)
    return text if parts is None else parts[1]


_SENT_END = re.compile(r"(?<=[.!?])\s+")


def split_sentences(text: str) -> list[str]:
    """Sentences with their trailing whitespace kept, so that ``"".join`` gives ``text`` back."""
    pieces, start = [], 0
    for m in _SENT_END.finditer(text):
        pieces.append(text[start : m.end()])
        start = m.end()
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def text_seed(text: str, seed: int) -> int:
    """A seed of its own for each text (``seed`` and the text's CRC-32): a per-text draw that does not
    depend on which other texts are in the batch or their order."""
    import zlib

    return seed * 1_000_003 + zlib.crc32(text.encode("utf-8", "surrogatepass"))


def sent_shuffle(text: str, seed: int = 0) -> str:
    """The same sentences in a shuffled order (seeded by ``seed`` and the text itself)."""
    pieces = split_sentences(text)
    if pieces and not pieces[-1][-1:].isspace():
        pieces[-1] += " "
    import random  # here, not at the top: random pulls in hashlib (OpenSSL), a cost to predict's start-up

    rng = random.Random(text_seed(text, seed))
    rng.shuffle(pieces)
    return "".join(pieces).strip()


# A "- " / "+ " (or "* " / "+ ") bullet at a line's start, indent kept, not a "- - -" ("* * *") rule;
# the lookahead's repeat is anchored on the rule's character, so the scan stays linear.
_DASH_BULLET = re.compile(r"^([ \t]*)[-+](?=[ \t]+(?!(?:-[ \t]*)+$))", re.M)
_STAR_BULLET = re.compile(r"^([ \t]*)[*+](?=[ \t]+(?!(?:\*[ \t]*)+$))", re.M)


def star_bullets(text: str) -> str:
    """Every "- " / "+ " bullet written "* ": the same rendered list, as another editor or
    formatter writes it (the corpus's assistants mostly write "- ")."""
    return _DASH_BULLET.sub(r"\1*", text)


def same_list_markers(text: str) -> str:
    """Every Markdown bullet as "- ", the reverse of :func:`star_bullets`: "*", "+" and "-" render to
    the same list. ``StyleModel(canonical_lists=True)`` reads texts this way; the bundled model does
    not (tried for issue 17 and not adopted, docs/predict-trials.md)."""
    if "* " not in text and "+ " not in text and "*\t" not in text and "+\t" not in text:
        return text
    return _STAR_BULLET.sub(r"\1-", text)


_LINE_BREAKS = re.compile(r"[\r\n]+")  # a run of line breaks of any kind ("\r\n" included)


def single_newlines(text: str) -> str:
    """Paragraphs separated by one line break instead of a blank line, as a word processor's
    plain-text export or some text fields write them (visible, and kept apart by the canonical form)."""
    return _LINE_BREAKS.sub("\n", text)


def one_blank_line(text: str) -> str:
    """Every run of line breaks as one blank line, the reverse of :func:`single_newlines`: a text and
    its single-newline copy read alike. ``StyleModel(canonical_paragraphs=True)`` reads texts this way
    after the canonical form (issue 17 trial, session 31: docs/predict-trials.md)."""
    return _LINE_BREAKS.sub("\n\n", text) if "\n" in text or "\r" in text else text


# A list item's first line: up to 12 spaces or tabs, a bullet or a number, a space, text (anchored
# with match() per line: linear).
_LIST_ITEM = re.compile(r"[ \t]{0,12}(?:[-*+\u2022]|\d{1,9}[.)])[ \t]+\S")


def tight_lists(text: str) -> str:
    """The blank lines between the items of a list removed: a "loose" list read as a tight one, which
    is all a Word or OpenDocument text can keep of it (:func:`markdown_docx_file`).
    ``StyleModel(canonical_list_spacing=True)`` reads texts this way (issue 17 trial, session 51:
    docs/predict-trials.md). A list goes on from an item through indented lines and ends at a
    paragraph that is neither an item nor indented; a blank line before such a paragraph stays, and
    so does one before a top-level item of the other kind (numbers after bullets: another list, as a
    document shows it too)."""
    if "\n\n" not in text:
        return text
    out: list[str] = []
    in_list, blanks, top_numbered = False, 0, False
    for line in text.split("\n"):
        if not line.strip():
            blanks += 1
            continue
        item = _LIST_ITEM.match(line) is not None
        body = line.lstrip(" \t")
        top = item and len(line) - len(body) <= 1  # (a nested item is indented by its parent's marker: 2+)
        if blanks:
            if not (in_list and item and (not top or body[0].isdigit() == top_numbered)):
                out.extend([""] * blanks)
                if not item and line[:1] not in (" ", "\t"):
                    in_list = False  # a new paragraph outside the list
            blanks = 0
        out.append(line)
        in_list = in_list or item
        if top:
            top_numbered = body[0].isdigit()
    out.extend([""] * blanks)
    return "\n".join(out)


def combined(text: str, seed: int = 0) -> str:
    """All of the content-keeping edits at once: Markdown stripped, ASCII, lower case, shuffled."""
    return sent_shuffle(lower(to_ascii(strip_markdown(text))), seed=seed)


def edits(seed: int = 0) -> dict[str, Callable[[str], str]]:
    """The robustness suite's edits by name, in report order (``raw`` first)."""
    return {
        "raw": lambda t: t,
        "to_ascii": to_ascii,
        "smart_quotes": smart_quotes,
        "crlf": crlf,
        "strip_markdown": strip_markdown,
        "markdown_html": markdown_html_roundtrip,
        "html_file": markdown_html_file,
        "docx_file": markdown_docx_file,
        "star_bullets": star_bullets,
        "single_newlines": single_newlines,
        "hard_wrap": hard_wrap,
        "lower": lower,
        "first_800_chars": first_chars,
        "first_300_words": lambda t: first_words(t, 300),
        "drop_ends": drop_ends,
        "sent_shuffle": lambda t: sent_shuffle(t, seed=seed),
        "combined": lambda t: combined(t, seed=seed),
    }
