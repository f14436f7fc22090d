"""Small helpers shared by the data tests (real rows come from ../shared/corpus at run time)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd


def sample_rows(path: Path, n: int = 12, every: int = 1) -> list[dict]:
    """The first ``n * every`` lines of a JSONL corpus file, every ``every``-th one."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i % every == 0:
                rows.append(json.loads(line))
            if len(rows) >= n:
                break
    return rows


def write_jsonl(rows: list[dict], path: Path) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def tiny_corpus(n_topics: int = 10, per_topic: int = 3, genres=("g1",), categories=("c1",)) -> pd.DataFrame:
    """A synthetic corpus: every topic answered once per provider per repeat (distinct texts)."""
    rows = []
    for genre in genres:
        for cat in categories:
            for t in range(n_topics):
                for p in ("CLAUDE", "CHATGPT", "GEMINI", "OTHER"):
                    for r in range(per_topic):
                        rid = f"{genre}-{cat}-{t}-{p}-{r}"
                        rows.append({"id": rid, "text": f"text {rid} " + "word " * 60, "provider": p,
                                     "model": p.lower(), "category": cat, "topic": f"{cat}-t{t}", "genre": genre})
    return pd.DataFrame(rows)
