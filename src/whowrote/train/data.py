"""Rows in, TRL datasets out: reading splits, cutting texts to the model's budget, balancing.

Rows are plain dicts (``text``, ``provider`` plus whatever else the split carries). The TRL
datasets use TRL's *conversational prompt-completion* format (``prompt`` = chat messages,
``completion`` = one assistant message), so SFTTrainer computes the loss on the completion
only and GRPOTrainer renders the prompt with the model's own chat template.
"""

from __future__ import annotations

import gzip
import json
import os
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from whowrote.data.readers import iter_json_rows
from whowrote.task.prompts import build_messages
from whowrote.types import WhowroteError

Row = dict[str, Any]


def read_rows(path: str | Path) -> list[Row]:
    """Read a JSONL or JSONL.gz file of rows."""
    p = Path(path)
    if not p.is_file():
        raise WhowroteError(f"data file not found: {p}")
    return [row for _, row in iter_json_rows(p)]


def write_rows(path: str | Path, rows: Iterable[Row]) -> Path:
    """Rows as JSON lines (gzipped for ``.gz``). A row with a ``genre`` gets ``subgenre: null`` if it
    has none, as :func:`whowrote.data.writers.write_jsonl` does: the corpus reader takes a lone
    ``genre`` column for the finer subgenre and the file name for the genre. Written through a
    temporary name beside ``path``, so a failure never leaves half a file or loses the old one."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".tmp-{p.name}")
    opener = gzip.open if p.suffix == ".gz" else open
    try:
        with opener(tmp, "wt", encoding="utf-8") as fh:
            for row in rows:
                if "genre" in row and "subgenre" not in row:
                    row = {**row, "subgenre": None}
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        os.replace(tmp, p)
    finally:
        tmp.unlink(missing_ok=True)
    return p


def usable(rows: Sequence[Row], labels: Sequence[str], label_field: str = "provider",
           text_field: str = "text") -> list[Row]:
    """Rows whose label is one of ``labels`` and whose text is non-empty (OTHER is dropped)."""
    return [r for r in rows if r.get(label_field) in labels and str(r.get(text_field) or "").strip()]


def balanced_subset(rows: Sequence[Row], n: int, labels: Sequence[str], seed: int = 0,
                    label_field: str = "provider", balance: bool = True) -> list[Row]:
    """A seeded subset with (up to) n rows, equal per label when ``balance``, interleaved by label.

    Interleaving (C, P, G, C, P, G, ...) matters for GRPO: with the data order kept, every
    window of ``len(labels)`` prompts holds one text of each provider, so each step is balanced.
    """
    rng = random.Random(seed)
    by_label: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_label[r[label_field]].append(r)
    for lab in by_label:
        rng.shuffle(by_label[lab])
    present = [lab for lab in labels if by_label.get(lab)]
    if not present:
        return []
    if balance:
        per = min(len(by_label[lab]) for lab in present)
        if n > 0:
            per = min(per, max(1, n // len(present)))
        pools = [by_label[lab][:per] for lab in present]
        out = [row for block in zip(*pools, strict=True) for row in block]
    else:
        out = [r for lab in present for r in by_label[lab]]
        rng.shuffle(out)
        if n > 0:
            out = out[:n]
    return out


def truncate_texts(rows: Sequence[Row], tokenizer: Any, max_tokens: int, text_field: str = "text") -> list[Row]:
    """Copies of the rows with the text cut to ``max_tokens`` tokens of ``tokenizer``.

    Cutting the *text* (not the rendered prompt) keeps the system prompt and the chat template's
    closing tokens intact, as the research builder's ``_trunc`` sets did (spec §1.9).
    """
    if max_tokens <= 0 or not rows:
        return [dict(r) for r in rows]
    texts = [str(r[text_field]) for r in rows]
    enc = tokenizer(texts, add_special_tokens=False)["input_ids"]
    out = []
    for row, ids in zip(rows, enc, strict=True):
        new = dict(row)
        if len(ids) > max_tokens:
            new[text_field] = tokenizer.decode(ids[:max_tokens], skip_special_tokens=True)
        out.append(new)
    return out


def answer_target(gold: str) -> str:
    """The answer-only SFT target: exactly what the answer-only prompt asks for."""
    return f"<answer>{gold}</answer>"


def rationale_target(rationale: str, gold: str) -> str:
    """The rationale SFT target (spec §1.9 D1/D3 format)."""
    return f"<reason_why>\n{rationale.strip()}\n</reason_why>\n\n<answer>\n{gold}\nConfidence: HIGH\n</answer>"


def sft_records(rows: Sequence[Row], *, target: str, variant: str, text_field: str = "text",
                label_field: str = "provider", rationale_field: str = "rationale",
                chat_template_kwargs: dict[str, Any] | None = None) -> list[Row]:
    """Prompt-completion records for SFTTrainer (loss on the completion only).

    ``chat_template_kwargs`` (e.g. ``{"enable_thinking": False}``) goes into each record, where
    SFTTrainer passes it to ``apply_chat_template``, so SFT renders prompts as eval and GRPO do.
    """
    extra = {"chat_template_kwargs": dict(chat_template_kwargs)} if chat_template_kwargs else {}
    out = []
    for r in rows:
        gold = r[label_field]
        if target == "answer_only":
            content = answer_target(gold)
        elif target == "rationale":
            if not r.get(rationale_field):
                raise WhowroteError(f"row {r.get('id')!r} has no {rationale_field!r} for rationale SFT")
            content = rationale_target(r[rationale_field], gold)
        else:
            raise WhowroteError(f"unknown SFT target {target!r} (answer_only or rationale)")
        out.append({
            "prompt": build_messages(str(r[text_field]), variant=variant),
            "completion": [{"role": "assistant", "content": content}],
            **extra,
        })
    return out


def grpo_records(rows: Sequence[Row], *, variant: str, text_field: str = "text",
                 label_field: str = "provider") -> list[Row]:
    """Prompt-only records for GRPOTrainer; ``gold`` reaches the reward functions as a kwarg."""
    return [{"prompt": build_messages(str(r[text_field]), variant=variant), "gold": r[label_field]}
            for r in rows]


def to_dataset(records: Sequence[Row]) -> Any:
    from datasets import Dataset

    return Dataset.from_list(list(records))
