"""The research spec's 41 stylometric features (§5.1), computed fast and exactly.

Speed comes from replacing per-word Python loops and one-regex-per-feature passes by a few
C-level passes over the UTF-8 bytes: one ``numpy.bincount`` gives every single-byte count
(punctuation, digits, upper case, letters), ``bytes.translate`` maps the text onto small
alphabets whose runs are counted with ``bytes.count`` (words, sentences, ASCII-art runs), and
only the handful of anchored patterns use regexes that start with a literal (so ``re`` can skip
ahead). Words are never turned into one Python object each: :class:`Vocab` keys every token as
a uint64 read straight from the bytes and counts them with a sort, and rare patterns are found
by splitting on their rarest byte. Non-ASCII characters (curly quotes, em-dashes, accented
letters) are pulled out into a short string once and handled there. Results equal the spec's regex definitions; the test suite
checks this against a slow, literal implementation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from whowrote.style.specs import RESEARCH41, RESEARCH_WORDS
from whowrote.style.textcheck import ASCII_WS, UNICODE_WS, utf8_parts
from whowrote.style.vocab import Vocab, vocabs, word_keys

NAMES: tuple[str, ...] = tuple(s.name for s in RESEARCH41)
WORD_NAMES: tuple[str, ...] = tuple(f"w_{w}" for w in RESEARCH_WORDS)  # features 24-39

# Byte values at which ``Scan.counts`` (occurrences of each byte 0..255) is read, by name.
(APOSTROPHE, DQUOTE, COMMA, SEMICOLON, COLON, QUESTION, EXCLAIM, LPAREN, PIPE, BACKSLASH, DOLLAR, HYPHEN, HASH,
 ASTERISK, BACKTICK, CAPITAL_I, SMALL_E) = b"'\",;:?!(|\\$-#*`Ie"
UPPER, LOWER, DIGITS = slice(ord("A"), ord("Z") + 1), slice(ord("a"), ord("z") + 1), slice(ord("0"), ord("9") + 1)
UTF8_F0 = 0xF0  # lead byte of every UTF-8 character U+10000..U+3FFFF (emoji among them)
EM_DASH = "\u2014"
NON_ASCII = 0x80  # bytes >= this belong to a non-ASCII character
_TOP_TWO_BITS, _CONTINUATION = 0xC0, 0x80  # byte & 0xC0 == 0x80: a UTF-8 continuation byte


def _table(fn) -> bytes:
    return bytes(fn(c) for c in range(256))


def _is_letter(c: int) -> bool:
    return c in _LETTERS


_LETTERS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_SPACE, _DOT, _X, _A, _ZERO, _UNDERSCORE = b" .xa0_"
_CASE_BIT = 32  # ASCII letter | 32 = its lower case

# [A-Za-z']+ words, lower-cased; everything else becomes a space.
WORD_TABLE = _table(lambda c: (c | _CASE_BIT) if _is_letter(c) else (APOSTROPHE if c == APOSTROPHE else _SPACE))
# \b-word alphabet for the 16 vocabulary words: letters lower-cased, digits and '_' stay word
# characters (as '0' and '_'), everything else (apostrophe, punctuation, non-ASCII bytes) is a boundary.
BOUNDARY_TABLE = _table(lambda c: (c | _CASE_BIT) if _is_letter(c) else (
    _ZERO if c in b"0123456789" else (_UNDERSCORE if c == _UNDERSCORE else _SPACE)))
# Sentence alphabet: '.', '!', '?' -> '.', what str.strip() drops -> ' ', the rest -> 'x'.
SENT_TABLE = _table(lambda c: _DOT if c in b".!?" else (_SPACE if c in ASCII_WS else _X))
ART_TABLE = _table(lambda c: _A if c in b"+|\\/_=^<>" else _SPACE)

_LINE_RE = re.compile(r"\n(?:(#) |(#{2,3}) |(>) |[^\S\n]*(?:([-*])|(\d+\.)) )")
LINE_H1, LINE_H2_H3, LINE_QUOTE, LINE_BULLET, LINE_NUMBERED = 1, 2, 3, 4, 5  # _LINE_RE's groups
_LATEX_AFTER = (b"(", b"[", b"frac", b"begin")
_BOX_RE = re.compile("[\u2500-\u257f]")
_NONASCII_WORD_RE = re.compile(r"[^\W\x00-\x7f]")


# Each word between boundary spaces of BOUNDARY_TABLE, and twice in a row. bytes.count does not
# overlap: in a chain of k repeats (" w w w ") " w " finds only ceil(k/2), since each hit uses up
# the space the next one starts with. Chains are rare (no text of the corpus has one), so " w w "
# only tells whether the word must be counted again with every boundary space doubled, where
# no two hits share a space and " w " finds all k.
_WORDS_B = tuple(w.encode() for w in RESEARCH_WORDS)
_NEEDLES = tuple((b" " + w + b" ", b" " + w + b" " + w + b" ") for w in _WORDS_B)
# \bI\b and \b[Ww]e\b as byte regexes that start with a literal (see _bounded_bytes).
_I_B = (re.compile(rb"I\b"),)
_WE_B = (re.compile(rb"We\b"), re.compile(rb"we\b"))  # never overlap: same count as [Ww]e
_ASCII_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c == "_"



WORDS_KEYS = word_keys(_WORDS_B)  # the 16 words, looked up per text (a batch makes the lookups at once)


@dataclass
class Scan:
    """One pass over a text: counts shared by the research and the richer feature sets."""

    text: str
    raw: bytes
    counts: list[int]  # occurrences of each byte value 0..255
    nonascii: str  # the non-ASCII characters, in order
    vocab: Vocab  # counts of the [A-Za-z']+ words, lower-cased (set by scan / scan_many)
    word_bytes: bytes  # raw through WORD_TABLE (the words, space-separated)
    n_sentences: int
    line_kinds: list[int] = field(default_factory=list)  # _LINE_RE group index per matched line
    _runs: dict[tuple[bytes, int], int] = field(default_factory=dict)

    @property
    def tokens(self) -> list[bytes]:
        """The words themselves (not needed by the features; built on demand)."""
        return self.word_bytes.split()

    def runs(self, ch: bytes, k: int) -> int:
        """``raw.count(ch * k)`` for one byte ``ch`` (cached: both feature sets use it). A run of
        r copies holds r // k non-overlapping hits; splitting on the (rare) byte and reading
        which pieces between copies are empty beats a bytes.count pass."""
        key = (ch, k)
        if key not in self._runs:
            n = 0
            if self.counts[ch[0]] >= k:
                gap = 0  # empty pieces in a row = copies in the run - 1
                for p in self.raw.split(ch)[1:-1]:
                    if p:
                        n, gap = n + (gap + 1) // k, 0
                    else:
                        gap += 1
                n += (gap + 1) // k
            self._runs[key] = n
        return self._runs[key]

    @property
    def n_char(self) -> int:
        return max(len(self.text), 1)

    @property
    def n_words(self) -> int:
        return max(self.vocab.n, 1)


def scan(text: str) -> Scan:
    s = _scan(text)
    s.vocab = Vocab(s.word_bytes)
    return s


BATCH_VOCAB_BYTES = 1 << 16  # texts up to this long share their token counting and extended values (extended_batch)


def scan_many(texts: Sequence[str], presets: Sequence[tuple[np.ndarray, np.ndarray]] = ()) -> list[Scan]:
    """``[scan(t) for t in texts]``, with the token counts of all texts made in one batch
    (:func:`whowrote.style.vocab.vocabs`; ``presets``: word lists whose lookups it makes too)."""
    scans = [_scan(t) for t in texts]
    # Batching pays for short texts (fixed numpy costs shared); a long text's own sort is cheaper.
    # (one text alone is counted by itself: fewer numpy calls, and no batch arrays to set up)
    short = [s for s in scans if len(s.word_bytes) <= BATCH_VOCAB_BYTES] if len(scans) > 1 else []
    for s, v in zip(short, vocabs([s.word_bytes for s in short], presets), strict=True):
        s.vocab = v
    for s in scans:
        if s.vocab is None:
            s.vocab = Vocab(s.word_bytes)
    return scans


def _scan(text: str) -> Scan:
    """Everything of :func:`scan` but the vocabulary (``vocab`` is None)."""
    raw, nonascii = utf8_parts(text)
    counts = np.bincount(np.frombuffer(raw, np.uint8), minlength=256).tolist()
    word_bytes = raw.translate(WORD_TABLE)
    sent_src = raw
    if nonascii and UNICODE_WS.search(nonascii):  # str.strip() also drops Unicode spaces
        sent_src = UNICODE_WS.sub(" ", text).encode("utf-8", "surrogatepass")
    # Sentences = pieces between '.'s that are not blank (a plain translate and a memchr split
    # beat deleting the spaces and counting ".x", which tests every 'x').
    pieces = sent_src.translate(SENT_TABLE).split(b".")
    n_sent = len(pieces) - sum(map(bytes.isspace, pieces)) - pieces.count(b"")
    line_kinds = [m.lastindex or 0 for m in _LINE_RE.finditer("\n" + text)]
    return Scan(text, raw, counts, nonascii, None, word_bytes, n_sent, line_kinds)


def _char_is_word(raw: bytes, i: int, before: bool) -> bool:
    """Is the (possibly multi-byte) character just before/at byte ``i`` a \\w character?"""
    if before:
        j = i - 1
        while j > 0 and raw[j] & _TOP_TWO_BITS == _CONTINUATION:  # walk back over UTF-8 continuation bytes
            j -= 1
        ch = raw[j:i]
    else:
        j = i + 1
        while j < len(raw) and raw[j] & _TOP_TWO_BITS == _CONTINUATION:
            j += 1
        ch = raw[i:j]
    return _is_word_char(ch.decode("utf-8", "replace")[:1])


def _vocab_counts(s: Scan) -> list[int]:
    """Hits of ``\\bw\\b`` for each research word ``w`` in the lower-cased text.

    A hit is a maximal letter run equal to ``w`` with no digit, ``_`` or non-ASCII word
    character on either side. Letter runs are the pieces of the [A-Za-z']+ tokens between
    apostrophes, so the hits of a word are its whole tokens (counted by :class:`Vocab`
    already) less those next to such a character, plus pieces of apostrophe tokens. Only
    the few tokens next to a digit, '_' or a non-ASCII byte are looked at one by one; a word
    that occurs as a piece of an apostrophe token (rare) is counted over the bytes
    (:func:`_vocab_counts_bytes`)."""
    out = [0] * len(RESEARCH_WORDS)
    v, c = s.vocab, s.counts
    present = v.lookup(WORDS_KEYS).tolist()
    pieces = _apostrophe_pieces(v) if c[APOSTROPHE] else b""
    slow = [i for i, w in enumerate(_WORDS_B) if pieces and b"'" + w + b"'" in pieces]
    whole = [i for i in range(len(_WORDS_B)) if present[i] >= 0 and i not in slow]
    if whole:
        for i, n in zip(whole, v.counts[[present[i] for i in whole]].tolist(), strict=True):
            out[i] = n
        exact = not (s.nonascii and _NONASCII_WORD_RE.search(s.nonascii))
        if sum(c[DIGITS]) + c[_UNDERSCORE] or not exact:  # some tokens may touch a word character
            _drop_touching(s, whole, [v.uh[present[i]] for i in whole], out, exact)
    if slow:
        found = _vocab_counts_bytes(s, slow)
        for i in slow:
            out[i] = found[i]
    return out


_MIN_WORD = min(map(len, _WORDS_B))  # a token shorter than this + 1 cannot hold a word and an apostrophe


def _apostrophe_pieces(v: Vocab) -> bytes:
    """The apostrophe tokens long enough to hold a research word, joined and framed by "'"."""
    at = v.apostrophe_at()
    at = at[v.lens[at] > _MIN_WORD]
    if not len(at):
        return b""
    buf = v.buf
    return b"'" + b"'".join(buf[a:a + m] for a, m in
                            zip(v.starts[at].tolist(), v.lens[at].tolist(), strict=True)) + b"'"


def _drop_touching(s: Scan, words: list[int], hashes: list, out: list[int], exact: bool) -> None:
    """Take off ``out[i]`` the tokens of word ``i`` that touch a digit, '_' or (``exact``
    False) a non-ASCII word character: the token's neighbours are never letters or
    apostrophes (tokens are maximal runs of them), so only these make ``\\b`` fail."""
    v, raw = s.vocab, s.raw
    th = v.token_hashes
    mask = th == hashes[0]
    for h in hashes[1:]:
        mask |= th == h
    at = mask.nonzero()[0]
    which = dict(zip([int(h) for h in hashes], words, strict=True))
    end = len(raw)
    for a, m, h in zip(v.starts[at].tolist(), v.lens[at].tolist(), th[at].tolist(), strict=True):
        b = a + m
        if a > 0:
            p = raw[a - 1]
            if p in _ASCII_WORD or (p >= NON_ASCII and not exact and _char_is_word(raw, a, True)):
                out[which[h]] -= 1
                continue
        if b < end:
            p = raw[b]
            if p in _ASCII_WORD or (p >= NON_ASCII and not exact and _char_is_word(raw, b, False)):
                out[which[h]] -= 1


def _vocab_counts_bytes(s: Scan, words: list[int]) -> list[int]:
    """The hits of the research words ``words`` counted over the bytes: each word between the
    boundary spaces of BOUNDARY_TABLE (what the spec's regex finds; the slow, plain way)."""
    out = [0] * len(RESEARCH_WORDS)
    raw = s.raw
    bound = b" " + raw.translate(BOUNDARY_TABLE) + b" "
    exact = not (s.nonascii and _NONASCII_WORD_RE.search(s.nonascii))
    spaced = b""  # bound with each space doubled, made only for a text with a chain
    for i in words:
        one, two = _NEEDLES[i]
        if exact:
            if two not in bound:
                out[i] = bound.count(one)
                continue
            spaced = spaced or bound.replace(b" ", b"  ")
            out[i] = spaced.count(one)
            continue
        # Accented letters are \w too: drop hits that touch one (rare, so checked per hit).
        n = len(one) - 2
        a = bound.find(one)  # bound has one leading space, so a is the word's offset in raw
        while a >= 0:
            b = a + n
            if not ((a > 0 and raw[a - 1] >= NON_ASCII and _char_is_word(raw, a, True)) or (
                b < len(raw) and raw[b] >= NON_ASCII and _char_is_word(raw, b, False)
            )):
                out[i] += 1
            a = bound.find(one, b + 1)  # the trailing space may start the next hit
    return out


def _bounded_bytes(regexes: tuple[re.Pattern[bytes], ...], raw: bytes) -> int:
    """Hits of the ``...\b`` byte regexes that also have a word boundary before them. The
    bytes regex treats non-ASCII as non-word, so hits next to a non-ASCII byte are checked on
    the decoded character (the str regex's rule); literal-prefixed bytes regexes let re skip
    ahead faster than the str regex over the (often 2-byte-per-char) text."""
    n = 0
    for rx in regexes:
        for m in rx.finditer(raw):
            a, b = m.start(), m.end()
            if a > 0:
                p = raw[a - 1]
                if p in _ASCII_WORD or (p >= NON_ASCII and _char_is_word(raw, a, True)):
                    continue
            if b < len(raw) and raw[b] >= NON_ASCII and _char_is_word(raw, b, False):
                continue
            n += 1
    return n


def research41(s: Scan) -> dict[str, float]:
    """The 41 values of one scanned text by name (the names, in order, are :data:`NAMES`)."""
    raw, c, na = s.raw, s.counts, s.nonascii
    n_char, nw, n_tok = s.n_char, s.n_words, s.vocab.n
    letters = sum(c[UPPER]) + sum(c[LOWER]) + c[APOSTROPHE]
    k = 1000.0 / n_char
    kw = 1000.0 / nw
    line = s.line_kinds.count
    # Each LaTeX needle is one backslash plus a suffix, so its count is the number of pieces
    # after a backslash that start with that suffix (the suffixes differ in their first byte).
    latex = c[DOLLAR] + (sum(p.startswith(_LATEX_AFTER) for p in raw.split(b"\\")[1:]) if c[BACKSLASH] else 0)
    # Runs are few, so splitting them out is cheaper than counting " aa" over the spaces.
    art_runs = sum(1 for r in raw.translate(ART_TABLE).split() if len(r) > 1)
    box = len(_BOX_RE.findall(na)) if na else 0
    upper = sum(c[UPPER]) + (sum(map(str.isupper, na)) if na else 0)
    digits = sum(c[DIGITS]) + (sum(map(str.isdigit, na)) if na else 0)
    vals = {
        "avg_sent_len_words": nw / max(s.n_sentences, 1),
        "avg_word_len": letters / n_tok if n_tok else 0.0,
        "type_token_ratio": s.vocab.distinct / nw,
        "punc_comma": c[COMMA] * k,
        "punc_semicolon": c[SEMICOLON] * k,
        "punc_colon": c[COLON] * k,
        "punc_emdash": (na.count(EM_DASH) if na else 0) * k,
        "punc_question": c[QUESTION] * k,
        "punc_exclaim": c[EXCLAIM] * k,
        "punc_paren": c[LPAREN] * k,
        "punc_dquote": c[DQUOTE] * k,
        "md_h1": line(LINE_H1) * k,
        "md_h2_h3": line(LINE_H2_H3) * k,
        "md_bullet": line(LINE_BULLET) * k,
        "md_numbered": line(LINE_NUMBERED) * k,
        "md_bold": s.runs(b"*", 2) * k,
        "md_code": s.runs(b"`", 3) * k,
        "md_table": c[PIPE] * k,
        "md_blockquote": line(LINE_QUOTE) * k,
        "latex": latex * k,
        "ascii_art": (art_runs + box) * k,
        "first_person_I": (_bounded_bytes(_I_B, raw) if c[CAPITAL_I] else 0) * k,
        "first_person_we": (_bounded_bytes(_WE_B, raw) if c[SMALL_E] else 0) * k,
    }
    vals.update(zip(WORD_NAMES, [v * kw for v in _vocab_counts(s)], strict=True))
    vals["digit_ratio"] = digits / n_char
    vals["upper_ratio"] = upper / n_char
    return vals
