"""The richer, genre-robust features of the ``full`` set (on top of the research 41).

Families: Unicode and ASCII punctuation habits (curly quotes, ellipses, dash spacing), Markdown
structure (deeper headings, bold-led bullets, rules, line breaks), sentence and paragraph length
distributions, word-length/vocabulary shape, function-word rates (topic-independent by
construction, the classic stylometric signal), and small lexicons of hedges, transitions,
intensifiers, "AI register" words and stock phrases. Rates are per 1,000 characters or words so
that texts of different lengths compare.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from whowrote.style.research41 import WORD_TABLE, Scan
from whowrote.style.specs import PER_1K_CHARS, PER_1K_WORDS, FeatureSpec

_C, _W = PER_1K_CHARS, PER_1K_WORDS

# (name, label, substring(s) counted in the text, pattern for highlighting)
CHAR_LITERALS: tuple[tuple[str, str, str | tuple[str, ...], str | None], ...] = (
    ("curly_dquote", "curly double quotes", ("\u201c", "\u201d"), "[\u201c\u201d]"),
    ("curly_squote", "curly single quotes / apostrophes", ("\u2018", "\u2019"), "[\u2018\u2019]"),
    ("ellipsis_char", "ellipsis characters (…)", "\u2026", "\u2026"),
    ("ellipsis_dots", "three-dot ellipses (...)", "...", r"\.\.\."),
    ("en_dash", "en-dashes (–)", "\u2013", "\u2013"),
    ("emdash_spaced", "spaced em-dashes ( — )", " \u2014 ", " \u2014 "),
    ("double_hyphen", "double hyphens (--)", "--", "--"),
    ("spaced_hyphen", "spaced hyphens ( - )", " - ", " - "),
    ("arrow", "arrows (→, ⇒)", ("\u2192", "\u21d2", "\u2190", "\u2194"), "[\u2192\u21d2\u2190\u2194]"),
    ("bullet_char", "bullet characters (•)", "\u2022", "\u2022"),
    ("nbsp", "non-breaking spaces", "\u00a0", "\u00a0"),
    ("period", "full stops", ".", r"\."),
    ("hyphen", "hyphens", "-", "-"),
    ("slash", "slashes", "/", "/"),
    ("ampersand", "ampersands", "&", "&"),
    ("percent", "percent signs", "%", "%"),
    ("bracket", "square brackets", "[", r"\["),
    ("link", "Markdown links", "](", r"\]\("),
    ("colon_eol", "lines ending in a colon", ":\n", r":$"),
    ("newline", "line breaks", "\n", None),
    ("blank_line", "paragraph breaks", "\n\n", None),
    ("h4", "deep headings (####)", "\n#### ", r"(?m)^####+ .*$"),
    ("hrule", "horizontal rules (---)", "\n---", r"(?m)^---+\s*$"),
    ("bold_bullet", "bullets that start in bold", "- **", r"(?m)^\s*[-*] \*\*"),
    ("table_row", "table rows", "\n|", r"(?m)^\|.*$"),
    ("single_quote", "straight single quotes", "'", "'"),
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


def _specs() -> tuple[FeatureSpec, ...]:
    out = [FeatureSpec(n, lab, "count of " + " or ".join(map(repr, (lit,) if isinstance(lit, str) else lit)), _C,
                       "punctuation", pat) for n, lab, lit, pat in CHAR_LITERALS]
    out += [FeatureSpec(n, lab, doc, unit, "distribution") for n, lab, doc, unit in DIST_FEATURES]
    out += [FeatureSpec(f"fw_{w}", f"the word '{w}'", f"\\b{w}\\b (function word)", _W, "function_words",
                        rf"(?i)\b{w}\b") for w in FUNCTION_WORDS]
    for key, (label, words) in LEXICONS.items():
        out.append(FeatureSpec(f"lex_{key}", label, "any of: " + ", ".join(words), _W, "lexicon",
                               r"(?i)\b(?:" + "|".join(map(re.escape, words)) + r")\b"))
    out += [FeatureSpec("ph_" + re.sub(r"\W+", "_", p).strip("_"), f"the phrase '{p}'", f"'{p}' (apostrophes "
                        "normalised)", _W, "phrases", r"(?i)\b" + re.escape(p).replace("'", "['’]") + r"\b")
            for p in PHRASES]
    return tuple(out)


RICH: tuple[FeatureSpec, ...] = _specs()
NAMES: tuple[str, ...] = tuple(s.name for s in RICH)

# Lower-case words, apostrophes kept, sentence ends -> '.', newlines kept, the rest -> space.
_SHAPE_TABLE = bytes(
    (c | 32) if (65 <= c <= 90 or 97 <= c <= 122) else (c if c in (39, 10) else (46 if c in (33, 46, 63) else 32))
    for c in range(256)
)
_LITERALS_B = tuple(
    (tuple(x.encode() for x in ((lit,) if isinstance(lit, str) else lit)), all(x.isascii() for x in lit))
    for _, _, lit, _ in CHAR_LITERALS
)
_PARA_SPLIT = re.compile(rb"\n[ ]*\n")
_CONJ = {b"and", b"but", b"so", b"or", b"yet"}
_THE = {b"the", b"this", b"it", b"that"}
_FUNCTION_B = tuple(w.encode() for w in FUNCTION_WORDS)
_LEXICON_B = tuple(tuple(w.encode() for w in ws) for _, ws in LEXICONS.values())
_PHRASES_B = tuple(b" " + p.encode() + b" " for p in PHRASES)


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


_PLANS = tuple(_plan(lits) for lits, _ in _LITERALS_B)
_PHRASE_WORDS = tuple(tuple(p.encode().split()) for p in PHRASES)


def _geometry(shape: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[bytes]]:
    """Word starts, word lengths, words per sentence, words per paragraph and each sentence's
    first word, from the shape alphabet (vectorised: no per-word Python loop)."""
    a = np.frombuffer(shape, np.uint8)
    isw = (a != 32) & (a != 46) & (a != 10)
    edge = np.diff(np.concatenate(([0], isw.view(np.int8), [0])))
    starts, ends = np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)
    sent_id = np.cumsum(a == 46)[starts] if len(starts) else starts
    per_sent = np.bincount(sent_id)
    bounds = np.array([m.start() for m in _PARA_SPLIT.finditer(shape)], dtype=np.int64)
    per_para = np.bincount(np.searchsorted(bounds, starts)) if len(starts) else starts
    is_first = np.concatenate(([True], sent_id[1:] != sent_id[:-1])) if len(starts) else starts.astype(bool)
    first = [shape[i:j] for i, j in zip(starts[is_first].tolist(), ends[is_first].tolist(), strict=True)]
    return starts, ends - starts, per_sent[per_sent > 0], per_para[per_para > 0], first


def rich(s: Scan) -> list[float]:
    """The :data:`NAMES` values for one scanned text."""
    raw, c, na = s.raw, s.counts, s.nonascii
    k = 1000.0 / s.n_char
    vals = [_literal(plan, raw, c, na) * k for plan in _PLANS]

    apos_raw = raw.replace("\u2019".encode(), b"'") if "\u2019" in na else raw
    shape = apos_raw.translate(_SHAPE_TABLE)
    starts, lengths, sw, pw, firsts = _geometry(shape)
    conj = sum(w in _CONJ for w in firsts)
    the = sum(w in _THE for w in firsts)
    ns = max(len(sw), 1)
    sw = sw.astype(np.float64) if len(sw) else np.zeros(1)
    pw = pw.astype(np.float64)
    tokens = apos_raw.translate(WORD_TABLE).split() if apos_raw is not raw else s.tokens
    counts = Counter(tokens)
    nw = max(len(tokens), 1)
    kw = 1000.0 / nw
    bold = raw.count(b"**") if c[42] > 1 else 0
    fences = raw.count(b"```") if c[96] > 2 else 0
    curly_apos = na.count("\u2019") if na else 0
    curly_dq = (na.count("\u201c") + na.count("\u201d")) if na else 0
    apos_words = 0
    if c[39] or curly_apos:
        ap = np.flatnonzero(np.frombuffer(shape, np.uint8) == 39)
        apos_words = len(np.unique(np.searchsorted(starts, ap, side="right")))
    vals += [
        float(sw.std()), float(np.median(sw)), float((sw <= 8).sum()) / ns, float((sw >= 30).sum()) / ns,
        conj / ns, the / ns,
        float(pw.mean()) if len(pw) else 0.0, float(pw.std()) if len(pw) else 0.0,
        float((pw <= 15).mean()) if len(pw) else 0.0,
        len(pw) * kw,
        float((lengths >= 8).sum()) / nw,
        list(counts.values()).count(1) / nw,
        apos_words * kw,
        curly_apos / (curly_apos + c[39]) if curly_apos + c[39] else 0.0,
        curly_dq / (curly_dq + c[34]) if curly_dq + c[34] else 0.0,
        len(na) / s.n_char,
        sum(1 for ch in na if ord(ch) >= 0x1F000) * k if c[0xF0] else 0.0,
        max(c[42] - 2 * bold, 0) * k,
        max(c[96] - 3 * fences, 0) * k,
    ]
    get = counts.get
    vals += [get(w, 0) * kw for w in _FUNCTION_B]
    vals += [sum(get(w, 0) for w in words) * kw for words in _LEXICON_B]
    joined = b""
    for words, p in zip(_PHRASE_WORDS, _PHRASES_B, strict=True):
        if all(w in counts for w in words):
            joined = joined or b" " + b" ".join(tokens) + b" "
            vals.append(joined.count(p) * kw)
        else:
            vals.append(0.0)
    return vals
