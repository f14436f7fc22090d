"""Curricula (research spec §1.6 B8-B11): single, hard-pair, pair and trio rows mixed per step.

It lives in ``task`` (which may use ``data``) rather than ``data``, because its rows are task rows:
the pair/trio user message and gold string are the task's (:mod:`whowrote.task.prompts`), and
``data`` imports nothing above it. pandas and the split builder are imported when a curriculum
is built, so ``import whowrote.task`` stays standard-library only.

:func:`build_curriculum` first makes the ordinary leak-free topic hold-out split
(:func:`whowrote.data.build.build_splits`, scheme ``topic``: audit-clean, near-duplicates,
topics held out, providers balanced) and then builds the *train* curriculum from the train rows
only, so a pair or trio never joins a train text with a val / val_ood one and no held-out topic
reaches train (:func:`assert_curriculum_no_leak` re-checks it and raises ``SplitLeakError``).
Val and val_ood stay single-text 3-way rows, as in the research builds.

Every step is ``STEP_ROWS`` = 12 consecutive rows (the research's prompts per step), so GRPO with
the data order kept (``grpo.balanced_batches``) sees one step's mix per optimizer step:

- ``hardpair`` (B8): 9 singles (3/3/3) + 3 hard-pair rows (a single CLAUDE or CHATGPT text under the
  2-way hard-pair prompt, gold half and half);
- ``pair`` (B10): 6 singles (2/2/2) + 6 pairs over the boundaries CvP, CvG, PvG
  (``pair_weights``, default 2/2/2; the research ``pvg`` build used 1/2/3), the A slot's gold
  balanced 50/50 per boundary, texts cut to 14,000 characters;
- ``trio`` (B11): 6 singles (2/2/2) + 6 trios, each slot's gold i.i.d. uniform over the three
  providers (so about 2/3 of trios are two-of-one-plus-one), texts cut to 9,000 characters.

Multi-text rows pair texts of one genre (a debate speech is not contrasted with a story). Each
text is stripped (:func:`strip_formatting`) independently with probability ``strip_frac``.
Rows are corpus-table rows (``id, text, provider, ...``) whose ``provider`` is the gold string
(``CLAUDE`` or ``A=CLAUDE;B=GEMINI``), plus ``task_type``, ``variant``, ``step``, ``stripped`` and
``components`` (a JSON list of the source ids); :func:`curriculum_messages` gives a row's chat
messages.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Sequence
from itertools import cycle
from typing import TYPE_CHECKING

from whowrote.task.parser import decode_slot_gold
from whowrote.task.prompts import build_messages, pair_messages, slot_gold, text_blocks, trio_messages
from whowrote.types import PROVIDERS, WhowroteError

if TYPE_CHECKING:  # pandas and the split builder load only when a curriculum is built
    import pandas as pd

    from whowrote.data.build import SplitConfig, SplitResult

CURRICULA: tuple[str, ...] = ("hardpair", "pair", "trio")
STEP_ROWS = 12
BOUNDARIES: tuple[tuple[str, str], ...] = (("CLAUDE", "CHATGPT"), ("CLAUDE", "GEMINI"), ("CHATGPT", "GEMINI"))
PAIR_CHARS, TRIO_CHARS = 14000, 9000
HARDPAIR: tuple[str, str] = ("CLAUDE", "CHATGPT")


@dataclasses.dataclass
class _Pools:
    """Per (genre, provider) shuffled row cycles: texts are reused round-robin, as the research did."""

    frame: pd.DataFrame
    rng: random.Random

    def __post_init__(self) -> None:
        self._cycles: dict[tuple[str, str], cycle] = {}
        for (genre, prov), g in self.frame.groupby(["genre", "provider"], sort=True):
            idx = g.index.tolist()
            self.rng.shuffle(idx)
            self._cycles[(str(genre), str(prov))] = cycle(idx)
        for prov, g in self.frame.groupby("provider", sort=True):  # "*": any genre, in proportion
            idx = g.index.tolist()
            self.rng.shuffle(idx)
            self._cycles[("*", str(prov))] = cycle(idx)

    def genres_with(self, providers: Sequence[str]) -> list[str]:
        genres = sorted({g for g, _ in self._cycles if g != "*"})
        return [g for g in genres if all((g, p) in self._cycles for p in providers)]

    def take(self, genre: str, provider: str) -> pd.Series:
        return self.frame.loc[next(self._cycles[(genre, provider)])]

    def take_group(self, golds: Sequence[str]) -> list[pd.Series]:
        """Texts for ``golds`` from one genre: the first drawn from any genre (so genres come in
        proportion), the others from its genre; a genre lacking one of them is skipped."""
        eligible = self.genres_with(sorted(set(golds)))
        if not eligible:
            raise WhowroteError(f"no genre has texts of all of {', '.join(sorted(set(golds)))}")
        for _ in range(20):
            first = self.take("*", golds[0])
            if str(first["genre"]) in eligible:
                return [first, *(self.take(str(first["genre"]), g) for g in golds[1:])]
        genre = self.rng.choice(eligible)
        return [self.take(genre, g) for g in golds]


def _text(row: pd.Series, rng: random.Random, strip_frac: float, max_chars: int | None) -> tuple[str, bool]:
    from whowrote.data.clean import strip_formatting

    text = str(row["text"])[:max_chars] if max_chars else str(row["text"])
    stripped = strip_frac > 0 and rng.random() < strip_frac
    return (strip_formatting(text) if stripped else text), stripped


def _row(kind: str, variant: str, parts: Sequence[pd.Series], text: str, gold: str, stripped: bool) -> dict:
    join = lambda col: " | ".join(str(p[col]) for p in parts)  # noqa: E731
    return {"id": "", "text": text, "provider": gold,
            "model": join("model"), "category": join("category"), "topic": join("topic"),
            "genre": " | ".join(sorted({str(p["genre"]) for p in parts})), "task_type": kind, "variant": variant,
            "stripped": stripped, "components": json.dumps([str(p["id"]) for p in parts])}


def _singles(pools: _Pools, rng: random.Random, per_label: int, labels: Sequence[str], strip_frac: float) -> list[dict]:
    out = []
    for _ in range(per_label):
        for lab in labels:  # interleaved C, P, G
            src = pools.take("*", lab)
            text, s = _text(src, rng, strip_frac, None)
            out.append(_row("single", "3way", [src], text, lab, s))
    return out


def _hardpairs(pools: _Pools, rng: random.Random, n: int, strip_frac: float, flags: list[str]) -> list[dict]:
    out = []
    for _ in range(n):
        lab = flags.pop()
        src = pools.take("*", lab)
        text, s = _text(src, rng, strip_frac, None)
        out.append(_row("hardpair", "hardpair", [src], text, lab, s))
    return out


def _pair(pools: _Pools, rng: random.Random, boundary: tuple[str, str], a_first: bool, strip_frac: float) -> dict:
    golds = list(boundary) if a_first else list(reversed(boundary))
    parts = pools.take_group(golds)
    texts = [_text(p, rng, strip_frac, PAIR_CHARS) for p in parts]
    return _row("pair", "pair", parts, text_blocks([t for t, _ in texts]), slot_gold(golds), any(s for _, s in texts))


def _trio(pools: _Pools, rng: random.Random, labels: Sequence[str], strip_frac: float) -> dict:
    golds = [rng.choice(labels) for _ in range(3)]
    parts = pools.take_group(golds)
    texts = [_text(p, rng, strip_frac, TRIO_CHARS) for p in parts]
    return _row("trio", "trio", parts, text_blocks([t for t, _ in texts]), slot_gold(golds), any(s for _, s in texts))


def curriculum_rows(train: pd.DataFrame, scheme: str, *, n_steps: int = 56, seed: int = 0, strip_frac: float = 0.0,
                    pair_weights: Sequence[int] = (2, 2, 2), labels: Sequence[str] = PROVIDERS) -> pd.DataFrame:
    """The train curriculum of ``scheme`` built from ``train`` only: ``n_steps`` x 12 rows, in order."""
    import pandas as pd
    if scheme not in CURRICULA:
        raise WhowroteError(f"unknown curriculum {scheme!r} (choose from {', '.join(CURRICULA)})")
    if n_steps < 1:
        raise WhowroteError("the curriculum needs at least one step")
    frame = train[train["provider"].isin(labels)].reset_index(drop=True)
    missing = [lab for lab in labels if lab not in set(frame["provider"])]
    if missing:
        raise WhowroteError(f"train split has no {', '.join(missing)} texts: cannot build a {scheme} curriculum")
    rng = random.Random(seed)
    pools = _Pools(frame, rng)
    if scheme == "pair":
        pair_weights = parse_pair_weights(",".join(str(w) for w in pair_weights))
        for b, w in zip(BOUNDARIES, pair_weights, strict=True):
            if w and not pools.genres_with(b):
                raise WhowroteError(f"no genre has both {b[0]} and {b[1]} texts for {b[0]}-vs-{b[1]} pairs")
        # the A slot's gold balanced exactly per boundary: a shuffled list of flags for all steps
        flags = {b: _balanced_flags(rng, w * n_steps) for b, w in zip(BOUNDARIES, pair_weights, strict=True)}
    if scheme == "hardpair":
        hard_flags = [HARDPAIR[i % 2] for i in range(3 * n_steps)]
        rng.shuffle(hard_flags)
    rows: list[dict] = []
    for step in range(n_steps):
        # Multi-text rows open each step: readers that sniff a file's first rows (load_examples) see them.
        if scheme == "hardpair":
            block = _hardpairs(pools, rng, 3, strip_frac, hard_flags) + _singles(pools, rng, 3, labels, strip_frac)
        elif scheme == "pair":
            block = [_pair(pools, rng, b, flags[b].pop(), strip_frac)
                     for b, w in zip(BOUNDARIES, pair_weights, strict=True) for _ in range(w)]
            block += _singles(pools, rng, 2, labels, strip_frac)
        else:
            block = [_trio(pools, rng, labels, strip_frac) for _ in range(6)] + _singles(pools, rng, 2, labels, strip_frac)
        # a text may recur (pools cycle), so the row id is its place in the curriculum
        rows += [{**r, "id": f"c{step:03d}.{i:02d}-{r['task_type']}", "step": step} for i, r in enumerate(block)]
    out = pd.DataFrame(rows)
    if scheme == "trio":
        _check_trio_mix(out)
    return out


def parse_pair_weights(text: str) -> tuple[int, int, int]:
    """``"1,2,3"`` -> pairs per step on the CvP, CvG, PvG boundaries (for ``--pair-weights``)."""
    try:
        weights = tuple(int(w) for w in str(text).split(","))
    except ValueError:
        weights = ()
    if len(weights) != 3 or sum(weights) != 6 or min(weights) < 0:
        raise WhowroteError(f"pair weights {text!r}: three non-negative counts summing to 6 (CvP,CvG,PvG), e.g. 2,2,2")
    return weights  # type: ignore[return-value]


def _balanced_flags(rng: random.Random, n: int) -> list[bool]:
    flags = [i % 2 == 0 for i in range(n)]
    rng.shuffle(flags)
    return flags


def _check_trio_mix(rows: pd.DataFrame) -> None:
    """The research builder's guard: two-of-one-plus-one trios must outnumber all-distinct ones."""
    kinds = [len(set(decode_slot_gold(g).values())) for g in rows.loc[rows["task_type"] == "trio", "provider"]]
    if len(kinds) >= 27 and kinds.count(2) <= kinds.count(3):
        raise WhowroteError("trio mix is off: all-distinct trios are as common as two-plus-one ones")


def curriculum_messages(row: dict) -> list[dict]:
    """The chat messages of a curriculum row (system prompt by ``variant``, user = the text block)."""
    variant, gold = row.get("variant") or "3way", str(row["provider"])
    if variant == "pair":
        slots = decode_slot_gold(gold)
        boundary = [lab for lab in PROVIDERS if lab in set(slots.values())]  # canonical order: no leak
        msgs = pair_messages("", "", *boundary)
        msgs[1]["content"] = row["text"]
        return msgs
    if variant == "trio":
        msgs = trio_messages(["", "", ""])
        msgs[1]["content"] = row["text"]
        return msgs
    return build_messages(row["text"], variant, labels=HARDPAIR if variant == "hardpair" else PROVIDERS)


def assert_curriculum_no_leak(rows: pd.DataFrame, splits: dict[str, pd.DataFrame]) -> None:
    """Raise ``SplitLeakError`` if a curriculum row uses a text or topic outside the train split."""
    from whowrote.data.splits import SplitLeakError, topic_keys

    train_ids = set(splits["train"]["id"].astype(str))
    held = set().union(*(set(topic_keys(p)) for n, p in splits.items() if n != "train" and len(p)))
    by_id = splits["train"].assign(_key=topic_keys(splits["train"])).set_index(splits["train"]["id"].astype(str))
    for comp, rid in zip(rows["components"], rows["id"], strict=True):
        for cid in json.loads(comp):
            if cid not in train_ids:
                raise SplitLeakError(f"curriculum row {rid} uses text {cid}, which is not in train")
            if by_id.loc[cid, "_key"] in held:
                raise SplitLeakError(f"curriculum row {rid} uses a held-out topic ({cid})")


def curriculum_split(base: SplitResult, scheme: str, *, n_steps: int = 56, seed: int = 0, strip_frac: float = 0.0,
                     pair_weights: Sequence[int] = (2, 2, 2), labels: Sequence[str] | None = None) -> SplitResult:
    """``base`` (a topic hold-out split) with its train replaced by the ``scheme`` curriculum."""
    from whowrote.data.build import SplitResult

    labels = [lab for lab in PROVIDERS if labels is None or lab in labels]
    train = curriculum_rows(base.splits["train"], scheme, n_steps=n_steps, seed=seed, strip_frac=strip_frac,
                            pair_weights=pair_weights, labels=labels)
    assert_curriculum_no_leak(train, base.splits)
    info = dict(base.info)
    info["curriculum"] = {"scheme": scheme, "n_steps": n_steps, "rows_per_step": STEP_ROWS,
                          "pair_weights": list(pair_weights) if scheme == "pair" else None,
                          "task_types": {str(k): int(v) for k, v in train["task_type"].value_counts().items()},
                          "stripped": int(train["stripped"].sum()),
                          "source_train_rows": len(base.splits["train"])}
    info["splits"] = {**info.get("splits", {}), "train": {
        "rows": len(train), "topics": int(base.splits["train"]["topic"].nunique()), "stripped": int(train["stripped"].sum())}}
    return SplitResult({**base.splits, "train": train}, info)


def build_curriculum(corpus: pd.DataFrame, config: SplitConfig | None = None, *, scheme: str = "pair",
                     n_steps: int = 56, pair_weights: Sequence[int] = (2, 2, 2)) -> SplitResult:
    """``whowrote data split --scheme pair|hardpair|trio``: the topic hold-out split of ``config``
    (strip augmentation applied per curriculum text instead) with the ``scheme`` train curriculum."""
    from whowrote.data.build import SplitConfig, build_splits

    cfg = config or SplitConfig()
    if scheme not in CURRICULA:
        raise WhowroteError(f"unknown curriculum {scheme!r} (choose from {', '.join(CURRICULA)})")
    base = build_splits(corpus, dataclasses.replace(cfg, scheme="topic", strip_frac=0.0))
    return curriculum_split(base, scheme, n_steps=n_steps, seed=cfg.seed, strip_frac=cfg.strip_frac,
                            pair_weights=pair_weights, labels=cfg.labels)
