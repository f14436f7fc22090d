"""Writing splits: JSONL tables and the ``question/answer/info`` layout RL/SFT tooling reads.

Layout of ``out/`` (``logo`` splits add one folder level per held-out genre):
- ``train.jsonl``, ``val.jsonl``, ``val_ood.jsonl``: one row per text, the corpus columns
  (``id, text, provider, model, category, topic, genre``), ``subgenre``, ``stripped`` and the
  source's other metadata;
- ``qa/<split>.jsonl``: the same rows as ``question`` (text), ``answer`` (provider) and ``info``
  (``category, topic, source_model, genre, subgenre, id, stripped, task_type`` + metadata as
  strings; never a key named ``task``, which verifiers reserves);
- ``hf/<split>/``: that layout saved with ``datasets.Dataset.save_to_disk`` (when ``datasets`` is
  installed);
- ``split_info.json``: the config, counts and held-out categories.

Writes are atomic: everything goes to a hidden temporary folder next to ``out`` and is moved into
place only when all of it was written; on any error the temporary folder is removed and ``out``
is left as it was.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from whowrote.types import CORPUS_COLUMNS, WhowroteError

FORMATS: tuple[str, ...] = ("jsonl", "qa", "hf")
INFO_FILE = "split_info.json"
# Names this writer owns inside ``out``: replaced on a rewrite, stale ones removed.
_OWNED_SUFFIXES = (".jsonl",)
_OWNED_DIRS = ("qa", "hf")


def write_splits(
    splits: dict[str, pd.DataFrame],
    out: str | Path,
    info: dict | None = None,
    formats: Sequence[str] = FORMATS,
    task_type: str = "3way",
) -> list[Path]:
    """Write every split in ``formats`` under ``out`` atomically; returns the written paths."""
    out = Path(out)
    bad = set(formats) - set(FORMATS)
    if bad:
        raise WhowroteError(f"unknown output format(s) {', '.join(sorted(bad))} (choose from {', '.join(FORMATS)})")
    if out.exists() and not out.is_dir():
        raise WhowroteError(f"{out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / INFO_FILE).exists():
        raise WhowroteError(f"{out}: folder is not empty and holds no earlier split; choose an empty or new folder")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    except OSError as e:
        raise WhowroteError(f"{out}: cannot create output folder ({e.strerror or e})") from None
    try:
        for name, frame in splits.items():
            if "jsonl" in formats:
                write_jsonl(frame, tmp / f"{name}.jsonl")
            if "qa" in formats or "hf" in formats:
                qa = to_qa_rows(frame, task_type)
                if "qa" in formats:
                    write_records(qa, tmp / "qa" / f"{name}.jsonl")
                if "hf" in formats:
                    _save_to_disk(qa, tmp / "hf" / name)
        (tmp / INFO_FILE).write_text(json.dumps(info or {}, indent=2, default=str) + "\n", encoding="utf-8")
        _move_into_place(tmp, out)
    except OSError as e:
        raise WhowroteError(f"{out}: cannot write ({e.strerror or e}); nothing was written") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return sorted(p for p in out.rglob("*") if p.is_file() and "hf" not in p.relative_to(out).parts[:1])


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


def _save_to_disk(rows: list[dict], path: Path) -> None:
    try:
        import datasets
    except ImportError:
        raise WhowroteError("the hf format needs `pip install datasets`; use --format jsonl,qa") from None
    datasets.disable_progress_bars()  # the CLI prints its own summary
    datasets.Dataset.from_list(rows).save_to_disk(str(path))


def _move_into_place(tmp: Path, out: Path) -> None:
    """Rename the finished folder to ``out``; over an earlier split, swap only our own files."""
    if not out.exists():
        umask = os.umask(0)
        os.umask(umask)
        tmp.chmod(0o777 & ~umask)  # mkdtemp makes it private; the result is an ordinary folder
        os.replace(tmp, out)
        return
    for old in out.iterdir():  # an earlier split: clear what this writer owns
        if old.is_dir() and (old.name in _OWNED_DIRS or (old / "train.jsonl").exists()):
            shutil.rmtree(old)
        elif old.suffix in _OWNED_SUFFIXES or old.name == INFO_FILE:
            old.unlink()
    for new in tmp.iterdir():
        os.replace(new, out / new.name)


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
