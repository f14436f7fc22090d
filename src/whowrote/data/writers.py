"""Writing splits: JSONL tables, the ``question/answer/info`` layout RL/SFT tooling reads, and a
Hugging Face ``DatasetDict``.

Layout of ``out/`` (``logo`` splits add one folder level per held-out genre):
- ``train.jsonl``, ``val.jsonl``, ``val_ood.jsonl``: one row per text, the corpus columns
  (``id, text, provider, model, category, topic, genre``), ``subgenre``, ``stripped`` and the
  source's other metadata;
- ``qa/<split>.jsonl``: the same rows as ``question`` (text), ``answer`` (provider) and ``info``
  (``category, topic, source_model, genre, subgenre, id, stripped, task_type`` + metadata as
  strings; never a key named ``task``, which verifiers reserves);
- ``hf/``: that layout as one ``DatasetDict`` (``train``, ``validation``, ``val_ood``) saved with
  ``save_to_disk`` (:mod:`whowrote.data.hf`);
- ``README.md`` (with ``qa``): a dataset card whose ``configs:`` make ``datasets.load_dataset(out)``
  give the same splits (the corpus-row JSONL is not used there: its metadata columns may differ in
  type between splits, which ``load_dataset`` cannot cast);
- ``split_info.json``: the config, counts and held-out categories; ``split_manifest.json``: every
  file written (what a later split may replace).

Writes are atomic (:mod:`whowrote.data.outdir`): everything goes to a hidden folder next to
``out`` and is swapped in with one rename; on any error ``out`` is left as it was.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from whowrote.data.hf import DATA_EXTRA, dataset_card, hf_available, save_dataset_dicts
from whowrote.data.outdir import MANIFEST, staged_folder
from whowrote.types import CORPUS_COLUMNS, WhowroteError

FORMATS: tuple[str, ...] = ("jsonl", "qa", "hf")
INFO_FILE = "split_info.json"


def resolve_formats(formats: Sequence[str] | None) -> tuple[list[str], str | None]:
    """The formats to write and a note on what was left out. ``None`` = every format this install
    can write (``hf`` needs ``datasets``); naming ``hf`` without ``datasets`` is an error."""
    if formats is None:
        if hf_available():
            return list(FORMATS), None
        return ["jsonl", "qa"], f"hf layout not written: it needs the `datasets` library ({DATA_EXTRA})"
    chosen = list(dict.fromkeys(f.strip() for f in formats if f.strip()))
    bad = set(chosen) - set(FORMATS)
    if bad or not chosen:
        raise WhowroteError(f"unknown output format(s) {', '.join(sorted(bad)) or '(none)'} "
                            f"(choose from {', '.join(FORMATS)})")
    if "hf" in chosen and not hf_available():
        raise WhowroteError(f"the hf format needs the `datasets` library: {DATA_EXTRA} (or use --format jsonl,qa)")
    return chosen, None


def write_splits(
    splits: dict[str, pd.DataFrame],
    out: str | Path,
    info: dict | None = None,
    formats: Sequence[str] | None = None,
    task_type: str = "3way",
) -> list[Path]:
    """Write every split in ``formats`` (default: all this install can write; a warning names
    what was left out) under ``out`` atomically; returns the written files (not ``hf/``'s)."""
    out = Path(out)
    formats, note = resolve_formats(formats)
    if note:
        warnings.warn(note, stacklevel=2)
    with staged_folder(out) as tmp:
        qa: dict[str, list[dict]] = {}
        for name, frame in splits.items():
            if "jsonl" in formats:
                write_jsonl(frame, tmp / f"{name}.jsonl")
            if "qa" in formats or "hf" in formats:
                qa[name] = to_qa_rows(frame, task_type)
                if "qa" in formats:
                    write_records(qa[name], tmp / "qa" / f"{name}.jsonl")
        if "hf" in formats:
            save_dataset_dicts(qa, tmp / "hf")
        if "qa" in formats:  # the card points load_dataset at qa/: one schema in every split
            (tmp / "README.md").write_text(dataset_card(list(splits), info or {}), encoding="utf-8")
        (tmp / INFO_FILE).write_text(json.dumps(info or {}, indent=2, default=str) + "\n", encoding="utf-8")
    return sorted(p for p in out.rglob("*")
                  if p.is_file() and p.name != MANIFEST and p.relative_to(out).parts[0] != "hf")


def write_jsonl(frame: pd.DataFrame, path: Path) -> None:
    """Rows as JSON objects: corpus columns first, missing values as null."""
    cols = [*CORPUS_COLUMNS, *[c for c in frame.columns if c not in CORPUS_COLUMNS]]
    if "subgenre" not in frame.columns:  # always present, so that genre reads back as genre
        frame = frame.assign(subgenre=None)
        cols.append("subgenre")
    write_records(frame[cols].to_dict("records"), path)


def write_parquet(frame: pd.DataFrame, path: Path) -> None:
    """The table as Parquet: id/topic/category as strings; a metadata column mixing value types
    (JSONL rows may hold ``1`` in one row and ``"x"`` in the next) becomes JSON strings, as Arrow
    needs one type per column."""
    frame = frame.astype({c: str for c in ("id", "topic", "category")})
    for col in [c for c in frame.columns if pd.api.types.is_object_dtype(frame[c])]:
        values = [_plain(v) for v in frame[col]]
        if len({type(v) for v in values if v is not None}) > 1:
            frame[col] = [v if v is None or isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
                          for v in values]
    frame.to_parquet(path)


def write_records(records: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for row in records:
            f.write(json.dumps({k: _plain(v) for k, v in row.items()}, ensure_ascii=False) + "\n")


def to_qa_rows(frame: pd.DataFrame, task_type: str = "3way") -> list[dict]:
    """The research row schema (spec §1.3): question / answer / info, the same info keys in
    every row (``datasets`` needs one schema), metadata as strings."""
    extra = [c for c in frame.columns if c not in (*CORPUS_COLUMNS, "stripped", "subgenre", "task")]
    rows = []
    for row in frame.to_dict("records"):
        info = {
            "category": str(row["category"]), "topic": str(row["topic"]), "source_model": str(row["model"]),
            "genre": str(row["genre"]), "subgenre": _text(row.get("subgenre")), "id": str(row["id"]),
            "stripped": bool(row.get("stripped", False)), "task_type": task_type,
        }
        info.update({c: _text(row[c]) for c in extra})
        rows.append({"question": row["text"], "answer": row["provider"], "info": info})
    return rows


def _plain(value):
    """JSON-safe scalars: NaN/NA -> None, numpy scalars -> Python."""
    if value is None:
        return None
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    return value


def _text(value) -> str:
    value = _plain(value)
    return "" if value is None else str(value)
