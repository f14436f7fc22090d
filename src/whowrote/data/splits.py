"""Honest splits: the research canonical topic hold-out (spec §1.6 B3) and leave-one-genre-out.

A topic is identified by ``(genre, topic)``: topics are shared across providers by design (every
model answered the same prompt), and in longform the same novella prompt appears under two
categories, so a topic is the unit that is never split. Near-duplicate texts are kept on one side
too: a train row that nearly duplicates a val / val_ood row is dropped. Both rules are checked by
:func:`assert_no_leak`, which raises :class:`SplitLeakError` (a hard assertion, not ``assert``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Iterable, Iterator, Sequence

import pandas as pd

from whowrote.data.balance import balance_providers

# The research system's held-out ("hardest") categories (spec §1.1).
RESEARCH_OOD_CATEGORIES: tuple[str, ...] = ("history", "politics", "economics-systems")
SPLIT_ORDER: tuple[str, ...] = ("train", "val", "val_ood")
BINARY_LABELS: tuple[str, ...] = ("CLAUDE", "CHATGPT")  # the research builds B1/B2


class SplitLeakError(AssertionError):
    """A topic or a near-duplicate pair crosses two splits (a bug, never expected)."""


def topic_holdout_split(
    corpus: pd.DataFrame,
    seed: int = 0,
    val_frac: float = 0.15,
    ood_categories: Collection[str] | None = None,
    balance: bool = True,
    max_words: int | None = None,
    *,
    ood_genres: Collection[str] = (),
    labels: Sequence[str] | None = None,
    balance_labels: Sequence[str] | None = None,
    balance_within: str | None = "genre",
    near_duplicates: Iterable[tuple[int, int]] | None = None,
) -> dict[str, pd.DataFrame]:
    """The canonical split: ``{"train", "val"[, "val_ood"]}`` DataFrames (corpus columns kept).

    1. ``labels`` keeps only those providers (e.g. ``("CLAUDE", "CHATGPT")``); ``max_words``
       drops longer texts (the research builder drops, it does not truncate).
    2. ``val_ood`` = every row of ``ood_categories`` / ``ood_genres``; rows elsewhere that share
       a (genre, topic) with them are dropped so that no topic crosses.
    3. ``val`` = per category (sorted), its topics sorted then shuffled with the seeded RNG, the
       first ``k = max(1, round(n_topics * val_frac))`` held out, plus the next ones while some
       provider of the category is missing from them (never past half the topics; with every
       provider on every topic, as in the research corpus, this adds none). Categories with fewer than
       ``ceil(1 / val_frac)`` topics are pooled per genre first (else ``k = 1`` of 2 topics
       would send half a tiny category to val); a pool of one topic stays in train.
    4. ``near_duplicates``: pairs of row labels (``corpus.index``); a train row near-duplicating
       a val / val_ood row is dropped (likewise val vs val_ood).
    5. ``balance``: each split subsampled per provider (see :func:`balance_providers`;
       ``balance_labels`` picks which labels, others such as OTHER are kept whole).
    """
    rng = random.Random(seed)
    frame = corpus
    if not frame.index.is_unique:  # rows are tracked by index label below
        if near_duplicates is not None:
            raise ValueError("near_duplicates refer to index labels, but the corpus index is not unique")
        frame = frame.reset_index(drop=True)
    if labels is not None:
        frame = frame[frame["provider"].isin(labels)]
    if max_words:
        frame = frame[word_counts(frame["text"]) <= max_words]
    keys = topic_keys(frame)
    is_ood = frame["category"].isin(ood_categories or ()) | frame["genre"].isin(ood_genres)
    ood_keys = set(keys[is_ood])
    in_dist = ~is_ood & ~keys.isin(ood_keys)  # rows sharing a topic with val_ood are dropped
    held = _held_out_topics(frame[in_dist], keys[in_dist], rng, val_frac)
    assign = pd.Series("train", index=frame.index)
    assign[in_dist & keys.isin(held)] = "val"
    assign[is_ood] = "val_ood"
    assign[~is_ood & ~in_dist] = "drop"
    if near_duplicates is not None:
        _drop_near_duplicates(assign, near_duplicates)
    splits = {name: frame[assign == name] for name in SPLIT_ORDER}
    if not (ood_categories or ood_genres):
        splits.pop("val_ood")
    for name, part in splits.items():
        if balance:
            part = balance_providers(part, rng, labels=balance_labels, within=balance_within)
        else:
            order = part.index.tolist()
            rng.shuffle(order)
            part = part.loc[order]
        splits[name] = part.assign(_row=part.index).reset_index(drop=True)
    assert_no_leak(splits, near_duplicates)
    return {name: part.drop(columns="_row") for name, part in splits.items()}


def binary_split(corpus: pd.DataFrame, seed: int = 0, **kwargs) -> dict[str, pd.DataFrame]:
    """The CLAUDE-vs-CHATGPT scheme (research builds B1/B2): :func:`topic_holdout_split` on
    those two providers only (keyword arguments as there)."""
    return topic_holdout_split(corpus, seed=seed, labels=BINARY_LABELS, **kwargs)


def leave_one_genre_out(
    corpus: pd.DataFrame,
    seed: int = 0,
    labels: Sequence[str] | None = None,
    balance: bool = False,
    balance_labels: Sequence[str] | None = None,
    near_duplicates: Iterable[tuple[int, int]] | None = None,
) -> Iterator[tuple[str, pd.DataFrame, pd.DataFrame]]:
    """For each genre (sorted): ``(genre, train = all other genres, test = that genre)``.

    Train rows that near-duplicate a test row are dropped. With ``balance`` both sides are
    balanced per provider within genre (labels absent from a genre are simply absent).
    """
    frame = corpus if labels is None else corpus[corpus["provider"].isin(labels)]
    pairs = list(near_duplicates or ())
    for genre in sorted(frame["genre"].unique()):
        rng = random.Random(seed)
        is_test = frame["genre"] == genre
        assign = pd.Series("train", index=frame.index).where(~is_test, "val_ood")
        _drop_near_duplicates(assign, pairs)
        train, test = frame[assign == "train"], frame[assign == "val_ood"]
        if balance:
            train = balance_providers(train, rng, labels=balance_labels)
            test = balance_providers(test, rng, labels=balance_labels)
        yield genre, train.reset_index(drop=True), test.reset_index(drop=True)


def default_ood_categories(corpus: pd.DataFrame, seed: int = 0, frac: float = 0.15,
                           min_categories: int = 3) -> list[str]:
    """The categories to hold out whole when the user names none.

    The research held-out categories when present; otherwise, in every genre with at least
    ``min_categories`` categories, ``max(1, round(n * frac))`` of them chosen with the seeded RNG
    among those whose topics belong to that category only (a shared topic cannot be held out
    whole). On the shared corpus: 1 blog category and 3 fiction sub-genres.
    """
    present = [c for c in RESEARCH_OOD_CATEGORIES if c in set(corpus["category"])]
    if present:
        return present
    rng = random.Random(seed)
    keys = topic_keys(corpus)
    cats_per_key = corpus.groupby(keys)["category"].nunique()
    shared = set(cats_per_key.index[cats_per_key > 1])
    chosen: list[str] = []
    for genre in sorted(corpus["genre"].unique()):
        rows = corpus["genre"] == genre
        cats = sorted(corpus.loc[rows, "category"].unique())
        if len(cats) < min_categories:
            continue
        eligible = [c for c in cats if not keys[rows & (corpus["category"] == c)].isin(shared).any()]
        rng.shuffle(eligible)
        chosen.extend(sorted(eligible[: max(1, round(len(cats) * frac))]))
    return chosen


def assert_no_leak(splits: dict[str, pd.DataFrame],
                   near_duplicates: Iterable[tuple[int, int]] | None = None) -> None:
    """Raise :class:`SplitLeakError` if a (genre, topic) or a near-duplicate pair crosses splits.

    Near-duplicate pairs are row labels of the corpus the splits came from; they are matched
    through a ``_row`` column when the splits have one (as inside :func:`topic_holdout_split`).
    """
    seen: dict[tuple[str, str], str] = {}
    for name, part in splits.items():
        for key in set(zip(part["genre"].astype(str), part["topic"].astype(str), strict=True)):
            if key in seen and seen[key] != name:
                raise SplitLeakError(f"topic {key} is in both {seen[key]} and {name}")
            seen[key] = name
    if near_duplicates is None:
        return
    where = {row: name for name, part in splits.items() if "_row" in part for row in part["_row"]}
    for a, b in near_duplicates:
        if a in where and b in where and where[a] != where[b]:
            raise SplitLeakError(f"near-duplicate rows {a} and {b} are in {where[a]} and {where[b]}")


def topic_keys(frame: pd.DataFrame) -> pd.Series:
    """One string per row naming its (genre, topic): the unit that is never split."""
    return frame["genre"].astype(str) + "\x1f" + frame["topic"].astype(str)


def word_counts(texts: pd.Series) -> pd.Series:
    """Whitespace-separated words per text (the cap unit when no tokenizer is given)."""
    return texts.map(lambda t: len(t.split()) if isinstance(t, str) else 0).astype(int)


def _held_out_topics(frame: pd.DataFrame, keys: pd.Series, rng: random.Random,
                     val_frac: float) -> set[str]:
    """The (genre, topic) keys that go to val (see :func:`topic_holdout_split` step 3)."""
    held: set[str] = set()
    if val_frac <= 0:
        return held
    min_topics = math.ceil(1 / val_frac)
    labels_of = frame.groupby(keys)["provider"].agg(frozenset).to_dict()
    for genre in sorted(frame["genre"].unique()):
        rows = frame["genre"] == genre
        units: list[list[str]] = []
        pool: set[str] = set()
        for cat in sorted(frame.loc[rows, "category"].unique()):
            topics = sorted(set(keys[rows & (frame["category"] == cat)]))
            if len(topics) >= min_topics:
                units.append(topics)
            else:
                pool.update(topics)
        if len(pool) > 1:
            units.append(sorted(pool))
        for topics in units:
            rng.shuffle(topics)
            k = max(1, round(len(topics) * val_frac))
            wanted = set().union(*(labels_of[t] for t in topics))
            # A shared topic may be held already (longform): it counts towards k.
            chosen = [t for t in topics if t in held]
            for t in topics:
                covered = set().union(*(labels_of[c] for c in chosen))
                if len(chosen) >= k and (covered >= wanted or len(chosen) * 2 >= len(topics)):
                    break
                if t not in held:
                    chosen.append(t)
            held.update(chosen)
    return held


def _drop_near_duplicates(assign: pd.Series, pairs: Iterable[tuple[int, int]]) -> None:
    """Mark for dropping the lower-ranked member of every pair that straddles two splits."""
    rank = {"val_ood": 0, "val": 1, "train": 2}
    for a, b in pairs:
        if a not in assign.index or b not in assign.index:
            continue
        sa, sb = assign[a], assign[b]
        if sa == sb or "drop" in (sa, sb):
            continue
        assign[a if rank[sa] > rank[sb] else b] = "drop"
