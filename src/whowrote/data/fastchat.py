"""FastChat ``model_answer`` folders: the answers of many models to one benchmark's prompts.

MT-Bench, Arena-Hard-Auto and their forks store one ``<model>.jsonl`` file per model, one JSON
object per line: ``question_id``, ``model_id``, ``choices[0].turns[*].content`` (the answer's
turns). Read as one source (not one source per file, as other folders of JSONL files are:
:func:`whowrote.data.corpus.corpus_sources`) so the whole benchmark is one genre and every answer
to a prompt shares its topic: a topic split then never puts one prompt's answers on both sides.

- ``text``: the turns of the first choice, each stripped, joined by a blank line.
- ``model``: ``model_id`` (the file's stem when missing); ``topic``: ``question_id``;
  ``id``: ``<model>:<question_id>``.
- genre: the benchmark's folder name (the parent of ``model_answer``) without its version
  suffix: ``arena-hard-v0.1/model_answer`` -> ``arena-hard``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from whowrote.data.readers import iter_json_rows
from whowrote.types import WhowroteError

ANSWER_DIR = "model_answer"
_VERSION = re.compile(r"[-_]v\d[\w.]*$")


def is_fastchat_folder(path: Path) -> bool:
    """A folder of ``*.jsonl`` files whose first row has ``question_id`` and ``choices``."""
    if not path.is_dir():
        return False
    first = next(iter(sorted(path.glob("*.jsonl"))), None)
    if first is None:
        return False
    try:
        _, row = next(iter_json_rows(first), (0, {}))
    except WhowroteError:
        return False
    return "question_id" in row and isinstance(row.get("choices"), list)


def benchmark_genre(path: Path) -> str:
    """``.../arena-hard-v0.1/model_answer`` -> ``arena-hard``; ``.../mt_bench/model_answer`` -> ``mt_bench``."""
    folder = path.resolve()
    name = folder.parent.name if folder.name == ANSWER_DIR else folder.name
    return _VERSION.sub("", name) or name


def read_fastchat_answers(path: Path) -> pd.DataFrame:
    """Every answer in a ``model_answer`` folder, one row each (see the module docstring); the
    genre is in ``attrs["genre"]``. A row that is not an answer object is a one-line error naming
    the file and line."""
    rows = []
    for file in sorted(path.glob("*.jsonl")):
        for lineno, row in iter_json_rows(file):
            choices = row.get("choices")
            if "question_id" not in row or not isinstance(choices, list):
                raise WhowroteError(f"{file}:{lineno}: not a FastChat answer (needs question_id and a choices list)")
            turns = choices[0].get("turns", []) if choices and isinstance(choices[0], dict) else []
            parts = [t.get("content") if isinstance(t, dict) else None for t in turns]
            text = "\n\n".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
            model = str(row.get("model_id") or file.stem)
            question = str(row["question_id"])
            rows.append({"id": f"{model}:{question}", "model": model, "topic": question, "text": text})
    frame = pd.DataFrame(rows, columns=["id", "model", "topic", "text"])
    frame.attrs["genre"] = benchmark_genre(path)
    return frame
