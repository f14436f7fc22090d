"""How the lines of a PDF's pages become Markdown (:func:`layout_markdown`): the page furniture
left out, the body's type size, line pitch, left edge and character width measured, then lines
grouped into blocks by gaps, indents, type size and fonts, and written through the office readers'
block writer (:mod:`whowrote.style.office_xml`). Geometry only: :mod:`whowrote.style.pdf_reader`
reads the lines out of the file.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise
from statistics import median

from whowrote.style.office_xml import Block, Run, fence_code, inline_markdown, join_blocks, table_blocks

PAGE_NUMBER = re.compile(r"(?i)(page\s*)?\d{1,4}(\s*(/|of)\s*\d{1,4})?")
UNSPACED_BREAK = re.compile(r"\S[-\u2013\u2014/]$")  # a line broken after a hyphen, dash or slash in a word
HEADING = 1.12  # type this much larger than the body's is a heading
SENTENCE_END = re.compile(r"[.!?:;][\"'”’)\]]*$")


@dataclass
class Span:
    text: str
    x: float
    y: float
    size: float
    bold: bool
    italic: bool
    mono: bool
    link: str | None = None


@dataclass
class Line:
    page: int
    spans: list[Span] = field(default_factory=list)
    marker: str | None = None  # "-" for a bullet, "3." for a number label
    marker_x: float = 0.0
    table: list[int] | None = None  # a table's column starts, when the line is one of its rows
    rule_above: bool = False  # a rule (``---``) is drawn between this line and the one before

    @property
    def x(self) -> float:
        return self.spans[0].x

    @property
    def y(self) -> float:
        return self.spans[0].y

    @property
    def size(self) -> float:
        sizes = Counter[float]()
        for s in self.spans:
            sizes[round(s.size, 1)] += len(s.text.strip())
        return sizes.most_common(1)[0][0]

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.spans).strip()

    @property
    def mono(self) -> bool:
        return all(s.mono for s in self.spans if s.text.strip())


def drop_furniture(pages: list[list[Line]], body: float) -> None:
    """Leave out page headers and footers: a page number alone, small type above or below all of a
    page's body text, or a line (digits aside) that tops or ends most pages set apart from the text
    (a gap of more than 1.5 lines: a running header sits in the margin, a body line abuts its
    neighbours)."""
    def key(line: Line) -> str:
        return re.sub(r"\d+", "#", line.text)

    def apart(lines: list[Line], i: int) -> bool:
        near = lines[i + 1] if i < 2 and i + 1 < len(lines) else lines[i - 1] if i >= 2 else None
        return near is None or abs(near.y - lines[i].y) > 1.5 * max(near.size, lines[i].size)

    repeated: Counter[str] = Counter()
    for lines in pages:
        repeated.update({key(line) for line in lines[:2] + lines[-2:]})
    many = max(2, (len(pages) + 1) // 2) if len(pages) >= 3 else None
    for lines in pages:
        body_ys = [line.y for line in lines if abs(line.size - body) < 0.5]
        top, bottom = (max(body_ys), min(body_ys)) if body_ys else (float("inf"), float("-inf"))
        keep = []
        for i, line in enumerate(lines):
            edge = i < 2 or i >= len(lines) - 2
            small_outside = line.size < 0.9 * body and (line.y > top + 1 or line.y < bottom - 1)
            if edge and (PAGE_NUMBER.fullmatch(line.text) or small_outside
                         or (many is not None and repeated[key(line)] >= many and apart(lines, i))):
                continue
            keep.append(line)
        lines[:] = keep


@dataclass
class Layout:
    """What a document's body text measures: type size, line pitch, left edge, and how wide a
    character is (points per point of type size, from the characters a full body line holds
    between the left edge and a right edge as far in from the page's side as the left one)."""
    body: float
    pitch: float
    left: float
    right: float
    char_width: float | None  # None: too few full lines to measure

    def room(self, line: Line, after: Line) -> float | None:
        """How much of ``line``'s width the line plus the next line's first word take: < 1 means
        the word would have fit, so the line ended before the margin (the text broke there)."""
        if self.char_width is None or self.right - line.x < 4 * line.size:
            return None
        chars = len(line.text) + 1 + len(after.text.split(" ", 1)[0])
        return chars * self.char_width * line.size / (self.right - line.x)


def _indented(group: list[Line], left: float, body: float) -> bool:
    """A paragraph set in from the body's left edge (a quote): all its lines, not only its first (a
    paragraph's first-line indent, as LaTeX sets every paragraph, is about one em; a one-line
    paragraph is a quote when set in further than that)."""
    if len(group) == 1:
        return group[0].x - left > 1.5 * body
    return min(line.x for line in group) - left > body


def measure(lines: list[Line], body: float, page_width: float) -> Layout:
    """The :class:`Layout` of the lines whose body type is ``body`` points, on pages ``page_width`` wide."""
    gaps = [a.y - b.y for a, b in pairwise(lines)
            if a.page == b.page and abs(a.size - body) < 0.5 and abs(b.size - body) < 0.5 and 0 < a.y - b.y < 2.2 * body]
    # the line pitch is the smallest common gap (a short answer's gaps are mostly between paragraphs)
    low = sorted(gaps)[len(gaps) // 10] if gaps else 1.2 * body
    pitch = median(g for g in gaps if g <= 1.15 * low) if gaps else low
    xs = Counter(round(line.x) for line in lines if abs(line.size - body) < 0.5 and not line.marker and not line.mono)
    left = float(xs.most_common(1)[0][0]) if xs else 0.0
    right = page_width - left
    full = [len(a.text) for a, b in pairwise(lines)  # a body line followed closely by another at the left edge wrapped
            if a.page == b.page and a.size == b.size == body and round(a.x) == round(b.x) == round(left)
            and 0 < a.y - b.y < 1.3 * pitch and not a.mono and not b.marker]
    char_width = (right - left) / median(full) / body if len(full) >= 3 and right > left else None
    return Layout(body, pitch, left, right, char_width)


def _inline(lines: list[Line], layout: Layout, marks: bool = True) -> str:
    """Lines as one Markdown paragraph: a line that wrapped joined to the next by a space (none
    after a hyphen or dash the line broke at), a line that ended short by a line break;
    ``marks=False``: no bold or italic (a heading's type is its style's)."""
    runs: list[Run] = []
    for i, line in enumerate(lines):
        if i:
            before = lines[i - 1]
            last = runs[-1]
            room = layout.room(before, line)
            joiner = ("\n" if room is not None and room < 0.8 else
                      "" if UNSPACED_BREAK.search(before.text) and line.text[:1].isalnum() or line.text.startswith("\u2014")
                      else " ")
            first = line.spans[0]
            same = (last[1], last[2], last[3], last[4]) == (first.bold and marks, first.italic and marks, first.mono, first.link)
            runs.append((joiner, *last[1:]) if same and joiner != "\n" else (joiner, False, False, False, None))
        for j, s in enumerate(line.spans):
            text = s.text.lstrip() if j == 0 else s.text
            text = text.rstrip() if j == len(line.spans) - 1 else text
            if j and text.startswith(" ") and (runs[-1][0].endswith(" ") or line.spans[j - 1].mono and not s.mono):
                # a space for the gap an inline code's padding leaves: one at most, none before punctuation
                text = text.lstrip(" ")
                text = text if text[:1] in ".,;:!?)]" or runs[-1][0].endswith(" ") else " " + text
            runs.append((text, s.bold and marks, s.italic and marks, s.mono, s.link))
    return inline_markdown(runs, code_line=False)


def mark_tables(lines: list[Line], body: float) -> None:
    """Mark runs of lines whose text starts at column positions shared by two or more of them (a
    table's cells; a header centred in its cells falls in the column it starts in): each line of
    such a run gets ``table`` (the run's column starts)."""
    def starts(line: Line) -> set[int]:
        return {round(s.x) for s in line.spans if s.text.strip()}

    i = 0
    while i < len(lines):
        j = i
        while (j < len(lines) and not lines[j].mono and not lines[j].marker and len(starts(lines[j])) >= 2
               and (j == i or lines[j].page != lines[j - 1].page or lines[j - 1].y - lines[j].y < 3 * body)):
            j += 1
        if j - i >= 2:
            counts = Counter(x for line in lines[i:j] for x in starts(line))
            cols = sorted(x for x, n in counts.items() if n >= max(2, 0.6 * (j - i)))
            # a paragraph's styled words can start two lines at one position by chance, rarely
            # three, and then other words start elsewhere
            strong = any(counts[x] >= 3 for x in cols[1:]) or set(counts) == set(cols)
            if len(cols) >= 2 and strong:
                for line in lines[i:j]:
                    line.table = cols
        i = max(j, i + 1)


def _table_rows(lines: list[Line]) -> list[list[str]]:
    """A table's lines as rows of cell texts; a line that starts right of the first column
    continues the row above (a cell's text wrapped)."""
    cols = lines[0].table
    rows: list[list[list[Span]]] = []
    for line in lines:
        cells: list[list[Span]] = [[] for _ in cols]
        for s in line.spans:
            cells[max(0, sum(1 for x in cols if x <= s.x + 1) - 1)].append(s)
        if rows and not cells[0]:
            for old, new in zip(rows[-1], cells, strict=True):
                old.extend(new)
        else:
            rows.append(cells)
    out = []
    for i, row in enumerate(rows):
        header = i == 0 and all(s.bold for cell in row for s in cell if s.text.strip())
        out.append([inline_markdown([(s.text, s.bold and not header, s.italic, s.mono, s.link) for s in cell],
                                    code_line=False).strip() for cell in row])
    return out


def _heading_level(size: float, body: float) -> int:
    ratio = size / body  # a browser's h1 2.0x, h2 1.5x, h3 1.17x the body
    return 1 if ratio >= 1.75 else 2 if ratio >= 1.33 else 3


def line_blocks(lines: list[Line], layout: Layout) -> list[Block]:
    """Lines grouped into blocks and written as Markdown blocks."""
    body, pitch, left = layout.body, layout.pitch, layout.left
    out: list[Block] = []
    group: list[Line] = []
    kind = ""
    code_lines: list[Line | None] = []  # None: a blank line
    list_xs: list[float] = []  # marker x of each list depth in the current list
    spaced = False

    def kind_of(line: Line) -> str:
        if line.mono:
            return "code"
        if line.marker:
            return "item"
        if line.table:
            return "row"
        return "heading" if line.size >= HEADING * body else "text"

    def flush() -> None:
        nonlocal group, spaced
        if not group:
            return
        first = group[0]
        if kind == "heading":
            text = _inline(group, layout, marks=False).replace("\n", " ").strip()
            out.append(Block("para", "#" * _heading_level(first.size, body) + " " + text))
        elif kind == "item":
            depth = next((i for i, x in enumerate(list_xs) if abs(x - first.marker_x) < 0.6 * body), None)
            if depth is None:
                list_xs[:] = [x for x in list_xs if x < first.marker_x] + [first.marker_x]
                depth = len(list_xs) - 1
            else:
                del list_xs[depth + 1:]
            bullet = first.marker == "-"
            out.append(Block("item", f"{'   ' * depth}{first.marker} {_inline(group, layout)}", (depth, bullet), spaced))
        elif kind == "row":
            out.extend(table_blocks(_table_rows(group), object()))
        elif kind == "code":
            out.extend(Block("code", text) for text in _code_text(code_lines))
        else:
            text = _inline(group, layout)
            out.append(Block("para", "> " + text.replace("\n", "\n> ") if _indented(group, left, body) else text))
        if kind != "item" and not (kind == "text" and first.x - left > body and list_xs):
            list_xs.clear()
        group, spaced = [], False
        code_lines.clear()

    prev: Line | None = None
    for line in lines:
        k = kind_of(line)
        gap = prev.y - line.y if prev is not None and prev.page == line.page else None
        wide = gap is not None and gap > 1.3 * pitch * max(line.size, prev.size) / body  # type: ignore[union-attr]
        if prev is None:
            new = True
        elif k == "row" and kind == "row":
            new = line.table is not prev.table
        elif k == "code" and kind == "code":
            new = False
            blank = round(gap / (pitch * line.size / body)) - 1 if gap is not None else 0
            code_lines.extend([None] * max(0, min(blank, 3)))
        elif gap is None:  # a new page: a paragraph or item continues when its last line did not end short
            # a line with room to spare ended its paragraph; one that ends a sentence, unless it is
            # clearly full (a line's characters vary in width: on 200 printed corpus texts, 1.06
            # parted the wrapped lines from the ended ones best)
            room = layout.room(prev, line)
            ended = (room is not None and room < 0.8) or (SENTENCE_END.search(prev.text) and (room is None or room < 1.06))
            new = not (k == "text" and kind in ("text", "item") and abs(line.x - group[-1].x) < 0.6 * body
                       and not ended)
        elif k == "item" or wide or (k != kind and not (k == "text" and kind == "item")):
            new = True
        else:
            # (a paragraph's first line may be indented; its second starts left of it)
            new = abs(line.x - group[-1].x) > 0.6 * body and not (kind == "text" and len(group) == 1 and line.x < group[0].x)
        if line.rule_above:
            new = True
        if new:
            flush()
            if line.rule_above:
                out.append(Block("para", "---"))
            spaced = k == "item" and bool(out) and out[-1].kind == "item" and wide
            kind = k
        group.append(line)
        if k == "code":
            code_lines.append(line)
        prev = line
    flush()
    return out


def _code_text(lines: list[Line | None]) -> list[str]:
    """Code lines as written; an indent the PDF made by position, not by spaces, as spaces (a
    monospaced glyph is ~0.6 of the type size wide)."""
    left = min(line.x for line in lines if line is not None)
    out = []
    for line in lines:
        if line is None:
            out.append("")
            continue
        text = "".join(s.text for s in line.spans).rstrip()
        indent = round((line.x - left) / (0.6 * line.size)) if not text.startswith(" ") else 0
        out.append(" " * indent + text)
    return out


def mark_rules(lines: list[Line], rules: list[float], body: float) -> None:
    """A rule across the text (a Markdown ``---``) marks the line below it; one that borders a
    table's rows or a code block, or underlines a heading (a style sheet's border), adds none."""
    for y in rules:
        below = [line for line in lines if line.y < y]
        above = [line for line in lines if line.y >= y]
        line = max(below, key=lambda line: line.y) if below else None
        heading = min(above, key=lambda line: line.y) if above else None
        if heading is not None and heading.size >= HEADING * body and heading.y - y < 1.2 * heading.size:
            continue
        if line is not None and not line.table and not (line.mono and y - line.y < 2 * line.size):
            line.rule_above = True


def layout_markdown(pages: list[list[Line]], rules: list[list[float]], page_width: float) -> str:
    """The pages' lines (and each page's rule heights) as Markdown; "" when there is no text."""
    sizes = Counter[float]()
    for line in (line for page in pages for line in page):
        sizes[line.size] += len(line.text) * (1 if line.mono else 100)  # (the body is prose, unless all is code)
    if not sizes:
        return ""
    body = sizes.most_common(1)[0][0]
    drop_furniture(pages, body)
    lines = [line for page in pages for line in page]
    mark_tables(lines, body)
    for page, page_rules in zip(pages, rules, strict=True):
        mark_rules(page, page_rules, body)
    return join_blocks(fence_code(line_blocks(lines, measure(lines, body, page_width))))
