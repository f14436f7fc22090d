"""A PDF read as the Markdown its layout shows: headings (larger type), list items (a bullet drawn
or set as a glyph, or a number label), a blank line between items that a gap separates, quotes
(indented text), code (a monospaced font, its blank lines from the gaps), tables, rules, bold,
italic and inline code (font names), links (link annotations), paragraphs (vertical gaps) joined
across pages, a line that ends short of the margin as a line break; page headers and footers
(repeated lines, page numbers, small type outside the text) left out.

A PDF stores positioned glyphs, not paragraphs. pypdf (``PdfReader``, its ``extract_text``
visitors) gives each run of text with its font and matrices, and each path painted; this module
reads them into lines (with their list markers) and the page's rules, and
:mod:`whowrote.style.pdf_layout` lays the lines out as Markdown. Tables are text whose cells start
at columns that several rows share. Untrusted files: pypdf's own inflate limits (75 MB a stream),
at most :data:`MAX_PAGES` pages, at most :data:`MAX_SHAPES` shapes matched on a page and the first
:data:`MAX_ANNOTS` annotations of a page read, every failure one line (:class:`DocumentError`).
"""

from __future__ import annotations

import bisect
import io
import logging
import re
from pathlib import Path

from whowrote.style.office_xml import DocumentError, is_mono
from whowrote.style.pdf_layout import Line, Span, layout_markdown

MAX_PAGES = 200  # a 3,000-word text is ~10 pages; a book is read for its first 200
MAX_SHAPES = 2000  # small shapes or rules on one page: more is a drawing (and would make matching them to lines slow)
MAX_ANNOTS = 500  # a page's annotations read for links (a dense web page has ~300); each is matched to the spans it covers
# \uf0..: the Symbol and Wingdings bullets Word writes; \x7f: a bullet whose font maps it to no letter (ReportLab's)
BULLETS = frozenset("•◦▪▫■□●○‣⁃∙·–-*o§\uf0b7\uf0a7\uf076\uf0d8\uf0fc\x7f")
NUMBER_LABEL = re.compile(r"(\d{1,3}|[a-zA-Z]|[ivxlcdm]{1,6})[.)]")
# ligature glyphs as their letters; a NUL (a glyph the PDF maps to no character) as U+FFFD
LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st", "\x00": "\ufffd"})
PAINT = frozenset((b"f", b"F", b"f*", b"S", b"s", b"B", b"B*", b"b", b"b*"))
BOLD = ("bold", "black", "heavy", "semibold", "demi")


def _apply(m: list[float], x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


# what a malformed font descriptor or annotation raises (it is read past, not a reason to refuse the file)
MALFORMED = (AttributeError, IndexError, KeyError, TypeError, ValueError)


def _font_style(font: dict | None) -> tuple[bool, bool, bool]:
    """(bold, italic, monospaced) from the font's name and descriptor (the name alone when the
    descriptor is malformed)."""
    if not font:
        return False, False, False
    name = str(font.get("/BaseFont", "")).split("+")[-1].lower()
    bold, italic, mono = any(b in name for b in BOLD), "italic" in name or "oblique" in name, is_mono(name)
    try:
        desc = font.get("/FontDescriptor")
        if desc is None and "/DescendantFonts" in font:
            desc = font["/DescendantFonts"][0].get_object().get("/FontDescriptor")
        desc = desc.get_object() if desc is not None else {}
        flags = int(desc.get("/Flags", 0) or 0)
        bold = bold or float(desc.get("/FontWeight", 400) or 400) >= 600 or bool(flags & (1 << 18))
        italic = italic or float(desc.get("/ItalicAngle", 0) or 0) != 0
        mono = mono or bool(flags & 1)
    except MALFORMED:
        pass
    return bold, italic, mono


def _links(page) -> list[tuple[float, float, float, float, str]]:
    """The page's link annotations with a URI, as (x1, y1, x2, y2, uri); a malformed one is skipped."""
    out = []
    try:
        annots = list(page.get("/Annots") or [])[:MAX_ANNOTS]
    except MALFORMED:
        return out
    for ref in annots:
        try:
            annot = ref.get_object()
            action = annot.get("/A")
            action = action.get_object() if action is not None else {}
            if annot.get("/Subtype") == "/Link" and "/URI" in action and "/Rect" in annot:
                x1, y1, x2, y2 = (float(v) for v in annot["/Rect"])
                out.append((min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2), str(action["/URI"])))
        except MALFORMED:
            continue
    return out


def _page_lines(page, number: int) -> tuple[list[Line], list[float]]:
    """A page's lines in content order, with their list markers (:func:`_mark_lists`, from the
    small square-ish shapes painted on the page too: bullets drawn as paths), and the heights of
    long thin bars (rules)."""
    lines = [Line(number)]
    shapes: list[tuple[float, float, float]] = []
    rules: list[float] = []
    width = float(page.mediabox.width)
    path: list[tuple[float, float]] = []

    def text(chunk: str, cm: list[float], tm: list[float], font: dict | None, size: float) -> None:
        x, y = _apply(cm, tm[4], tm[5])
        scale = abs((tm[0] * tm[3] - tm[1] * tm[2]) * (cm[0] * cm[3] - cm[1] * cm[2])) ** 0.5
        style = _font_style(font)
        for i, part in enumerate(chunk.split("\n")):
            if i:
                lines.append(Line(number))
            if part:
                lines[-1].spans.append(Span(part.translate(LIGATURES), x, y, size * scale, *style))

    def operator(op: bytes, args: list, cm: list[float], tm: list[float]) -> None:
        if op in (b"m", b"l", b"c", b"v", b"y"):
            nums = [float(a) for a in args]
            path.extend(_apply(cm, nums[i], nums[i + 1]) for i in range(0, len(nums) - 1, 2))
        elif op == b"re":
            x, y, w, h = (float(a) for a in args)
            path.extend((_apply(cm, x, y), _apply(cm, x + w, y + h)))
        elif op in PAINT or op == b"n":
            if op != b"n" and path:
                xs, ys = [p[0] for p in path], [p[1] for p in path]
                w, h = max(xs) - min(xs), max(ys) - min(ys)
                if 1.0 <= w <= 12.0 and 0.6 <= w / max(h, 1e-6) <= 1.6 and len(shapes) <= MAX_SHAPES:
                    shapes.append(((max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2, w))
                elif w >= 0.4 * width and h <= 3.0 and len(rules) <= MAX_SHAPES:
                    rules.append((max(ys) + min(ys)) / 2)
            path.clear()

    page.extract_text(visitor_text=text, visitor_operand_before=operator)
    lines = _same_baseline([line for line in lines if line.text])
    if len(shapes) > MAX_SHAPES:  # a drawing, not a list's bullets
        shapes.clear()
    if len(rules) > MAX_SHAPES:
        rules.clear()
    _mark_lists(lines, shapes)
    _set_links(lines, _links(page))
    return lines, rules


def _set_links(lines: list[Line], links: list[tuple[float, float, float, float, str]]) -> None:
    """Each span's link: the last annotation whose rectangle holds the span's start (its x, a third
    of the way up its type); the spans sorted by that height, so a link looks only at its own band."""
    if not links:
        return
    spans = sorted((s for line in lines for s in line.spans), key=lambda s: s.y + 0.3 * s.size)
    heights = [s.y + 0.3 * s.size for s in spans]
    for x1, y1, x2, y2, uri in links:
        for s in spans[bisect.bisect_left(heights, y1 - 1):bisect.bisect_right(heights, y2 + 1)]:
            if x1 - 1 <= s.x < x2 - 1:
                s.link = uri


def _same_baseline(lines: list[Line]) -> list[Line]:
    """Runs pypdf split into lines that share a baseline, the later to the right (a bullet set in
    its own size and then its item's text), as one line."""
    out: list[Line] = []
    for line in lines:
        prev = out[-1] if out else None
        if prev is not None and abs(prev.y - line.y) < 0.5 * min(prev.size, line.size) and line.x > prev.spans[-1].x:
            prev.spans.extend(line.spans)
        else:
            out.append(line)
    return out


def _mark_lists(lines: list[Line], shapes: list[tuple[float, float, float]]) -> None:
    """Set each line's list marker: a bullet or number as its own first span, or a shape just left
    of the line at its height."""
    for line in lines:
        first = line.spans[0].text.strip()
        rest = "".join(s.text for s in line.spans[1:]).strip()
        if rest and (first in BULLETS or NUMBER_LABEL.fullmatch(first)):
            line.marker = "-" if first in BULLETS else first[:-1] + "."
            line.marker_x = line.spans[0].x
            line.spans = line.spans[1:]
            while not line.spans[0].text.strip():  # (a tab after the marker)
                line.spans.pop(0)
            line.spans[0].text = line.spans[0].text.lstrip()
            continue
        size = line.size
        for cx, cy, w in shapes:
            if w <= 0.6 * size and line.x - 2.5 * size <= cx < line.x and line.y - 0.2 * size <= cy <= line.y + 0.8 * size:
                line.marker, line.marker_x = "-", cx
                break


def pdf_markdown(source: bytes | str | Path) -> tuple[str, int]:
    """A PDF (its bytes or its path) as Markdown (of its first :data:`MAX_PAGES` pages), and its
    number of pages; :class:`DocumentError` for an encrypted, broken or text-less one."""
    from pypdf import PdfReader

    quiet = logging.getLogger("pypdf")  # a broken file's repairs are pypdf's warnings, not the user's news
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:  # pypdf raises many kinds of error on a broken file; each becomes one line
        reader = PdfReader(io.BytesIO(source) if isinstance(source, bytes) else source)
        if reader.is_encrypted and not reader.decrypt(""):
            raise DocumentError("an encrypted PDF (open it and save an unprotected copy)")
        pages = []
        rules = []
        n_pages = len(reader.pages)
        page_width = float(reader.pages[0].mediabox.right) if n_pages else 0.0
        for number, page in enumerate(reader.pages[:MAX_PAGES]):
            lines, page_rules = _page_lines(page, number)
            pages.append(lines)
            rules.append(page_rules)
    except DocumentError:
        raise
    except Exception as e:  # noqa: BLE001 - an untrusted file: any parser failure is a reason, not a traceback
        raise DocumentError(f"a PDF that cannot be read ({type(e).__name__}: {str(e)[:120]})") from None
    finally:
        quiet.setLevel(level)
    text = layout_markdown(pages, rules, page_width)
    if not text.strip():
        raise DocumentError("a PDF with no text to read (a scanned image? run OCR on it first)")
    return text, n_pages
