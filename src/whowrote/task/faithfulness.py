"""Is a rationale true about its text? Checkable style claims against the measured features.

:func:`rationale_faithfulness` is the share of a rationale's *checkable* claims that agree with
the text's features as :mod:`whowrote.style.features` measures them (``None`` when it makes no
checkable claim). A claim is a mention of a measurable cue family (em-dashes, headers, tables,
ASCII diagrams, lists, bold, questions, emoji, LaTeX, hedging, transitions, long/short sentences)
with a polarity read from the words around it, within its clause and comma segment (so "few
headers, heavy em-dashes" makes two claims of opposite sign, and "no headers, bullets" denies only
the headers):

- ``absent``: a negator ("no", "without", "lacks", "never", ...) up to 4 words before the mention
  -> true when the measured rate is at most a quarter of the reference;
- ``scarce``: "few", "rare", "minimal", ... nearby -> true when the rate is below the reference;
- ``abundant``: "heavy", "frequent", "many", ... nearby, or any mention of a rate family (hedging,
  transitions) -> true when the rate is above the reference;
- ``present``: a bare mention of a structural family ("uses headers") -> true when it occurs;
- a *stated measurement* right after the mention ("em-dashes: 6.1 per 1,000 characters", the form
  the style model's tells take) claims presence, or absence when it is 0;
- ``value``: any of the bundled style model's tell labels followed by a number ("semicolons: 1.2
  per 1,000 characters", "the word 'or': 13.2 per 1,000 words") claims that number: true when it is
  within ``VALUE_REL`` (20 %) plus ``VALUE_ABS`` (0.05, the rounding of one decimal) of the value
  the style model measures on the text (its own canonical reading, as its tells quote it). This
  checks the numbers a tells-style rationale gives, which a mention check cannot; a family
  mention inside such a span is not counted again.

The reference of a feature is its mean over the three providers' means in the bundled style
model (``norms_``), i.e. what a typical assistant text does; callers may pass their own. A
rationale's claims about a *provider's* habits ("typical of CLAUDE") are still claims about this
text, which is what the eval reads. Claims are words only: Markdown a rationale quotes or echoes
("##", "**") is not a claim. Sentence length is high/low against the reference the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from whowrote.types import PROVIDERS

# family -> (mention pattern, features summed, default kind of a bare mention)
CHECKABLE: dict[str, tuple[re.Pattern[str], tuple[str, ...], str]] = {
    name: (re.compile(pat), feats, kind) for name, (pat, feats, kind) in {
        # Raw "—" and "--" together: the canonical norms count both as double_hyphen (punc_emdash 0).
        "em_dash": (r"(?<!en-)(?<!en )(?:em[- ]?dash(?:es)?|\bdash(?:es)?\b)", ("punc_emdash", "double_hyphen"),
                    "present"),
        "headers": (r"\bheaders?\b|\bheadings?\b|section titles?", ("md_h1", "md_h2_h3", "h4"), "present"),
        "tables": (r"\btables?\b|tabular", ("md_table",), "present"),
        "ascii_diagram": (r"ascii|box[- ]drawing|\bdiagrams?\b", ("ascii_art",), "present"),
        "lists_bullets": (r"bullet(?:s|ed)?(?: points?| lists?)?|numbered lists?|\blists?\b|enumerat\w*",
                          ("md_bullet", "md_numbered", "bullet_char"), "present"),
        "bold": (r"\bbold(?:ed|ing)?\b", ("md_bold",), "present"),
        "questions": (r"rhetorical questions?|question marks?|\bquestions\b", ("punc_question",), "present"),
        "emoji": (r"emojis?|emoticons?", ("emoji",), "present"),
        "latex": (r"latex|mathematical notation|\bequations?\b", ("latex",), "present"),
        "hedging": (r"\bhedg\w*|qualifiers?|caveats?", ("lex_hedges",), "abundant"),
        "transitions": (r"transition(?:al)? words?|transitions|connectives?", ("lex_transitions",), "abundant"),
        "sentence_long": (r"(?:long|lengthy|run-on|sprawling|complex)(?:er)? sentences?", ("avg_sent_len_words",),
                          "abundant"),
        "sentence_short": (r"(?:short|brief|terse|clipped|punchy)(?:er)? sentences?|\bterse\b|\bclipped\b",
                           ("avg_sent_len_words",), "scarce"),
    }.items()}
_NEGATORS = {"no", "not", "without", "lacks", "lack", "lacking", "absence", "absent", "never", "zero", "none",
             "free", "avoids", "avoid", "avoiding", "nor", "doesn't", "don't", "isn't", "aren't", "little"}
_SCARCE = {"few", "fewer", "rare", "rarely", "minimal", "sparse", "sparing", "sparingly", "occasional",
           "limited", "restrained", "seldom", "less", "light", "scant", "hardly"}
_ABUNDANT = {"heavy", "heavily", "frequent", "frequently", "many", "lots", "numerous", "abundant", "extensive",
             "extensively", "liberal", "liberally", "prominent", "prominently", "dense", "multiple", "repeated",
             "repeatedly", "consistent", "consistently", "plenty", "pervasive", "plentiful", "generous",
             "abound", "dominate", "dominates", "rich", "lavish", "constant", "constantly", "ubiquitous"}
_CLAUSE = re.compile(r"(?:[;!?\n]|\.(?!\d))+|\b(?:but|whereas|while|although|though|yet)\b")  # "6.1" stays whole
# A stated measurement right after the mention ("em-dashes: 6.1 per 1,000 characters", "bold (**): 0"):
_STATED = re.compile(r"[^:,;]{0,40}?:\s*(\d[\d,]*(?:\.\d+)?)")
_WORD = re.compile(r"[a-z']+")
ABSENT_FRAC = 0.25  # "no X": at most this share of the reference rate
VALUE_REL, VALUE_ABS = 0.2, 0.05  # a stated value is true within 20 % + 0.05 of the measured one
MODEL_KEY = "model:"  # measured(): the style model's own features, by name, under this prefix


@dataclass(frozen=True)
class Claim:
    family: str
    kind: str  # absent / scarce / abundant / present
    value: float  # measured on the text
    reference: float
    true: bool
    phrase: str


@lru_cache(maxsize=1)
def default_reference() -> dict[str, float]:
    """Mean of the three providers' per-class feature means in the bundled style model."""
    from whowrote.style import load_model

    model = load_model()
    rows = [i for i, c in enumerate(model.classes_) if str(c) in PROVIDERS]
    means = model.norms_[rows].mean(axis=0)
    return {name: float(v) for name, v in zip(model.feature_names_, means, strict=True)}


def measured(text: str) -> dict[str, float]:
    """The text's features (the ``full`` set), by name, and the bundled style model's own features
    (what its tells quote: it reads the canonical form) under ``MODEL_KEY + name``."""
    from whowrote.style.explain import typography_stats
    from whowrote.style.features import extract_one, feature_names

    out = dict(zip(feature_names("full"), extract_one(text, "full"), strict=True))
    model, _, _ = _value_labels()
    out.update(zip((MODEL_KEY + n for n in model.feature_names_), map(float, model.features([text])[0]),
                   strict=True))
    # typography tells are measured on the raw text (the canonical form has no em-dash or curly quote)
    out.update({MODEL_KEY + n: float(v) for n, v in typography_stats(text).items()})
    return out


@lru_cache(maxsize=1)
def _value_labels() -> tuple[Any, re.Pattern[str], dict[str, str]]:
    """The bundled model, one pattern for "<any tell label>: <number>" (labels longest first, so
    "the word 'however'" is not read as a shorter label; literal alternatives: linear time) and
    each label's (lower case) feature name."""
    from whowrote.style import load_model
    from whowrote.style.explain import tell_label, typography_stats
    from whowrote.style.features import FEATURES

    model = load_model()
    labels = {tell_label(model, n).lower(): n for n in model.feature_names_}
    labels.update({FEATURES[n].label.lower(): n for n in typography_stats("")})  # the raw-text tells
    alts = "|".join(re.escape(lab) for lab in sorted(labels, key=len, reverse=True))
    pattern = re.compile(rf"(?<![a-z'])(?P<label>{alts})\s*:\s*(?P<num>\d[\d,]*(?:\.\d+)?)")
    return model, pattern, labels


def _value_claims(clause: str, text: str, feats: Mapping[str, float]) -> list[tuple[int, int, Claim]]:
    """(start, end, claim) for every stated tell value in ``clause`` (see the module docstring)."""
    _, pattern, feature_of = _value_labels()
    out = []
    values: Mapping[str, float] | None = None
    for m in pattern.finditer(clause):
        name = feature_of[m.group("label")]
        if values is None:
            values = feats if any(k.startswith(MODEL_KEY) for k in feats) else measured(text)
        value = float(values[MODEL_KEY + name])
        stated = float(m.group("num").replace(",", ""))
        true = abs(stated - value) <= VALUE_REL * abs(value) + VALUE_ABS
        out.append((m.start(), m.end(), Claim(f"value:{name}", "value", value, stated, true,
                                              clause[m.start():m.end()].strip()[:120])))
    return out


def _kind(family: str, before: Sequence[str], after: Sequence[str], default: str) -> str:
    if len(before) >= 2 and before[-2] in ("not", "no") and before[-1] in ("many", "much"):
        return "scarce"  # "not many headers": few, not none
    if any(w in _NEGATORS for w in before[-4:]):
        if family.startswith("sentence_"):  # "not long sentences" flips the claim; sentences exist
            return "scarce" if default == "abundant" else "abundant"
        return "absent"
    near = set(before[-4:]) | set(after[:3])
    if near & _SCARCE:
        return "scarce"
    if near & _ABUNDANT:
        return "abundant"
    return default


def _truth(kind: str, value: float, ref: float) -> bool:
    if kind == "absent":
        return value <= ABSENT_FRAC * ref
    if kind == "scarce":
        return value < ref
    if kind == "abundant":
        return value > ref
    return value > 0


def check_claims(reason: str, text: str, *, features: Mapping[str, float] | None = None,
                 reference: Mapping[str, float] | None = None) -> list[Claim]:
    """Every checkable claim of ``reason`` about ``text`` (at most one per family per clause)."""
    if not reason or not text:
        return []
    feats = features if features is not None else measured(text)
    ref = reference if reference is not None else default_reference()
    claims: list[Claim] = []
    for clause in _CLAUSE.split(reason.lower()):
        spans = _value_claims(clause, text, feats)
        found: list[tuple[int, Claim]] = [(a, c) for a, _, c in spans]
        for family, (pat, names, default) in CHECKABLE.items():
            m = pat.search(clause)
            if not m or any(a <= m.start() < b for a, b, _ in spans):  # a stated value counts once
                continue
            # Polarity words count only inside the mention's comma segment: "few headers, heavy em-dashes".
            before = _WORD.findall(clause[:m.start()].rsplit(",", 1)[-1])
            after = _WORD.findall(clause[m.end():].split(",", 1)[0])
            stated = _STATED.match(clause, m.end())
            if stated:  # a measured rate: 0 claims absence, anything else presence (its size is not checked)
                kind = "absent" if float(stated.group(1).replace(",", "")) == 0 else "present"
            else:
                kind = _kind(family, before, after, default)
            value = sum(float(feats[n]) for n in names)
            reference_value = sum(float(ref[n]) for n in names)
            found.append((m.start(), Claim(family, kind, value, reference_value,
                                           _truth(kind, value, reference_value), clause.strip()[:120])))
        claims += [c for _, c in sorted(found, key=lambda t: t[0])]  # in the rationale's order
    return claims


def rationale_faithfulness(reason_text: str, text: str, *, features: Mapping[str, float] | None = None,
                           reference: Mapping[str, float] | None = None) -> float | None:
    """Share of the rationale's checkable claims that are true of ``text``; None without any."""
    claims = check_claims(reason_text, text, features=features, reference=reference)
    if not claims:
        return None
    return sum(c.true for c in claims) / len(claims)


def next_distinct(texts: Sequence[str]) -> dict[str, str]:
    """Each distinct text's baseline for a claim check: the next distinct text in order of first
    appearance, wrapping round (a lone text maps to itself: nothing to contrast). A rationale that
    does not read its own text scores the same against its baseline."""
    distinct = list(dict.fromkeys(texts))
    return {t: distinct[(i + 1) % len(distinct)] for i, t in enumerate(distinct)}
