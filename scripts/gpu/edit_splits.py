"""The answer-only LM under issue 17's edits and on an unseen genre: the splits the device call scores.

Writes, into a git-ignored folder (default ``.gguf/edits``; carry it to the device, never commit it):

- ``val.EDIT.jsonl.gz`` for every edit of the robustness suite but ``raw``
  (:func:`whowrote.style.edits.edits`, seed 0): the ladder's 3-way val (``prepare_data.py``), each
  text put through the edit as ``whowrote eval --edit EDIT`` puts it;
- ``chat.jsonl.gz``: ``--n-chat`` AlpacaEval answers of the three assistants from
  ``chat.jsonl``, provider-balanced and seeded. The ladder's LM never saw the chat genre (its train
  split reads blogs, debates, fiction, longform), so this is its leave-one-genre-out test, on the
  texts where the style model's 4-genre fit is scored for the side-by-side
  (``scripts/gpu/style_side_by_side.py``);
- with ``--arena DIR`` (a FastChat ``model_answer`` folder of Arena-Hard-Auto, docs/predict.md):
  ``arena_b.jsonl.gz``, ``--n-arena`` answers of the three assistants to half B of its prompts
  (``benchmarks/external_answers.py``'s halves: the bundled style model never trained on them),
  provider-balanced and seeded: texts from outside the corpus, held-out versions among them.

    python scripts/gpu/edit_splits.py --val .gguf/data/val.jsonl.gz --corpus ../shared/corpus --out .gguf/edits \
        --arena /tmp/arena/data/arena-hard-v0.1/model_answer
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from whowrote.data import load_corpus
from whowrote.style.edits import edits
from whowrote.train.data import balanced_subset, read_rows, write_rows
from whowrote.types import PROVIDERS, WhowroteError

COLS = ("id", "text", "provider", "model", "genre", "topic")


def genre_rows(corpus_file: Path, genre: str, n: int, max_chars: int, seed: int,
               exclude_ids: frozenset[str] = frozenset()) -> list[dict]:
    """``n`` texts of ``genre`` from ``corpus_file`` (CLAUDE / CHATGPT / GEMINI only, equal per provider,
    seeded, interleaved), cut to ``max_chars``, none whose id is in ``exclude_ids``."""
    frame = load_corpus([corpus_file])
    frame = frame[(frame["genre"] == genre) & frame["provider"].isin(PROVIDERS) & ~frame["id"].isin(exclude_ids)]
    rows = [{**{c: r[c] for c in COLS}, "text": str(r["text"])[:max_chars], "topic": str(r["topic"])}
            for r in frame[list(COLS)].to_dict("records")]
    return balanced_subset(rows, n, PROVIDERS, seed=seed)


def arena_rows(folder: Path, n: int, max_chars: int, seed: int) -> list[dict]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from external_answers import read_answers  # the external test's filters and prompt halves

    frame = read_answers(folder)
    frame = frame[~frame.half_a & frame.provider.isin(PROVIDERS)]
    rows = [{"id": f"{r['model']}:{r['question']}", "text": str(r["text"])[:max_chars], "provider": r["provider"],
             "model": r["model"], "genre": "arena-hard", "topic": str(r["question"])} for r in frame.to_dict("records")]
    return balanced_subset(rows, n, PROVIDERS, seed=seed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--val", type=Path, default=Path(".gguf/data/val.jsonl.gz"))
    ap.add_argument("--corpus", type=Path, default=Path("../shared/corpus"))
    ap.add_argument("--out", type=Path, default=Path(".gguf/edits"))
    ap.add_argument("--n-chat", type=int, default=240)
    ap.add_argument("--max-chars", type=int, default=12000, help="as prepare_data.py cut the ladder's texts")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--arena", type=Path, default=None, help="a FastChat model_answer folder (Arena-Hard-Auto)")
    ap.add_argument("--n-arena", type=int, default=240)
    a = ap.parse_args()
    try:
        val = read_rows(a.val)
    except WhowroteError as e:  # one line: the val split comes from prepare_data.py (docs/predict.md)
        raise SystemExit(f"error: {e} (make it first: python scripts/gpu/prepare_data.py --corpus ../shared/corpus "
                         "--out .gguf/data --files blogs,debates,fiction,longform --max-chars 12000)") from None
    for name, edit in edits(a.seed).items():  # the table `whowrote eval --edit NAME` applies
        if name != "raw":
            write_rows(a.out / f"val.{name}.jsonl.gz", [{**r, "text": edit(r["text"])} for r in val])
    chat = genre_rows(a.corpus / "chat.jsonl", "chat", a.n_chat, a.max_chars, a.seed)
    write_rows(a.out / "chat.jsonl.gz", chat)
    summary = {"edits": sorted(p.name for p in a.out.glob("val.*.jsonl.gz")), "chat": len(chat),
               "chat_providers": {p: sum(r["provider"] == p for r in chat) for p in PROVIDERS}}
    if a.arena is not None:
        arena = arena_rows(a.arena, a.n_arena, a.max_chars, a.seed)
        write_rows(a.out / "arena_b.jsonl.gz", arena)
        summary["arena_b_providers"] = {p: sum(r["provider"] == p for r in arena) for p in PROVIDERS}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
