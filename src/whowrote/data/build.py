"""The split builder behind ``whowrote data split``: audit-clean, cap, split, augment.

Schemes:
- ``topic`` (default): :func:`topic_holdout_split` over every provider present (OTHER kept as a
  fourth class), ``val_ood`` = held-out whole categories (``"auto"``: see
  :func:`default_ood_categories`) and/or whole genres.
- ``binary``: the same split restricted to CLAUDE vs CHATGPT (research builds B1/B2).
- ``logo``: leave-one-genre-out: ``<genre>/train`` and ``<genre>/test`` per genre.

Strip augmentation (spec §1.6 B6) rewrites a seeded ``round(n * strip_frac)`` sample of train
rows with :func:`strip_formatting` and marks them ``stripped=True``; val and test never are.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import pandas as pd

from whowrote.data.audit import DROP_BY_DEFAULT, audit
from whowrote.data.balance import label_counts
from whowrote.data.clean import strip_formatting
from whowrote.data.splits import (
    BINARY_LABELS,
    default_ood_categories,
    leave_one_genre_out,
    topic_holdout_split,
    word_counts,
)
from whowrote.formats import install_hint
from whowrote.types import WhowroteError

SCHEMES: tuple[str, ...] = ("topic", "binary", "logo")


@dataclass
class SplitConfig:
    """Everything that decides a split; the same config and corpus give the same files."""

    scheme: str = "topic"
    seed: int = 0
    val_frac: float = 0.15
    ood_categories: Sequence[str] | str | None = "auto"  # "auto", None (no val_ood) or names
    ood_genres: Sequence[str] = ()
    labels: Sequence[str] | None = None  # providers kept (None = all; binary forces C/P)
    balance: bool = True
    balance_labels: Sequence[str] | None = None  # None = every label kept
    balance_within: str | None = "genre"
    max_words: int | None = None
    max_tokens: int | None = None
    tokenizer: str | None = None  # a local HF tokenizer folder or cached id (offline)
    strip_frac: float = 0.0
    drop: Sequence[str] = DROP_BY_DEFAULT  # audit problem kinds removed before splitting
    near_duplicates: bool = True


@dataclass
class SplitResult:
    """The splits (name -> table; ``logo`` names look like ``blog/train``) and what was done."""

    splits: dict[str, pd.DataFrame]
    info: dict = field(default_factory=dict)


def build_splits(corpus: pd.DataFrame, config: SplitConfig | None = None) -> SplitResult:
    """Audit-clean the corpus, apply caps, split by ``config.scheme`` and augment train."""
    cfg = config or SplitConfig()
    if cfg.scheme not in SCHEMES:
        raise WhowroteError(f"unknown split scheme {cfg.scheme!r} (choose from {', '.join(SCHEMES)})")
    if not 0 <= cfg.val_frac < 1 or not 0 <= cfg.strip_frac <= 1:
        raise WhowroteError("--val-frac must be in [0, 1) and --strip-frac in [0, 1]")
    if cfg.max_tokens and not cfg.tokenizer:
        raise WhowroteError("--max-tokens needs --tokenizer (a local tokenizer folder or a cached hub id)")
    if cfg.balance and cfg.scheme != "logo" and cfg.balance_within and cfg.balance_within not in corpus.columns:
        raise WhowroteError(f"--balance-within {cfg.balance_within!r}: no such column "
                            f"(has: {', '.join(map(str, corpus.columns))}; or 'none')")
    frame = corpus.reset_index(drop=True)
    report = audit(frame, near_duplicates=cfg.near_duplicates)
    flagged = report.flagged_rows(cfg.drop)
    # Keep the audited positions as the index: near-duplicate pairs refer to them.
    frame = frame.drop(index=flagged)
    if cfg.max_words:
        frame = frame[word_counts(frame["text"]) <= cfg.max_words]
    if cfg.max_tokens:
        frame = frame[token_counts(frame["text"], cfg.tokenizer) <= cfg.max_tokens]
    labels = BINARY_LABELS if cfg.scheme == "binary" else cfg.labels
    pairs = [(p.a, p.b) for p in report.near_pairs] + [(g[0], r) for g in report.exact_groups for r in g[1:]]
    info: dict = {"config": {k: v if not isinstance(v, tuple) else list(v) for k, v in asdict(cfg).items()},
                  "audit_dropped": len(flagged), "near_duplicate_pairs": len(pairs),
                  "audit_problems": report.problem_counts(), "load_notes": report.notes,
                  "unknown_models": [p.detail for p in report.problems if p.kind == "unknown_model"]}
    if cfg.scheme == "logo":
        splits = {}
        for genre, train, test in leave_one_genre_out(frame, seed=cfg.seed, labels=labels, balance=cfg.balance,
                                                      balance_labels=cfg.balance_labels, near_duplicates=pairs):
            folder = _safe_folder_name(genre)  # a genre value becomes a path: keep it one plain folder
            splits[f"{folder}/train"], splits[f"{folder}/test"] = train, test
    else:
        ood = cfg.ood_categories
        if isinstance(ood, str):
            if ood != "auto":
                raise WhowroteError(f"ood_categories must be 'auto', None or a list, not {ood!r}")
            ood = default_ood_categories(frame, seed=cfg.seed)
        unknown = sorted(set(ood or ()) - set(frame["category"])) + sorted(set(cfg.ood_genres) - set(frame["genre"]))
        if unknown:
            raise WhowroteError(f"held-out categories/genres not in the corpus: {', '.join(unknown)}")
        info["ood_categories"], info["ood_genres"] = list(ood or ()), list(cfg.ood_genres)
        splits = topic_holdout_split(
            frame, seed=cfg.seed, val_frac=cfg.val_frac, ood_categories=ood, balance=cfg.balance,
            ood_genres=cfg.ood_genres, labels=labels,
            balance_labels=cfg.balance_labels, balance_within=cfg.balance_within, near_duplicates=pairs,
        )
    for name in list(splits):
        part = splits[name]
        frac = cfg.strip_frac if name.endswith("train") else 0.0
        splits[name] = strip_augment(part, frac, seed=cfg.seed)
    if not any(len(p) for p in splits.values()):
        raise WhowroteError("every split is empty: nothing left after filtering (check --labels / caps)")
    check_not_empty(splits, frame, cfg.scheme)
    info["splits"] = {name: {"rows": len(p), "providers": label_counts(p), "topics": int(p["topic"].nunique()),
                             "stripped": int(p["stripped"].sum())} for name, p in splits.items()}
    return SplitResult(splits, info)


def check_not_empty(splits: dict[str, pd.DataFrame], frame: pd.DataFrame, scheme: str) -> None:
    """An empty train, val or test split is an error, not a result: it trains or scores on nothing."""
    empty = [name for name, part in splits.items() if not len(part) and name != "val_ood"]
    if not empty:
        return
    if scheme == "logo":
        raise WhowroteError(f"split(s) {', '.join(empty)} are empty: leave-one-genre-out needs at least two "
                            f"genres (this corpus has {frame['genre'].nunique()}: "
                            f"{', '.join(map(str, sorted(frame['genre'].unique())))})")
    topics = frame.groupby("genre")["topic"].nunique().to_dict()
    raise WhowroteError(f"split(s) {', '.join(empty)} are empty: holding out topics needs at least two topics per "
                        f"genre (topics per genre: {', '.join(f'{g} {n}' for g, n in topics.items())}); "
                        "name the topic column with --topic-column")


def strip_augment(frame: pd.DataFrame, frac: float, seed: int = 0) -> pd.DataFrame:
    """A copy with a seeded ``round(len * frac)`` sample of rows passed through
    :func:`strip_formatting` and a boolean ``stripped`` column."""
    out = frame.reset_index(drop=True).copy()
    out["stripped"] = False
    n = round(len(out) * frac)
    if n:
        rows = sorted(random.Random(seed).sample(range(len(out)), n))
        out.loc[rows, "text"] = out.loc[rows, "text"].map(strip_formatting)
        out.loc[rows, "stripped"] = True
    return out


def token_counts(texts: pd.Series, tokenizer: str | None) -> pd.Series:
    """Tokens per text with a Hugging Face tokenizer (no special tokens, no chat template)."""
    if not tokenizer:
        raise WhowroteError("--max-tokens needs --tokenizer (a local tokenizer folder or a cached hub id)")
    try:
        from transformers import AutoTokenizer
    except ImportError:
        raise WhowroteError(f"--max-tokens needs transformers: {install_hint('llm')}") from None
    try:
        tok = AutoTokenizer.from_pretrained(tokenizer)
    except Exception as e:  # missing folder, offline without cache, bad files: all one message
        raise WhowroteError(f"cannot load tokenizer {tokenizer!r}: {str(e).splitlines()[0]}") from None
    ids = tok(texts.tolist(), add_special_tokens=False)["input_ids"]
    return pd.Series([len(i) for i in ids], index=texts.index)


def _safe_folder_name(name: str) -> str:
    """``name`` as a single folder name: no separators, no leading dots, never empty."""
    cleaned = re.sub(r"[^\w.\-]+", "_", str(name)).lstrip(".")
    return cleaned or "_"
