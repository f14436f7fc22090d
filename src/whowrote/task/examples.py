"""Task examples from split files: one text (or a pair/trio block) and its gold answer.

Single-text rows go through :func:`whowrote.data.load_corpus`, which auto-detects the
``id,text,provider,...`` and the HF ``question/answer/info`` layouts and maps model names to
providers. Pair/trio rows (gold like ``A=CLAUDE;B=GEMINI``) and rows with ready-made chat
``prompt`` messages are read as they are, since the corpus loader would map their gold to OTHER.
Rows whose gold is not one of ``labels`` (OTHER, or GEMINI in a binary task) are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from whowrote.formats import GOLD_COLUMNS, TEXT_COLUMNS
from whowrote.task.parser import task_type
from whowrote.types import PROVIDERS, WhowroteError, jsonable


@dataclass
class Example:
    id: str
    text: str  # the user message (a raw text, or "### TEXT A ..." blocks)
    gold: str  # "CLAUDE" or "A=CLAUDE;B=GEMINI[;C=...]"
    info: dict = field(default_factory=dict)
    prompt: list[dict] | None = None  # per-row chat messages, when the split provides them

    @property
    def kind(self) -> str:
        return task_type(self.gold, self.info)


def _first_rows(path: Path, n: int = 5) -> list[dict]:
    from whowrote.data.readers import iter_json_rows  # lazily: this package stays pandas-free

    return [row for _, row in islice(iter_json_rows(path), n)]


def _needs_raw(rows: list[dict]) -> bool:
    for r in rows:
        gold = next((r[k] for k in GOLD_COLUMNS if k in r), "")
        if "prompt" in r or task_type(str(gold), r.get("info") if isinstance(r.get("info"), dict) else None) != "single":
            return True
    return False


def _read_raw(path: Path) -> list[Example]:
    from whowrote.data.readers import iter_json_rows

    out = []
    for lineno, r in iter_json_rows(path):
        info = r.get("info") if isinstance(r.get("info"), dict) else {}
        text = next((r[k] for k in TEXT_COLUMNS if isinstance(r.get(k), str)), "")
        gold = next((str(r[k]) for k in GOLD_COLUMNS if r.get(k) is not None), "")
        prompt = r.get("prompt") if isinstance(r.get("prompt"), list) else None
        if prompt and not text:
            text = next((m.get("content", "") for m in reversed(prompt) if m.get("role") == "user"), "")
        out.append(Example(str(r.get("id", info.get("id", f"{path.stem}-{lineno - 1}"))), text,
                           gold.strip().upper(), info, prompt))
    return out


def load_examples(path: str | Path, labels: Sequence[str] = PROVIDERS,
                  limit: int | None = None) -> list[Example]:
    """Examples of one split file (JSONL), in file order, gold restricted to ``labels``."""
    p = Path(path)
    if not p.is_file():
        raise WhowroteError(f"split file not found: {p}")
    first = _first_rows(p)
    if not first:
        raise WhowroteError(f"split file is empty: {p}")
    if _needs_raw(first):
        examples = _read_raw(p)
        examples = [e for e in examples if e.kind != "single" or e.gold in labels]
    else:
        from whowrote.data import load_corpus

        df = load_corpus(p)
        meta = [c for c in df.columns if c not in ("id", "text", "provider")]
        examples = [
            Example(str(r["id"]), r["text"], str(r["provider"]),
                    {c: _plain(r[c]) for c in meta})
            for r in df.to_dict("records") if r["provider"] in labels
        ]
    if not examples:
        raise WhowroteError(f"{p}: no rows with a gold label in {tuple(labels)}")
    ids = [e.id for e in examples]
    if len(set(ids)) != len(ids):  # resume and traces key on the id: it must be unique
        raise WhowroteError(f"{p}: duplicate example ids")
    return examples[:limit] if limit else examples


def _plain(v: object) -> object:
    # JSON-serialisable metadata only (pandas gives NaN / numpy scalars); NaN means "missing".
    v = jsonable(v)
    return None if isinstance(v, float) and v != v else v
