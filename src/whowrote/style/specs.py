"""Feature specifications: one :class:`FeatureSpec` per feature (name, label, one-line doc, unit).

``RESEARCH41`` is exactly the 41-feature list of the research spec (§5.1), in its order. The
extended features of the ``full`` set are specified in :mod:`whowrote.style.extended`.

``pattern`` (a Python regex, or None) marks what the feature counts inside a text, so a UI can
highlight it; see :func:`whowrote.style.highlight.tell_spans`.
"""

from __future__ import annotations

from dataclasses import dataclass

PER_1K_CHARS = "per 1,000 characters"
PER_1K_WORDS = "per 1,000 words"

# The research spec's 16 "AI vocabulary" words, counted per 1k words (features 24-39).
RESEARCH_WORDS: tuple[str, ...] = (
    "however", "moreover", "furthermore", "nuanced", "crucial", "essentially", "indeed", "arguably",
    "delve", "tapestry", "underscore", "intricate", "nevertheless", "consequently", "notably", "ultimately",
)


@dataclass(frozen=True)
class FeatureSpec:
    """One named feature: ``label`` is human words for explanations, ``unit`` its unit."""

    name: str
    label: str
    doc: str
    unit: str
    family: str
    pattern: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {"name": self.name, "label": self.label, "doc": self.doc, "unit": self.unit,
                "family": self.family, "pattern": self.pattern}


def _s(name: str, label: str, doc: str, unit: str, family: str, pattern: str | None = None) -> FeatureSpec:
    return FeatureSpec(name, label, doc, unit, family, pattern)


_C = PER_1K_CHARS
RESEARCH41: tuple[FeatureSpec, ...] = (
    _s("avg_sent_len_words", "average sentence length", "words / sentences (split on [.!?]+, blank pieces dropped)", "words", "length"),
    _s("avg_word_len", "average word length", "mean length of [A-Za-z']+ words (0 if none)", "characters", "length"),
    _s("type_token_ratio", "vocabulary variety", "distinct lower-cased words / words", "ratio", "length"),
    _s("punc_comma", "commas", "count of ','", _C, "punctuation", r","),
    _s("punc_semicolon", "semicolons", "count of ';'", _C, "punctuation", r";"),
    _s("punc_colon", "colons", "count of ':'", _C, "punctuation", r":"),
    _s("punc_emdash", "em-dashes", "count of U+2014 '—'", _C, "punctuation", "\u2014"),
    _s("punc_question", "question marks", "count of '?'", _C, "punctuation", r"\?"),
    _s("punc_exclaim", "exclamation marks", "count of '!'", _C, "punctuation", r"!"),
    _s("punc_paren", "parentheses", "count of '('", _C, "punctuation", r"\("),
    _s("punc_dquote", "straight double quotes", "count of straight '\"' only", _C, "punctuation", '["\u201c\u201d]'),
    _s("md_h1", "top-level headings", "lines starting '# '", _C, "markdown", r"(?m)^# .*$"),
    _s("md_h2_h3", "section headings (##, ###)", "lines starting '## ' or '### '", _C, "markdown", r"(?m)^#{2,3} .*$"),
    _s("md_bullet", "bullet-list lines", "lines of optional whitespace then '-' or '*' then a space", _C, "markdown", r"(?m)^[^\S\n]*[-*] "),
    _s("md_numbered", "numbered-list lines", "lines of optional whitespace, digits, '.', a space", _C, "markdown", r"(?m)^[^\S\n]*\d+\. "),
    _s("md_bold", "bold markers (**)", "occurrences of '**' (a bold span counts 2)", _C, "markdown", r"\*\*"),
    _s("md_code", "code fences", "occurrences of '```'", _C, "markdown", r"```"),
    _s("md_table", "table pipes", "occurrences of '|'", _C, "markdown", r"\|"),
    _s("md_blockquote", "block quotes", "lines starting '> '", _C, "markdown", r"(?m)^> .*$"),
    _s("latex", "LaTeX markup", "'$' plus '\\(', '\\[', '\\frac', '\\begin'", _C, "markdown", r"\$|\\\(|\\\[|\\frac|\\begin"),
    _s("ascii_art", "ASCII-art / box drawing", "runs of >=2 of '+|\\/_=^<>' or one box-drawing char U+2500-U+257F", _C, "markdown", r"[+|\\/_=^<>]{2,}|[\u2500-\u257F]"),
    _s("first_person_I", "first person 'I'", "\\bI\\b, case-sensitive", _C, "voice", r"\bI\b"),
    _s("first_person_we", "first person 'we'", "\\b[Ww]e\\b", _C, "voice", r"\b[Ww]e\b"),
    *(
        _s(f"w_{w}", f"the word '{w}'", f"\\b{w}\\b on the lower-cased text", PER_1K_WORDS, "vocabulary", rf"(?i)\b{w}\b")
        for w in RESEARCH_WORDS
    ),
    _s("digit_ratio", "digits", "digit characters / characters", "fraction of characters", "characters", r"\d"),
    _s("upper_ratio", "upper-case letters", "upper-case characters / characters", "fraction of characters", "characters", r"[A-Z]"),
)
assert len(RESEARCH41) == 41
