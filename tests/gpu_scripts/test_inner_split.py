"""scripts/gpu/inner_split.py: the inner topic split the GPU sessions choose settings on."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts" / "gpu"))

import inner_split  # noqa: E402


def _train(path: Path, n_topics: int = 12, seed_text: str = "t") -> list[dict]:
    rows = []
    for genre in ("blog", "debate"):
        for t in range(n_topics):
            for p in ("CLAUDE", "CHATGPT", "GEMINI"):
                rows.append({"id": f"{genre}-{t}-{p}", "text": f"{seed_text} {genre} {t} {p}\u2028line",
                             "provider": p, "model": "m", "genre": genre, "topic": f"topic {t}"})
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return rows


def test_make_then_apply_holds_out_whole_topics(tmp_path: Path) -> None:
    rows = _train(tmp_path / "train.jsonl.gz")
    ids = tmp_path / "ids.json"
    info = inner_split.make(tmp_path / "train.jsonl.gz", ids, seed=100, val_frac=0.25)
    assert info["val"] and info["n_train"] == len(rows)
    n_train, n_val = inner_split.apply(tmp_path, ids)
    inner_train = inner_split.read_rows(tmp_path / "inner_train.jsonl.gz")
    inner_val = inner_split.read_rows(tmp_path / "inner_val.jsonl.gz")
    assert (n_train, n_val) == (len(inner_train), len(inner_val))
    assert n_train + n_val + len(info["drop"]) == len(rows)
    # a (genre, topic) is never on both sides, and every genre gives val some topics
    train_keys = {(r["genre"], r["topic"]) for r in inner_train}
    val_keys = {(r["genre"], r["topic"]) for r in inner_val}
    assert not train_keys & val_keys
    assert {g for g, _ in val_keys} == {"blog", "debate"}
    assert len(val_keys) == 6  # 25 % of 12 topics in each of the two genres
    # rows come back whole (a U+2028 inside a text does not split a row)
    # rows come back as written, plus the null subgenre write_rows gives every row with a genre
    assert {r["id"]: r for r in inner_val} == {r["id"]: {**r, "subgenre": None} for r in rows
                                               if r["id"] in set(info["val"])}


def test_apply_refuses_another_train_split(tmp_path: Path) -> None:
    _train(tmp_path / "train.jsonl.gz")
    ids = tmp_path / "ids.json"
    inner_split.make(tmp_path / "train.jsonl.gz", ids, seed=100, val_frac=0.25)
    other = tmp_path / "other"
    other.mkdir()
    _train(other / "train.jsonl.gz", n_topics=11)
    with pytest.raises(SystemExit, match="is not the train split"):
        inner_split.apply(other, ids)
    assert not (other / "inner_train.jsonl.gz").exists()


def test_committed_ids_name_distinct_rows() -> None:
    info = json.loads((REPO / "scripts" / "gpu" / "inner_val_ids.json").read_text())
    assert len(info["val"]) == len(set(info["val"])) > 100
    assert not set(info["val"]) & set(info["drop"])
    assert sum(info["val_by_provider"].values()) == len(info["val"])
