"""Which texts the study looks at, and how they are split.

- ``subsample``: at most ``max_per_class`` texts per (genre, provider) cell, seeded, so that a run
  on the whole shared corpus stays within minutes on a laptop (the content probe embeds every
  text with MiniLM on CPU).
- ``build_splits``: the topic-held-out split (``val``), a held-out-category split (``val_ood``,
  the categories of ``default_ood_categories``) and leave-one-genre-out (``logo_<genre>``), all
  from :mod:`whowrote.data.splits` (unbalanced: the sample is already capped per cell), as row
  positions into the sample.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import pandas as pd

from whowrote.types import LABELS, WhowroteError

ROW = "_study_row"


def subsample(
    corpus: pd.DataFrame, max_per_class: int | None, seed: int = 0, labels: Sequence[str] = LABELS
) -> pd.DataFrame:
    """Rows with a provider in ``labels``, at most ``max_per_class`` per (genre, provider).

    The result is in corpus order, re-indexed 0..n-1, with a ``_study_row`` column = position.
    """
    missing = [c for c in ("text", "provider") if c not in corpus.columns]
    if missing:
        raise WhowroteError(f"corpus lacks column(s) {missing}")
    df = corpus[corpus["provider"].isin(labels)].copy()
    df = df[df["text"].astype(str).str.strip().str.len() > 0]
    for col in ("genre", "category", "topic"):
        if col not in df.columns:
            df[col] = "text" if col == "genre" else df.get("id", pd.Series(range(len(df)), index=df.index))
        df[col] = df[col].fillna("unknown").astype(str)
    if max_per_class:
        keep = []
        for (genre, provider), cell in sorted(df.groupby(["genre", "provider"]), key=lambda kv: kv[0]):
            n = min(len(cell), max_per_class)
            # seeded per cell by its name, so a cell's sample does not depend on the other cells
            state = (seed * 1_000_003 + zlib.crc32(f"{genre}|{provider}".encode())) % 2**32
            keep.append(cell.sample(n=n, random_state=state) if n < len(cell) else cell)
        df = pd.concat(keep).sort_index()
    df = df.reset_index(drop=True)
    df[ROW] = np.arange(len(df))
    counts = df["provider"].value_counts()
    if len(counts) < 2:
        raise WhowroteError(f"need texts from at least 2 providers, got { {str(k): int(v) for k, v in counts.items()} }")
    return df


def _rows(part: pd.DataFrame) -> np.ndarray:
    return np.sort(part[ROW].to_numpy(dtype=int))


def build_splits(df: pd.DataFrame, seed: int = 0, val_frac: float = 0.2) -> dict[str, dict]:
    """Named splits -> ``{"train": rows, "test": rows, "note": str}``."""
    from whowrote.data.splits import default_ood_categories, leave_one_genre_out, topic_holdout_split

    splits: dict[str, dict] = {}
    ood = default_ood_categories(df, seed)
    parts = topic_holdout_split(df, seed=seed, val_frac=val_frac, ood_categories=ood or None, balance=False)
    train = _rows(parts["train"])  # val and val_ood share one train side
    splits["val"] = {"train": train, "test": _rows(parts["val"]),
                     "note": "topics held out (no topic in both train and test)"}
    if ood and "val_ood" in parts and len(parts["val_ood"]):
        splits["val_ood"] = {"train": train, "test": _rows(parts["val_ood"]),
                             "note": "whole categories held out: " + ", ".join(ood)}
    if df["genre"].nunique() >= 2:
        for genre, train, test in leave_one_genre_out(df):
            if len(test) and train["provider"].nunique() >= 2:
                splits[f"logo_{genre}"] = {"train": _rows(train), "test": _rows(test),
                                           "note": f"trained on the other genres, tested on {genre}"}
    providers = df["provider"].to_numpy(dtype=object)
    for name, s in splits.items():
        if len(s["train"]) == 0 or len(s["test"]) == 0:
            raise WhowroteError(f"split {name!r} is empty; give a larger corpus")
        if len(set(providers[s["train"]])) < 2:  # a probe cannot be fitted on one class
            raise WhowroteError(f"split {name!r}: its training rows hold one provider only "
                                f"({providers[s['train']][0]}); give more topics per provider")
    return splits
