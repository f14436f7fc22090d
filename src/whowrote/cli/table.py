"""``whowrote predict``'s human-readable table, drawn with the standard library (no rich).

Start-up is part of the product: importing rich costs ~0.1 s, more than attributing one text.
The table keeps rich's look (a heavy header box, one line between the rows when tells are shown,
cells wrapped at word boundaries and long words folded) and fits the terminal's width
(``shutil.get_terminal_size``: ``COLUMNS``, else the terminal, else 80 columns, as rich does).
The provider is coloured only on a terminal, unless ``NO_COLOR`` is set. Control characters in a
cell (a file name can hold any) are shown as ``?``, so no escape sequence reaches the terminal.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from typing import IO

# 24-bit colours of the providers (rich's "grey62" for OTHER), and the warning / "uncertain" styles.
COLOURS = {"CLAUDE": (217, 119, 6), "CHATGPT": (16, 163, 127), "GEMINI": (66, 133, 244), "OTHER": (158, 158, 158)}
_YELLOW, _RESET = "\x1b[33m", "\x1b[0m"
# Columns that are never narrowed (short values); the others share what is left.
_FIXED = frozenset({"provider", "p", "words"})
MIN_WIDTH = 8
# Every C0 control character and DEL -> "?" ("\n" too: callers split lines before cleaning).
_CONTROL = {c: "?" for c in [*range(32), 127]}


def _clean(text: str) -> str:
    return text.translate(_CONTROL)


def _width(text: str) -> int:
    """Terminal columns of ``text``: wide (East Asian) characters take two."""
    if text.isascii():
        return len(text)
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _wrap(cell: str, width: int, styles: list[str]) -> list[tuple[str, str]]:
    """``cell``'s lines wrapped at word boundaries to ``width`` columns (longer words folded),
    each piece with the style of the line it came from (``styles[k]`` for line k, "" if none)."""
    out: list[tuple[str, str]] = []
    for k, line in enumerate(cell.split("\n")):
        style = styles[k] if k < len(styles) else ""
        line = _clean(line)
        wrapped = textwrap.wrap(line, width, break_on_hyphens=False) if _width(line) > width else [line]
        for piece in wrapped or [""]:
            while _width(piece) > width:  # wide characters: fold by columns, not characters
                cut = width
                while cut > 1 and _width(piece[:cut]) > width:
                    cut -= 1
                out.append((piece[:cut], style))
                piece = piece[cut:]
            out.append((piece, style))
    return out


def column_widths(header: list[str], rows: list[list[str]], total: int) -> list[int]:
    """Content widths of the columns: their widest line, the widest columns narrowed (the fixed
    ones never) until the table with its borders and padding fits ``total`` columns."""
    natural = [max([_width(header[j])] + [_width(_clean(line)) for r in rows for line in r[j].split("\n")])
               for j in range(len(header))]
    widths = list(natural)
    room = total - (3 * len(header) + 1)  # "│ " + " │ " between + " │"
    while sum(widths) > room:
        free = [j for j in range(len(widths)) if header[j] not in _FIXED and widths[j] > MIN_WIDTH]
        if not free:
            break
        widest = max(free, key=lambda j: widths[j])
        widths[widest] -= 1
    return widths


def render(header: list[str], rows: list[list[str]], styles: list[list[list[str]]] | None = None,
           lines_between: bool = False, total: int = 80) -> str:
    """The table as text. ``styles[i][j][k]``: an ANSI prefix for line k of cell ``(i, j)`` ("" or
    missing: none); the padding stays outside it, so the columns line up either way."""
    widths = column_widths(header, rows, total)

    def rule(left: str, fill: str, mid: str, right: str) -> str:
        return left + mid.join(fill * (w + 2) for w in widths) + right

    def body(cells: list[list[tuple[str, str]]], bar: str) -> list[str]:
        out = []
        for k in range(max(len(c) for c in cells)):
            parts = []
            for j, c in enumerate(cells):
                text, style = c[k] if k < len(c) else ("", "")
                pad = " " * (widths[j] - _width(text))
                parts.append((style + text + _RESET if style and text else text) + pad)
            out.append(bar + " " + f" {bar} ".join(parts) + " " + bar)
        return out

    out = [rule("┏", "━", "┳", "┓"), *body([[(h, "")] for h in header], "┃"), rule("┡", "━", "╇", "┩")]
    for i, r in enumerate(rows):
        if i and lines_between:
            out.append(rule("├", "─", "┼", "┤"))
        cell_styles = styles[i] if styles else [[]] * len(r)
        out += body([_wrap(c, w, st) for c, w, st in zip(r, widths, cell_styles, strict=True)], "│")
    out.append(rule("└", "─", "┴", "┘"))
    return "\n".join(out) + "\n"


def use_colour(stream: IO[str]) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def print_records(records: list[dict], explain: int, stream: IO[str] | None = None) -> None:
    """``whowrote predict``'s table of ``records`` (its ``--json`` records) on ``stream``."""
    stream = stream or sys.stdout
    colour = use_colour(stream)
    header = ["text", "provider", "p", "words", "why" if explain > 0 else "notes"]
    rows, styles = [], []
    for r in records:
        tells = [t["sentence"] + (" [fragile]" if _marked_fragile(t) else "") for t in r["tells"][:explain]]
        warns = [f"! {w}" for w in r["warnings"]]
        # uncertain first: its label is a lean, not a verdict (most texts by people get one, see docs/predict.md)
        verdict = f"uncertain\n(leans {r['provider']})" if r["uncertain"] else r["provider"]
        p, words = f"{r['probabilities'][r['provider']]:.2f}", str(r["n_words"])
        if r.get("error"):  # (its record keeps the schema, uniform probabilities; the table shows nothing was read)
            verdict, p, words = "not read", "–", "–"
        rows.append([_clean(r["path"]), verdict, p, words, "\n".join(tells + warns)])
        rgb = None if r["uncertain"] else COLOURS.get(r["provider"])
        provider = "\x1b[38;2;{};{};{}m".format(*rgb) if colour and rgb else ""
        styles.append([[], [provider], [], [], [""] * len(tells) + [_YELLOW if colour else ""] * len(warns)])
    total = shutil.get_terminal_size((80, 24)).columns
    stream.write(render(header, rows, styles, lines_between=explain > 0, total=total))
    if any(_marked_fragile(t) for r in records for t in r["tells"][:explain]):
        stream.write(textwrap.fill("[fragile]: an everyday edit (pasting as plain text or into Word, re-rendering the Markdown, "
                                   "cutting the opening and closing paragraphs) can erase or move this tell",
                                   width=max(total, 40)) + "\n")


def _marked_fragile(tell: dict) -> bool:
    """A fragile tell the table marks (typography tells already say so in their sentence)."""
    return bool(tell.get("fragile")) and "not used for the verdict" not in tell.get("sentence", "")
