"""The extended features: what the ``full`` set adds to the research 41 (genre-robust habits).

Families: Unicode and ASCII punctuation habits (curly quotes, ellipses, dash spacing), Markdown
structure (deeper headings, bold-led bullets, rules, line breaks), sentence and paragraph length
distributions, word-length/vocabulary shape, function-word rates (topic-independent, the classic
stylometric signal), lexicons of hedges, transitions, intensifiers, "AI register" words and stock
phrases. Rates are per 1,000 characters or words, so texts of different lengths compare.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from whowrote.style.literals import LONG, long_counts
from whowrote.style.phrases import phrase_counts
from whowrote.style.research41 import (
    APOSTROPHE,
    ASTERISK,
    BACKTICK,
    COLON,
    DQUOTE,
    EM_DASH,
    HASH,
    HYPHEN,
    UTF8_F0,
    WORD_TABLE,
    Scan,
    Vocab,
    word_keys,
)
from whowrote.style.specs import PER_1K_CHARS, PER_1K_WORDS, FeatureSpec

_C, _W = PER_1K_CHARS, PER_1K_WORDS

# (name, label, substring(s) counted in the text, pattern for highlighting). The patterns of the
# ASCII marks also match their typographic forms: the model reads the canonical form of a text
# (``style.edits.canonical``), where "—" is "--", "…" is "...", "’" is "'".
CHAR_LITERALS: tuple[tuple[str, str, str | tuple[str, ...], str | None], ...] = (
    ("curly_dquote", "curly double quotes", ("\u201c", "\u201d"), "[\u201c\u201d]"),
    ("curly_squote", "curly single quotes / apostrophes", ("\u2018", "\u2019"), "[\u2018\u2019]"),
    ("ellipsis_char", "ellipsis characters (…)", "\u2026", "\u2026"),
    ("ellipsis_dots", "three-dot ellipses (...)", "...", r"\.\.\.|\u2026"),
    ("en_dash", "en-dashes (–)", "\u2013", "\u2013"),
    ("emdash_spaced", "spaced em-dashes ( — )", " \u2014 ", " \u2014 "),
    ("double_hyphen", "double hyphens (--)", "--", "--|\u2014"),
    ("spaced_hyphen", "spaced hyphens ( - )", " - ", " - "),
    ("arrow", "arrows (→, ⇒)", ("\u2192", "\u21d2", "\u2190", "\u2194"), "[\u2192\u21d2\u2190\u2194]"),
    ("bullet_char", "bullet characters (•)", "\u2022", "\u2022"),
    ("nbsp", "non-breaking spaces", "\u00a0", "\u00a0"),
    ("period", "full stops", ".", r"\."),
    ("hyphen", "hyphens", "-", "[-\u2013]"),
    ("slash", "slashes", "/", "/"),
    ("ampersand", "ampersands", "&", "&"),
    ("percent", "percent signs", "%", "%"),
    ("bracket", "square brackets", "[", r"\["),
    ("link", "Markdown links", "](", r"\]\("),
    ("colon_eol", "lines ending in a colon", ":\n", r"(?m):$"),
    ("newline", "line breaks", "\n", None),
    ("blank_line", "paragraph breaks", "\n\n", None),
    ("h4", "deep headings (####)", "\n#### ", r"(?m)^####+ .*$"),
    ("hrule", "horizontal rules (---)", "\n---", r"(?m)^---+[^\S\n]*$"),
    ("bold_bullet", "bullets that start in bold", "- **", r"(?m)^[^\S\n]*[-*] \*\*"),
    ("table_row", "table rows", "\n|", r"(?m)^\|.*$"),
    ("single_quote", "straight single quotes", "'", "['\u2018\u2019]"),
)

FUNCTION_WORDS: tuple[str, ...] = (
    "the", "a", "an", "of", "and", "to", "in", "that", "is", "it", "this", "for", "with", "as", "but",
    "or", "not", "be", "are", "was", "were", "have", "has", "had", "can", "will", "would", "could",
    "should", "may", "might", "must", "there", "their", "they", "you", "your", "he", "she", "his",
    "her", "our", "us", "me", "my", "which", "who", "what", "when", "where", "why", "how", "if", "so",
    "than", "then", "just", "also", "only", "very", "more", "most", "such", "because", "while",
    "about", "into", "through", "even", "still", "yet", "too", "something", "itself", "each", "every",
)

LEXICONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "hedges": ("hedging words", ("perhaps", "maybe", "likely", "possibly", "probably", "seems", "seem",
                                 "somewhat", "suggests", "suggest", "generally", "typically", "often",
                                 "tend", "tends", "arguably", "apparently", "presumably")),
    "transitions": ("transition words", ("additionally", "therefore", "thus", "hence", "instead",
                                         "meanwhile", "overall", "finally", "similarly", "conversely",
                                         "specifically", "importantly", "crucially", "interestingly",
                                         "accordingly", "nonetheless", "besides", "firstly", "secondly")),
    "intensifiers": ("intensifiers", ("really", "truly", "deeply", "incredibly", "genuinely", "absolutely",
                                      "extremely", "remarkably", "profoundly", "fundamentally", "entirely",
                                      "simply", "actually", "literally", "quite", "utterly", "completely")),
    "ai_register": ("'AI register' words", ("landscape", "realm", "vibrant", "testament", "resonate",
                                            "foster", "navigate", "robust", "seamless", "leverage", "pivotal",
                                            "multifaceted", "profound", "journey", "embrace", "unlock",
                                            "harness", "elevate", "showcase", "holistic", "paramount",
                                            "whisper", "whispered", "echo", "echoed", "weave", "beacon",
                                            "palpable", "quiet", "precisely", "framework", "dynamics")),
    "negations": ("negations", ("not", "no", "never", "nothing", "nobody", "none", "neither", "nor",
                                "isn't", "don't", "doesn't", "can't", "won't", "aren't", "wasn't")),
}

PHRASES: tuple[str, ...] = (
    "it's worth", "in other words", "that said", "in fact", "of course", "on the other hand",
    "at the same time", "let's", "here's", "not just", "isn't just", "not only", "rather than",
    "in short", "in summary", "in conclusion", "to be clear", "the truth is", "the key", "it's not",
    "it's about", "i think", "let me", "imagine", "for example", "for instance", "such as", "kind of",
    "the real", "what matters",
)

DIST_FEATURES: tuple[tuple[str, str, str, str], ...] = (
    ("sent_len_std", "spread of sentence lengths", "standard deviation of words per sentence", "words"),
    ("sent_len_median", "median sentence length", "median words per sentence", "words"),
    ("sent_short_frac", "short sentences", "share of sentences of <= 8 words", "fraction of sentences"),
    ("sent_long_frac", "long sentences", "share of sentences of >= 30 words", "fraction of sentences"),
    ("sent_start_conj", "sentences opening with And/But/So", "share of sentences whose first word is and/but/so/or/yet", "fraction of sentences"),
    ("sent_start_the", "sentences opening with The/This/It", "share of sentences whose first word is the/this/it/that", "fraction of sentences"),
    ("para_len_mean", "average paragraph length", "mean words per non-blank paragraph", "words"),
    ("para_len_std", "spread of paragraph lengths", "standard deviation of words per paragraph", "words"),
    ("para_short_frac", "short paragraphs", "share of paragraphs of <= 15 words", "fraction of paragraphs"),
    ("para_per_1k_words", "paragraphs", "non-blank paragraphs per 1,000 words", _W),
    ("long_word_frac", "long words", "share of words of >= 8 letters", "fraction of words"),
    ("hapax_ratio", "words used once", "words occurring exactly once / words", "ratio"),
    ("contraction_rate", "contractions", "words containing an apostrophe (straight or curly)", _W),
    ("curly_apostrophe_share", "curly-apostrophe share", "’ / (’ + ') apostrophes", "ratio"),
    ("curly_dquote_share", "curly double-quote share", "“” / (“” + \") double quotes", "ratio"),
    ("nonascii_ratio", "non-ASCII characters", "non-ASCII characters / characters", "fraction of characters"),
    ("emoji", "emoji", "characters at or above U+1F000", _C),
    ("italic_asterisk", "single-asterisk emphasis", "'*' not part of '**'", _C),
    ("inline_code", "inline code backticks", "'`' not part of '```'", _C),
)

# What the distribution features that count something in the text count, for highlighting.
DIST_PATTERNS: dict[str, str] = {
    "contraction_rate": r"\b[A-Za-z]+['\u2019][A-Za-z]*",
    "emoji": "[\U0001F000-\U0010FFFF]",
    "italic_asterisk": r"(?<!\*)\*(?!\*)",
    "inline_code": r"(?<!`)`{1,2}(?!`)",
}


def _specs() -> tuple[FeatureSpec, ...]:
    out = [FeatureSpec(n, lab, "count of " + " or ".join(map(repr, (lit,) if isinstance(lit, str) else lit)), _C,
                       "punctuation", pat) for n, lab, lit, pat in CHAR_LITERALS]
    out += [FeatureSpec(n, lab, doc, unit, "distribution", DIST_PATTERNS.get(n)) for n, lab, doc, unit in DIST_FEATURES]
    out += [FeatureSpec(f"fw_{w}", f"the word '{w}'", f"\\b{w}\\b (function word)", _W, "function_words",
                        rf"(?i)\b{w}\b") for w in FUNCTION_WORDS]
    for key, (label, words) in LEXICONS.items():
        out.append(FeatureSpec(f"lex_{key}", label, "any of: " + ", ".join(words), _W, "lexicon",
                               r"(?i)\b(?:" + "|".join(map(re.escape, words)) + r")\b"))
    out += [FeatureSpec("ph_" + re.sub(r"\W+", "_", p).strip("_"), f"the phrase '{p}'", f"'{p}' (apostrophes "
                        "normalised)", _W, "phrases", r"(?i)\b" + re.escape(p).replace("'", "['’]") + r"\b")
            for p in PHRASES]
    return tuple(out)


# Thresholds of the distribution features (words; a long word's letters) and the first "emoji" code point.
SHORT_SENTENCE, LONG_SENTENCE, SHORT_PARAGRAPH, LONG_WORD, EMOJI_FROM = 8, 30, 15, 8, 0x1F000

EXTENDED: tuple[FeatureSpec, ...] = _specs()
NAMES: tuple[str, ...] = tuple(s.name for s in EXTENDED)
_N_LITERALS = len(CHAR_LITERALS)

# Lower-case words, apostrophes kept, sentence ends -> '.', newlines kept, the rest -> space.
_SHAPE_TABLE = bytes(
    (c | 32) if chr(c).isascii() and chr(c).isalpha() else (c if c in b"'\n" else (ord(".") if c in b".!?" else ord(" ")))
    for c in range(256)
)
_SENTENCE_END = ord(".")
_LITERALS_B = tuple(tuple(x.encode() for x in ((lit,) if isinstance(lit, str) else lit)) for _, _, lit, _ in CHAR_LITERALS)
_PARA_SPLIT = re.compile(rb"\n[ ]*\n")
_CONJ_K = tuple(word_keys([b"and", b"but", b"so", b"or", b"yet"])[0].tolist())
_THE_K = tuple(word_keys([b"the", b"this", b"it", b"that"])[0].tolist())
_FUNCTION_KEYS = word_keys([w.encode() for w in FUNCTION_WORDS])
# Every lexicon word in one lookup; _LEX_SPANS slices the counts back into lexicons.
_LEX_WORDS = [w.encode() for _, ws in LEXICONS.values() for w in ws]
_LEX_KEYS = word_keys(_LEX_WORDS)
_LEX_SPANS = tuple(np.cumsum([0] + [len(ws) for _, ws in LEXICONS.values()]).tolist())


def _gate(lits: tuple[bytes, ...]) -> tuple[int, int]:
    """(byte, minimum count) that must hold for any of ``lits`` to occur: skips most scans."""
    common = set(lits[0]).intersection(*map(set, lits[1:]))
    rarest = max(common, key=lambda b: (b >= 0x80, b not in b" \n.-", b))
    return rarest, (lits[0].count(rarest) if len(lits) == 1 else 1)


def _plan(lits: tuple[bytes, ...]) -> tuple[str, object]:
    """How to count one literal cheaply: a byte-histogram lookup, a count in the (short)
    non-ASCII string, or a gated scan of the bytes."""
    if len(lits) == 1 and len(lits[0]) == 1:
        return "byte", lits[0][0]
    chars = [x.decode() for x in lits]
    if all(len(ch) == 1 and not ch.isascii() for ch in chars):
        return "nonascii", tuple(chars)
    return "scan", (lits, _gate(lits))


def _literal(plan: tuple[str, object], raw: bytes, c: list[int], na: str) -> int:
    kind, arg = plan
    if kind == "byte":
        return c[arg]
    if kind == "nonascii":
        return sum(na.count(ch) for ch in arg) if na else 0
    lits, (g, n) = arg
    # UTF-8 is self-synchronising, so counting encoded substrings in the bytes is exact.
    return sum(raw.count(x) for x in lits) if c[g] >= n else 0


_PLANS = tuple(_plan(lits) for lits in _LITERALS_B)
_EMDASH = EM_DASH.encode()


def _spaced(parts: list[bytes]) -> int:
    """``bytes.count`` of b" X " given ``parts = raw.split(X)``: X between two spaces, except
    that a hit uses up its trailing space, so " X X " holds one hit, not two."""
    n, prev = 0, False
    for before, after in zip(parts[:-1], parts[1:], strict=True):
        prev = before.endswith(b" ") and after.startswith(b" ") and not (prev and before == b" ")
        n += prev
    return n


MANY = 16  # occurrences of a byte above which counting its literals beats splitting on it


def _split_counts(raw: bytes, c: list[int], na: str) -> dict[str, int]:
    """Literals around a rarer byte ('-', '—', ':', '#'), counted by splitting on that byte
    (a memchr pass) and looking at the few pieces, instead of a bytes.count pass each; the
    loops replay bytes.count's left-to-right, non-overlapping matching exactly. Where the byte
    is common (more than ``MANY`` times) the pieces are many and ``bytes.count`` passes are cheaper."""
    if c[COLON] > MANY:
        colon = raw.count(b":\n")
    else:
        colon = sum(p.startswith(b"\n") for p in raw.split(b":")[1:]) if c[COLON] else 0
    out = {"emdash_spaced": _spaced(raw.split(_EMDASH)) if EM_DASH in na else 0, "colon_eol": colon}
    dd = sh = bb = hr = 0
    if c[HYPHEN] > MANY:
        dd, sh, bb, hr = raw.count(b"--"), raw.count(b" - "), raw.count(b"- **"), raw.count(b"\n---")
    elif c[HYPHEN]:
        parts = raw.split(b"-")
        nd = len(parts) - 1
        sh = _spaced(parts)
        second = False  # this dash is the second half of a "--" hit
        for i in range(nd):
            after = parts[i + 1]
            if second:
                second = False
            elif not after and i + 1 < nd:
                dd, second = dd + 1, True
            bb += after.startswith(b" **")
            hr += (parts[i].endswith(b"\n") and i + 2 < nd and not after and not parts[i + 2])
    out.update(double_hyphen=dd, spaced_hyphen=sh, bold_bullet=bb, hrule=hr)
    h4 = 0
    if c[HASH] > MANY:
        h4 = raw.count(b"\n#### ")
    elif c[HASH] > 3:  # '\n####' needs four
        parts = raw.split(b"#")
        for i in range(len(parts) - 4):
            h4 += (parts[i].endswith(b"\n") and not parts[i + 1] and not parts[i + 2] and not parts[i + 3]
                   and parts[i + 4].startswith(b" "))
    out["h4"] = h4
    return out


_SPLIT_AT = tuple(i for i, (name, *_) in enumerate(CHAR_LITERALS)
                  if name in ("emdash_spaced", "colon_eol", "double_hyphen", "spaced_hyphen", "bold_bullet",
                              "hrule", "h4"))
_PHRASE_WORDS = tuple(tuple(p.encode().split()) for p in PHRASES)
_PHRASE_VOCAB = sorted({w for ws in _PHRASE_WORDS for w in ws})
_PHRASE_KEYS = word_keys(_PHRASE_VOCAB)
_PHRASE_IDX = tuple(tuple(_PHRASE_VOCAB.index(w) for w in ws) for ws in _PHRASE_WORDS)
# Each phrase's word indices padded to 4 with its own first word: all() of their presence is the phrase's.
_PHRASE_PAD = np.array([idx + idx[:1] * (4 - len(idx)) for idx in _PHRASE_IDX], dtype=np.int64)
_N_FW = len(FUNCTION_WORDS)
# The literals counted directly (not by _split_counts), with their plans, by position.
_DIRECT = tuple((i, plan, CHAR_LITERALS[i][0]) for i, plan in enumerate(_PLANS) if i not in _SPLIT_AT)
_SPLIT_NAMES = tuple((i, CHAR_LITERALS[i][0]) for i in _SPLIT_AT)
ALL_KEYS = tuple(np.concatenate(parts) for parts in zip(_FUNCTION_KEYS, _LEX_KEYS, _PHRASE_KEYS, strict=True))


def _gaps(cuts: np.ndarray, n: int) -> np.ndarray:
    """``np.diff(cuts, prepend=0, append=n)`` (integers: exact) without its wrappers."""
    edges = np.empty(len(cuts) + 2, dtype=np.int64)
    edges[0], edges[1:-1], edges[-1] = 0, cuts, n
    return edges[1:] - edges[:-1]


def _std(a: np.ndarray) -> float:
    """``float(a.std())`` of a float64 vector by the same ufunc calls (bit for bit), minus the wrappers."""
    x = a - np.add.reduce(a) / len(a)
    return float(np.sqrt(np.add.reduce(x * x) / len(a)))


def _median(a: list[int]) -> float:
    """``float(np.median(a))`` of integers (exact: the middle one, or the two middle ones' mean)."""
    s = sorted(a)
    m = len(s) // 2
    return float(s[m]) if len(s) % 2 else (s[m - 1] + s[m]) / 2


def _geometry(shape: bytes, voc: Vocab) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Words per sentence, words per paragraph, and how many sentences open with a
    conjunction / with the-this-it-that, from the shape alphabet and the tokens of the same
    bytes (shape's word runs are exactly those tokens; vectorised: no per-word loop)."""
    starts = voc.starts
    if not len(starts):
        return starts, starts, 0, 0
    a = np.frombuffer(shape, np.uint8)
    # Words per sentence / paragraph: where each of the few '.' / paragraph-break positions
    # falls among the word starts (few searches, not one per word); empty ones are dropped.
    n = len(starts)
    # (ndarray methods: np.searchsorted / np.flatnonzero add a dispatch layer per call)
    cut = starts.searchsorted((a == _SENTENCE_END).nonzero()[0])
    per_sent = _gaps(cut, n)
    bounds = np.array([m.start() for m in _PARA_SPLIT.finditer(shape)], dtype=np.int64)
    per_para = _gaps(starts.searchsorted(bounds), n)
    is_first = np.zeros(n, dtype=bool)  # first word of each sentence
    is_first[0] = True
    is_first[cut[cut < n]] = True
    # First words by exact key (all these words are <= 8 bytes, so the key is the word).
    first = Counter(voc.token_hashes[is_first].tolist())  # one per sentence: few
    conj = sum(first[k] for k in _CONJ_K)
    the = sum(first[k] for k in _THE_K)
    return per_sent[per_sent > 0], per_para[per_para > 0], conj, the


def distribution_values(s: Scan, voc: Vocab, sent: list[int], paras: list[int], conj: int, the: int,
                        long_words: int, apos_words: int, curly_apos: int) -> tuple[list[float], float]:
    """``(DIST_FEATURES values, 1000 / words)`` of one text from its words per sentence and per
    paragraph (empty ones dropped) and counts; :func:`extended_values` and ``extended_batch`` share it."""
    c, na, k = s.counts, s.nonascii, 1000.0 / s.n_char
    sent = sent or [0]
    ns, sw, n_para = len(sent), np.array(sent, dtype=np.float64), len(paras)
    nw = max(voc.n, 1)
    kw = 1000.0 / nw
    bold, fences = s.runs(b"*", 2), s.runs(b"`", 3)
    curly_dq = (na.count("\u201c") + na.count("\u201d")) if na else 0
    return [
        _std(sw),  # sent_len_std
        _median(sent),  # sent_len_median
        int(np.count_nonzero(sw <= SHORT_SENTENCE)) / ns,  # sent_short_frac
        int(np.count_nonzero(sw >= LONG_SENTENCE)) / ns,  # sent_long_frac
        conj / ns,  # sent_start_conj
        the / ns,  # sent_start_the
        sum(paras) / n_para if n_para else 0.0,  # para_len_mean
        _std(np.array(paras, dtype=np.float64)) if n_para else 0.0,  # para_len_std
        sum(1 for x in paras if x <= SHORT_PARAGRAPH) / n_para if n_para else 0.0,  # para_short_frac
        n_para * kw,  # para_per_1k_words
        long_words / nw,  # long_word_frac
        voc.hapax / nw,  # hapax_ratio
        apos_words * kw,  # contraction_rate
        curly_apos / (curly_apos + c[APOSTROPHE]) if curly_apos + c[APOSTROPHE] else 0.0,  # curly_apostrophe_share
        curly_dq / (curly_dq + c[DQUOTE]) if curly_dq + c[DQUOTE] else 0.0,  # curly_dquote_share
        len(na) / s.n_char,  # nonascii_ratio
        # characters >= U+1F000, looked for only when a U+10000..U+3FFFF lead byte occurs
        sum(1 for ch in na if ord(ch) >= EMOJI_FROM) * k if c[UTF8_F0] else 0.0,  # emoji
        max(c[ASTERISK] - 2 * bold, 0) * k,  # italic_asterisk
        max(c[BACKTICK] - 3 * fences, 0) * k,  # inline_code
    ], kw


def extended(s: Scan) -> dict[str, float]:
    """The extended values of one scanned text by name (the names, in order, are :data:`NAMES`)."""
    return dict(zip(NAMES, extended_values(s), strict=True))


def extended_values(s: Scan) -> list[float]:
    """:func:`extended`'s values in :data:`NAMES` order (what the feature matrix needs: no dict)."""
    raw, c, na, k = s.raw, s.counts, s.nonascii, 1000.0 / s.n_char
    if len(raw) > LONG:  # one positions pass for the multi-byte literals (literals.long_counts)
        split = long_counts(raw)
        split["emdash_spaced"] = _spaced(raw.split(_EMDASH)) if EM_DASH in na else 0
    else:
        split = _split_counts(raw, c, na)
    vals = [0.0] * _N_LITERALS  # the literals first (NAMES order), then the values below
    for i, plan, name in _DIRECT:
        vals[i] = (split[name] if name in split else _literal(plan, raw, c, na)) * k
    for i, name in _SPLIT_NAMES:
        vals[i] = split[name] * k
    apos_raw = raw.replace("\u2019".encode(), b"'") if "\u2019" in na else raw
    voc = Vocab(apos_raw.translate(WORD_TABLE)) if apos_raw is not raw else s.vocab
    sw_int, pw_int, conj, the = _geometry(apos_raw.translate(_SHAPE_TABLE), voc)
    curly_apos = na.count("\u2019") if na else 0
    apos_words = len(voc.apostrophe_at()) if c[APOSTROPHE] or curly_apos else 0  # shape's words are voc's tokens
    dist, kw = distribution_values(s, voc, sw_int.tolist(), pw_int.tolist(), conj, the,
                                   int(np.count_nonzero(voc.lens >= LONG_WORD)), apos_words, curly_apos)
    vals += dist
    # One lookup for every function, lexicon and phrase word (numpy calls cost per call).
    j = voc.lookup(ALL_KEYS)
    cnt = np.where(j >= 0, voc.counts[j] if len(voc.counts) else 0, 0).tolist()
    vals += [v * kw for v in cnt[:_N_FW]]
    lex = cnt[_N_FW:_N_FW + len(_LEX_WORDS)]
    vals += [sum(lex[a:b]) * kw for a, b in zip(_LEX_SPANS[:-1], _LEX_SPANS[1:], strict=True)]
    # A phrase can only occur if all its words do (the usual case for most phrases: skip).
    pj = j[_N_FW + len(_LEX_WORDS):]
    live = np.flatnonzero(np.logical_and.reduce(pj[_PHRASE_PAD] >= 0, axis=1)).tolist()
    ph = [0.0] * len(_PHRASE_IDX)
    if live:
        ids = pj.tolist()
        for p, hits in zip(live, phrase_counts(voc, [[ids[i] for i in _PHRASE_IDX[p]] for p in live]), strict=True):
            ph[p] = hits * kw
    return vals + ph
