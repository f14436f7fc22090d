"""Provider balancing (research spec §1.6 B3 step 4): subsample every label to the smallest one.

The research builder balances each split as a whole. With several genres in one corpus that
would let the genre mix differ per provider (GEMINI has no blogs), so by default the balancing is
done within each genre and the balanced groups are concatenated; ``within=None`` gives the
research behaviour exactly. Labels outside ``labels`` (e.g. OTHER) are kept untouched, so a
caller can balance the three assistants and still keep every OTHER row.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pandas as pd


def balance_providers(
    frame: pd.DataFrame,
    rng: random.Random,
    labels: Sequence[str] | None = None,
    within: str | None = "genre",
    column: str = "provider",
) -> pd.DataFrame:
    """Subsample so that each balanced label has as many rows as the smallest one.

    - ``labels``: the labels to balance (None = every label present). Rows of other labels
      are kept as they are.
    - ``within``: a column to balance inside (each value separately), or None for the whole
      frame. A group where a balanced label is absent is balanced over the labels it has.
    - The result keeps the input's row order restricted to the kept rows after a seeded shuffle,
      as in the research builder (shuffle each class, keep its first n, shuffle the whole).
    """
    if frame.empty:
        return frame
    groups = [frame] if within is None else [g for _, g in frame.groupby(within, sort=True, dropna=False)]
    kept: list[int] = []
    for group in groups:
        kept.extend(_balance_group(group, rng, labels, column))
    rng.shuffle(kept)
    return frame.loc[kept]


def _balance_group(group: pd.DataFrame, rng: random.Random, labels: Sequence[str] | None,
                   column: str) -> list:
    present = sorted(group[column].unique())
    balanced = [lab for lab in present if labels is None or lab in labels]
    untouched = group.index[~group[column].isin(balanced)].tolist()
    if not balanced:
        return untouched
    by_label = {lab: group.index[group[column] == lab].tolist() for lab in balanced}
    n = min(len(ix) for ix in by_label.values())
    kept = list(untouched)
    for lab in balanced:  # sorted label order: deterministic RNG consumption
        ix = by_label[lab]
        rng.shuffle(ix)
        kept.extend(ix[:n])
    return kept


def label_counts(frame: pd.DataFrame, column: str = "provider") -> dict[str, int]:
    """Rows per label, in a stable order (for summaries and assertions)."""
    return {str(k): int(v) for k, v in frame[column].value_counts().sort_index().items()}
