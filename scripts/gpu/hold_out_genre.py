"""A train split without one genre, and a test split of that genre: the LM's leave-one-genre-out arm.

Issue 17 asks for an LM engine only if it "measurably improves leave-one-genre-out accuracy". The
ladder's LMs never saw chat, but the Arena-Hard answers they train on are chat answers, so chat is not
a clean held-out genre for them. This writes (issue 17, session 42):

- ``--out-train``: every row of ``--train`` whose ``genre`` is not ``--genre``, unchanged and in order;
- ``--out-test``: ``--n`` texts of that genre from the corpus file ``--corpus-file`` (CLAUDE / CHATGPT /
  GEMINI only, equal per provider, seeded, interleaved), cut to ``--max-chars`` as ``prepare_data.py``
  cut the corpus, none whose id is in a kept train row or an ``--exclude`` file (so it shares no text
  with the val the LM is also scored on). The held-out rows' own texts may be drawn: nothing trains on
  them any more (the corpus's 217 GEMINI debates are all in the ladder's train or val)::

    python scripts/gpu/hold_out_genre.py --train .gguf/arena_aug/train.jsonl.gz --genre debate \\
        --corpus-file ../shared/corpus/debates.jsonl --exclude .gguf/data/val.jsonl.gz --n 240 \\
        --out-train .gguf/arena_aug_nodebate/train.jsonl.gz --out-test .gguf/logo_debate/debate.jsonl.gz

Both outputs are derived from the corpus: keep them in the git-ignored ``.gguf/`` and carry them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from whowrote.train.data import read_rows, write_rows
from whowrote.types import WhowroteError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from add_answers import inputs_error, short_error  # noqa: E402  (the same input checks)
from edit_splits import genre_rows  # noqa: E402  (the same draw as the chat test split)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", type=Path, required=True, help="the train split to hold the genre out of")
    ap.add_argument("--genre", required=True, help="the genre held out (the rows' `genre` field)")
    ap.add_argument("--corpus-file", type=Path, required=True, help="the corpus file the test texts come from")
    ap.add_argument("--exclude", type=Path, nargs="*", default=[], help="splits whose ids stay out of the test")
    ap.add_argument("--n", type=int, default=240)
    ap.add_argument("--max-chars", type=int, default=12000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out-train", type=Path, required=True)
    ap.add_argument("--out-test", type=Path, required=True)
    a = ap.parse_args(argv)
    if (err := inputs_error([a.train, a.corpus_file, *a.exclude], a.n, "text")) is not None:
        print(err, file=sys.stderr)
        return 2
    try:
        train = read_rows(a.train)
        kept = [r for r in train if r["genre"] != a.genre]
        if len(kept) == len(train):  # before the corpus is read
            raise WhowroteError(f"{a.train}: no row has genre {a.genre!r}")
        exclude_ids = frozenset(str(r["id"]) for p in a.exclude for r in read_rows(p)) | {str(r["id"]) for r in kept}
        test = genre_rows(a.corpus_file, a.genre, a.n, a.max_chars, a.seed, exclude_ids)
    except (WhowroteError, KeyError) as e:  # a bad line, a row without id / genre, a corpus without the columns
        print(f"error: {e}", file=sys.stderr)
        return 2
    if (err := short_error(test, a.n, f"{a.corpus_file}: only {len(test)} usable {a.genre} texts")) is not None:
        print(err, file=sys.stderr)
        return 2
    write_rows(a.out_train, kept)
    write_rows(a.out_test, test)
    print(json.dumps({"train": len(train), "kept": len(kept), "held_out": len(train) - len(kept),
                      "test": len(test), "test_providers": Counter(r["provider"] for r in test), "test_models": len({r["model"] for r in test})}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
