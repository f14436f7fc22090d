"""Leak hygiene for generated rows, through the corpus audit (:mod:`whowrote.data.audit`).

Each new text first loses a leading YAML frontmatter block (models sometimes open with one, and
it is exactly the label leak spec §1.4 warns about), then goes through the same checks as
``whowrote data audit``: self-identification, its own model id, metadata lines. Kinds in the plan's
``[hygiene] drop`` (default: self_identification, metadata_line, names_own_model, empty) send the
row to ``dropped.jsonl``; the others (provider_mention, too_short ...) are kept and listed in the
row's ``leak_flags`` so a human can look.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from whowrote.data.clean import split_frontmatter
from whowrote.types import CORPUS_COLUMNS

AUDIT_COLUMNS = CORPUS_COLUMNS  # the audit reads a corpus table


@dataclass(frozen=True)
class Verdict:
    text: str  # the text to keep (frontmatter removed)
    frontmatter_stripped: bool
    drop: tuple[str, ...]  # kinds that drop the row
    flags: tuple[str, ...]  # kinds reported but kept
    details: tuple[str, ...]


def check(row: dict, drop_kinds: Collection[str]) -> Verdict:
    """Audit one generated row (``row`` has the corpus columns)."""
    import pandas as pd

    from whowrote.data.audit import audit

    _, body = split_frontmatter(row["text"])
    stripped = body != row["text"]
    frame = pd.DataFrame([{**{k: row.get(k) for k in AUDIT_COLUMNS}, "text": body}])
    frame[list(AUDIT_COLUMNS)] = frame[list(AUDIT_COLUMNS)].fillna("").astype(str)
    problems = [p for p in audit(frame, near_duplicates=False).problems if p.row is not None]
    if body.strip() == "" and not any(p.kind == "empty" for p in problems):
        problems.append(_empty())
    kinds = tuple(dict.fromkeys(p.kind for p in problems))
    return Verdict(
        text=body, frontmatter_stripped=stripped,
        drop=tuple(k for k in kinds if k in drop_kinds), flags=tuple(k for k in kinds if k not in drop_kinds),
        details=tuple(f"{p.kind}: {p.detail}" for p in problems) + (("frontmatter stripped",) if stripped else ()),
    )


def _empty():
    from whowrote.data.audit import Problem

    return Problem("empty", 0, "", "empty text")
