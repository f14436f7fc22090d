"""The research spec's 41 stylometric features (§5.1), computed fast and exactly.

Speed comes from replacing per-word Python loops and one-regex-per-feature passes by a few
C-level passes over the UTF-8 bytes: one ``numpy.bincount`` gives every single-byte count
(punctuation, digits, upper case, letters), ``bytes.translate`` maps the text onto small
alphabets whose runs are counted with ``bytes.count`` (words, sentences, ASCII-art runs), and
only the handful of anchored patterns use regexes that start with a literal (so ``re`` can skip
ahead). Non-ASCII characters (curly quotes, em-dashes, accented letters) are pulled out into a
short string once and handled there. Results equal the spec's regex definitions; the test suite
checks this against a slow, literal implementation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from whowrote.style.specs import RESEARCH41, RESEARCH_WORDS

NAMES: tuple[str, ...] = tuple(s.name for s in RESEARCH41)

_ASCII = bytes(range(128))
_ASCII_WS = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"  # what str.strip() removes, ASCII part


def _table(fn) -> bytes:
    return bytes(fn(c) for c in range(256))


def _is_letter(c: int) -> bool:
    return 65 <= c <= 90 or 97 <= c <= 122


# [A-Za-z']+ words, lower-cased; everything else becomes a space.
WORD_TABLE = _table(lambda c: (c | 32) if _is_letter(c) else (39 if c == 39 else 32))
# \b-word alphabet for the 16 vocabulary words: letters lower-cased, digits and '_' stay word
# characters, everything else (apostrophe, punctuation, non-ASCII bytes) is a boundary.
BOUNDARY_TABLE = _table(lambda c: (c | 32) if _is_letter(c) else (48 if 48 <= c <= 57 else (95 if c == 95 else 32)))
# Sentence alphabet: '.', '!', '?' -> '.', any other non-space byte -> 'x' (spaces deleted).
SENT_TABLE = _table(lambda c: 46 if c in (33, 46, 63) else 120)
ART_TABLE = _table(lambda c: 97 if chr(c) in "+|\\/_=^<>" else 32)

_LINE_RE = re.compile(r"\n(?:(#) |(#{2,3}) |(>) |[^\S\n]*(?:([-*])|(\d+\.)) )")
_I_RE = re.compile(r"I\b")
_WE_RE = re.compile(r"[Ww]e\b")
_BOX_RE = re.compile("[\u2500-\u257f]")
_UNICODE_WS_RE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_NONASCII_WORD_RE = re.compile(r"[^\W\x00-\x7f]")


def _vocab_regex() -> re.Pattern[bytes]:
    # A first-letter trie keeps the alternation cheap: re tries it only at word starts (" ").
    groups: dict[str, list[str]] = {}
    for w in RESEARCH_WORDS:
        groups.setdefault(w[0], []).append(re.escape(w[1:]))
    alts = "|".join(f"{k}(?:{'|'.join(v)})" for k, v in groups.items())
    return re.compile(f" ({alts})(?= )".encode())


_VOCAB_RE = _vocab_regex()
_VOCAB_INDEX = {w.encode(): i for i, w in enumerate(RESEARCH_WORDS)}


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def _bounded_count(regex: re.Pattern[str], text: str) -> int:
    """Matches of ``regex`` (which ends in \\b) that also have a word boundary before them."""
    n = 0
    for m in regex.finditer(text):
        s = m.start()
        if s == 0 or not _is_word_char(text[s - 1]):
            n += 1
    return n


@dataclass
class Scan:
    """One pass over a text: counts shared by the research and the richer feature sets."""

    text: str
    raw: bytes
    counts: list[int]  # occurrences of each byte value 0..255
    nonascii: str  # the non-ASCII characters, in order
    tokens: list[bytes]  # [A-Za-z']+ words, lower-cased
    n_sentences: int
    line_kinds: list[int] = field(default_factory=list)  # _LINE_RE group index per matched line

    @property
    def n_char(self) -> int:
        return max(len(self.text), 1)

    @property
    def n_words(self) -> int:
        return max(len(self.tokens), 1)


def scan(text: str) -> Scan:
    raw = text.encode("utf-8", "surrogatepass")
    counts = np.bincount(np.frombuffer(raw, np.uint8), minlength=256).tolist()
    nonascii = raw.translate(None, _ASCII).decode("utf-8", "surrogatepass") if len(raw) != len(text) else ""
    tokens = raw.translate(WORD_TABLE).split()
    sent_src = raw
    if nonascii and _UNICODE_WS_RE.search(nonascii):  # str.strip() also drops Unicode spaces
        sent_src = _UNICODE_WS_RE.sub(" ", text).encode("utf-8", "surrogatepass")
    sb = sent_src.translate(SENT_TABLE, _ASCII_WS)
    n_sent = sb.count(b".x") + (1 if sb[:1] == b"x" else 0)
    line_kinds = [m.lastindex or 0 for m in _LINE_RE.finditer("\n" + text)]
    return Scan(text, raw, counts, nonascii, tokens, n_sent, line_kinds)


def _char_is_word(raw: bytes, i: int, before: bool) -> bool:
    """Is the (possibly multi-byte) character just before/at byte ``i`` a \\w character?"""
    if before:
        j = i - 1
        while j > 0 and raw[j] & 0xC0 == 0x80:  # walk back over UTF-8 continuation bytes
            j -= 1
        ch = raw[j:i]
    else:
        j = i + 1
        while j < len(raw) and raw[j] & 0xC0 == 0x80:
            j += 1
        ch = raw[i:j]
    return _is_word_char(ch.decode("utf-8", "replace")[:1])


def _vocab_counts(s: Scan) -> list[int]:
    raw = s.raw
    bound = b" " + raw.translate(BOUNDARY_TABLE) + b" "
    out = [0] * len(RESEARCH_WORDS)
    if not (s.nonascii and _NONASCII_WORD_RE.search(s.nonascii)):
        for w in _VOCAB_RE.findall(bound):
            out[_VOCAB_INDEX[w]] += 1
        return out
    # Accented letters are \w too: drop hits that touch one (rare, so checked per hit).
    for m in _VOCAB_RE.finditer(bound):
        a, b = m.start(1) - 1, m.end(1) - 1  # byte offsets in raw
        if (a > 0 and raw[a - 1] >= 0x80 and _char_is_word(raw, a, True)) or (
            b < len(raw) and raw[b] >= 0x80 and _char_is_word(raw, b, False)
        ):
            continue
        out[_VOCAB_INDEX[m.group(1)]] += 1
    return out


def research41(s: Scan) -> list[float]:
    """The 41 values, in :data:`NAMES` order, for one scanned text."""
    t, raw, c, na = s.text, s.raw, s.counts, s.nonascii
    n_char, nw, n_tok = s.n_char, s.n_words, len(s.tokens)
    letters = sum(c[65:91]) + sum(c[97:123]) + c[39]
    k = 1000.0 / n_char
    kw = 1000.0 / nw
    lines = s.line_kinds
    backslash = c[92]
    latex = c[36] + (raw.count(b"\\(") + raw.count(b"\\[") + raw.count(b"\\frac") + raw.count(b"\\begin")
                     if backslash else 0)
    art = raw.translate(ART_TABLE)
    art_runs = art.count(b" aa") + (1 if art[:2] == b"aa" else 0)
    box = len(_BOX_RE.findall(na)) if na else 0
    upper = sum(c[65:91]) + (sum(map(str.isupper, na)) if na else 0)
    digits = sum(c[48:58]) + (sum(map(str.isdigit, na)) if na else 0)
    i_count = _bounded_count(_I_RE, t) if c[73] else 0
    we_count = _bounded_count(_WE_RE, t) if c[101] else 0
    vals = [
        nw / max(s.n_sentences, 1),
        letters / n_tok if n_tok else 0.0,
        len(set(s.tokens)) / nw,
        c[44] * k, c[59] * k, c[58] * k,
        (na.count("\u2014") if na else 0) * k,
        c[63] * k, c[33] * k, c[40] * k, c[34] * k,
        lines.count(1) * k, lines.count(2) * k, lines.count(4) * k, lines.count(5) * k,
        (raw.count(b"**") if c[42] > 1 else 0) * k,
        (raw.count(b"```") if c[96] > 2 else 0) * k,
        c[124] * k,
        lines.count(3) * k,
        latex * k,
        (art_runs + box) * k,
        i_count * k, we_count * k,
        *(v * kw for v in _vocab_counts(s)),
        digits / n_char,
        upper / n_char,
    ]
    return vals
