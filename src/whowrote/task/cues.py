"""What a rationale says: its reason text, the cue families it cites, its tone, length and repetition.

The rules follow the research trace-quirk analysis (spec §5.8): the reason text is the body of
the first closed ``<reason_why>`` (else everything after an unclosed tag, else ""); it counts as a
rationale from :data:`MIN_WORDS` words; the twelve surface-feature families and the
confident/hedged markers are matched on the lower-cased text. ``latex`` is added (the spec's
fingerprints cite it for GEMINI). Every pattern is a plain alternation (linear time).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from whowrote.task.parser import first_block

MIN_WORDS = 5  # fewer whitespace words: not a rationale (spec §5.8 step 2)

_OPEN = re.compile(r"<reason_why>", re.IGNORECASE)

CUE_FAMILIES: dict[str, re.Pattern[str]] = {name: re.compile(p) for name, p in {
    "em_dash": r"em[- ]?dash|\u2014|\bdash(?:es)?\b",
    "headers": r"header|heading|##|markdown head|section title",
    "tables": r"\btables?\b|tabular|\bcolumns?\b",
    "ascii_diagram": r"ascii|diagram|\bart\b|box[- ]draw|figure",
    "lists_bullets": r"bullet|\blist(?:s|ed)?\b|enumerat|numbered",
    "sentence_len": r"sentence length|(?:long|short)(?:er)? sentences?|terse|clipped|run-on|sprawling",
    "transitions": r"\bhowever\b|furthermore|moreover|therefore|transition word|connective",
    "emoji": r"emoji|emoticon",
    "hedging": r"hedg|qualifi|caveat|nuance|measured|cautious",
    "bold_caps": r"\bbold\b|\*\*|all[- ]caps|capitaliz",
    "questions": r"rhetorical question|asks the reader|question mark",
    "density": r"\bdense\b|encyclopedic|jargon|technical abstraction|academic",
    "latex": r"latex|\bequations?\b|mathematical notation",
}.items()}
CONFIDENT = re.compile(r"clearly|unmistakab|definit|certainly|hallmark|signature|telltale|obvious")
HEDGED = re.compile(r"perhaps|possibly|\bmight\b|could be|somewhat|seems|appears|\bmay ")
_WORD = re.compile(r"[a-z']+")


def reason_text(completion: str) -> str:
    """Body of the first closed ``<reason_why>``; after an unclosed one, the rest; else ""."""
    completion = completion or ""
    body = first_block(completion, "reason_why")  # the parser's linear-time search
    if body is not None:
        return body.strip()
    m = _OPEN.search(completion)
    return completion[m.end():].strip() if m else ""


def is_rationale(reason: str) -> bool:
    return len(reason.split()) >= MIN_WORDS


def cue_families(reason: str) -> set[str]:
    """The cue families a rationale cites (each counted once per rationale)."""
    low = reason.lower()
    return {name for name, pat in CUE_FAMILIES.items() if pat.search(low)}


def tone(reason: str) -> dict[str, bool]:
    low = reason.lower()
    return {"confident": bool(CONFIDENT.search(low)), "hedged": bool(HEDGED.search(low))}


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _ngrams(ws: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(ws[i:i + n]) for i in range(len(ws) - n + 1)]


def repetition(reason: str, n: int = 4) -> float | None:
    """Share of the rationale's word n-grams that repeat an earlier one (0 = none; None if too short).

    A looping rationale ("CLAUDE. Wait ... CLAUDE ...") scores near 1.
    """
    grams = _ngrams(words(reason), n)
    if not grams:
        return None
    return 1.0 - len(set(grams)) / len(grams)


def echo(reason: str, text_grams: set[tuple[str, ...]], n: int = 8) -> float | None:
    """Share of the rationale's word n-grams copied from the input text (the RLSD echo quirk)."""
    grams = _ngrams(words(reason), n)
    if not grams:
        return None
    return sum(g in text_grams for g in grams) / len(grams)


def text_ngrams(text: str, n: int = 8) -> set[tuple[str, ...]]:
    return set(_ngrams(words(text), n))


def count_families(reasons: Iterable[str]) -> dict[str, int]:
    """Rationales citing each family, most cited first (families never cited are left out)."""
    counts: dict[str, int] = {}
    for r in reasons:
        for fam in cue_families(r):
            counts[fam] = counts.get(fam, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
