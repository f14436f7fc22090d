"""Leak audit: what in a corpus could let a model read the label instead of the style.

Problems found, by kind (``KINDS``):
- ``self_identification``: the text names itself an AI / a named assistant ("As an AI language
  model", "I'm Claude", "a large language model trained by OpenAI"). Dropped by default.
- ``names_own_model``: the text contains its own generator id (``gpt-5.5``, ``claude-opus-4.8``).
- ``metadata_line``: a leftover ``model:`` / ``provider:`` line or a ``---`` fence near the start
  (frontmatter that was not stripped). Dropped by default.
- ``provider_mention``: a provider or company name (Claude, ChatGPT, OpenAI, Anthropic, Gemini,
  Google DeepMind) in the first 300 characters. Reported only: fiction has characters called
  Claude and debates discuss OpenAI, so this needs a human look.
- ``exact_duplicate`` / ``near_duplicate``: see :mod:`whowrote.data.dedup`; the later row of each
  pair is the one flagged (and dropped when asked).
- ``empty`` / ``too_short`` (< ``min_words`` words) / ``very_long`` (> ``max_words``).
- ``unknown_model``: a model name no provider rule knows (it is labelled OTHER); one problem per
  name. ``no_model``: rows labelled from a provider column only.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

import pandas as pd

from whowrote.data.dedup import NearPair, scan
from whowrote.data.providers import ProviderMap
from whowrote.data.splits import word_counts

KINDS: tuple[str, ...] = (
    "self_identification", "names_own_model", "metadata_line", "provider_mention",
    "exact_duplicate", "near_duplicate", "empty", "too_short", "very_long", "unknown_model", "no_model",
)
DROP_BY_DEFAULT: tuple[str, ...] = ("self_identification", "metadata_line", "exact_duplicate", "empty")

_SELF_ID = re.compile(
    r"\bas an? (?:ai|artificial intelligence)(?: language)? (?:model|assistant)\b"
    r"|\bas a (?:large )?language model\b"
    r"|\b(?:i'm|i am|my name is) (?:claude|chatgpt|gemini|bard)\b"
    r"|\b(?:a |an )?(?:large )?language model (?:trained|developed|created|made|built) by\b"
    r"|\b(?:i was|i'm|i am) (?:trained|developed|created|made|built) by (?:openai|anthropic|google)\b",
    re.I,
)
# A ``model:``-style line, or a text still opening with a YAML block (``---`` then ``key:``);
# a lone ``---`` elsewhere is a Markdown rule, not frontmatter.
_SELF_ID_KEYS = ("language model", "as an ai", "as an artificial", "claude", "chatgpt", "gemini", "bard",
                 "openai", "anthropic", "google")
_METADATA = re.compile(r"\A\s*---[ \t]*\n[\w-]+\s*:|^[ \t]*(?:model|source_model|generator|provider|author)[ \t]*:[ \t]*\S",
                       re.I | re.M)
_PROVIDER_NAME = re.compile(r"\b(claude|chatgpt|openai|anthropic|gemini|google deepmind)\b", re.I)
HEAD_CHARS = 300
METADATA_LINES = 10


@dataclass(frozen=True)
class Problem:
    """One finding: ``row`` is the position in the audited table (None for per-name findings)."""

    kind: str
    row: int | None
    id: str
    detail: str


@dataclass
class AuditReport:
    """What :func:`audit` found: counts tables and every problem."""

    n_rows: int
    counts: dict[str, pd.DataFrame]
    problems: list[Problem] = field(default_factory=list)
    near_pairs: list[NearPair] = field(default_factory=list)
    exact_groups: list[list[int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def problem_counts(self) -> dict[str, int]:
        """Problems per kind (only kinds that occur), in ``KINDS`` order."""
        found = pd.Series([p.kind for p in self.problems], dtype=object).value_counts()
        return {k: int(found[k]) for k in KINDS if k in found}

    def flagged_rows(self, kinds: Collection[str] = DROP_BY_DEFAULT) -> list[int]:
        """Row positions flagged with any of ``kinds`` (sorted)."""
        return sorted({p.row for p in self.problems if p.kind in kinds and p.row is not None})

    def to_dict(self) -> dict:
        """A JSON-ready summary (counts, problem totals and the problems themselves)."""
        return {
            "n_rows": self.n_rows,
            "counts": {k: v.reset_index().to_dict("records") for k, v in self.counts.items()},
            "problem_counts": self.problem_counts(),
            "problems": [p.__dict__ for p in self.problems],
            "notes": self.notes,
        }


def audit(
    corpus: pd.DataFrame,
    near_duplicates: bool = True,
    min_words: int = 50,
    max_words: int = 30_000,
    provider_rules: Iterable[tuple[str, str]] = (),
) -> AuditReport:
    """Audit a corpus table (from :func:`whowrote.data.load_corpus`); nothing is changed."""
    frame = corpus.reset_index(drop=True)
    texts = frame["text"].astype(str)
    ids = frame["id"].astype(str)
    problems: list[Problem] = []

    def add(kind: str, rows: Iterable[int], detail: str | Iterable[str]) -> None:
        details = [detail] * len(list(rows)) if isinstance(detail, str) else list(detail)
        problems.extend(Problem(kind, int(r), ids[r], d) for r, d in zip(rows, details, strict=True))

    plain = texts.str.replace("\u2019", "'", regex=False).str.lower()
    # The full pattern is slow on long texts: run it only where one of its key words occurs.
    maybe = [i for i, t in enumerate(plain) if any(k in t for k in _SELF_ID_KEYS)]
    hits = [(i, m.group(0)) for i in maybe if (m := _SELF_ID.search(plain[i]))]
    add("self_identification", [i for i, _ in hits], [f"says {h!r}" for _, h in hits])
    own = [i for i, (t, m) in enumerate(zip(plain, frame["model"].astype(str).str.lower(), strict=True))
           if len(m) >= 4 and m.split("/")[-1] in t]
    add("names_own_model", own, [f"contains its model id {frame['model'][i]!r}" for i in own])
    head_lines = plain.map(lambda t: "\n".join(t.lstrip().splitlines()[:METADATA_LINES]))
    meta = head_lines.str.extract(f"({_METADATA.pattern})", flags=re.I | re.M)[0].dropna()
    add("metadata_line", meta.index, [f"metadata line {m.strip()!r} near the start" for m in meta])
    names = plain.str[:HEAD_CHARS].str.extract(_PROVIDER_NAME.pattern, flags=re.I)[0].dropna()
    add("provider_mention", names.index, [f"names {n!r} in the first {HEAD_CHARS} characters" for n in names])

    groups, pairs = scan(texts.tolist(), near=near_duplicates)
    for group in groups:
        add("exact_duplicate", group[1:], f"same text as {ids[group[0]]}")
    for p in pairs:
        add("near_duplicate", [p.b], f"near-duplicate of {ids[p.a]} (5-gram Jaccard {p.jaccard}, "
                                     f"containment {p.containment})")

    words = word_counts(texts)
    add("empty", frame.index[texts.str.strip() == ""], "empty text")
    short = frame.index[(words > 0) & (words < min_words)]
    add("too_short", short, [f"{words[i]} words (< {min_words})" for i in short])
    long = frame.index[words > max_words]
    add("very_long", long, [f"{words[i]} words (> {max_words})" for i in long])

    provider_map = ProviderMap(provider_rules)
    models = frame["model"].astype(str)
    for name, n in models[models != ""].value_counts().sort_index().items():
        if not provider_map.is_known(name):
            problems.append(Problem("unknown_model", None, "", f"model {name!r} ({n} rows) matches no "
                                    f"provider rule: labelled {provider_map(name)}"))
    no_model = frame.index[models == ""]
    if len(no_model):
        problems.append(Problem("no_model", None, "", f"{len(no_model)} rows have no model name: "
                                "provider taken from the source's label column"))
    return AuditReport(
        n_rows=len(frame),
        counts=corpus_counts(frame, words),
        problems=problems,
        near_pairs=pairs,
        exact_groups=groups,
        notes=list(corpus.attrs.get("load_notes", [])),
    )


def drop_flagged(corpus: pd.DataFrame, report: AuditReport,
                 kinds: Collection[str] = DROP_BY_DEFAULT) -> pd.DataFrame:
    """The corpus without the rows flagged with ``kinds`` (positions as audited)."""
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown problem kinds: {sorted(unknown)} (known: {', '.join(KINDS)})")
    keep = pd.Series(True, index=range(len(corpus)))
    keep[report.flagged_rows(kinds)] = False
    return corpus[keep.to_numpy()].reset_index(drop=True)


def corpus_counts(frame: pd.DataFrame, words: pd.Series | None = None) -> dict[str, pd.DataFrame]:
    """Rows per provider, crossed with genre, model and category (plus mean words per genre)."""
    words = word_counts(frame["text"]) if words is None else words
    out = {}
    for by in ("genre", "model", "category"):
        table = pd.crosstab(frame[by].astype(str), frame["provider"])
        table["total"] = table.sum(axis=1)
        out[by] = table
    out["genre"]["mean_words"] = words.groupby(frame["genre"].astype(str)).mean().round().astype(int)
    out["genre"]["topics"] = frame.groupby(frame["genre"].astype(str))["topic"].nunique()
    return out
