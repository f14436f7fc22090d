"""The LM's train split plus provider-balanced answers from another source (issue 17, session 38).

The bundled style model reads Arena-Hard answers to unseen prompts far better since it trained on
answers to the other half of the prompts (3-way 0.646 -> 0.808 on the 240 of ``arena_b``); the
answer-only LM, trained on the corpus alone, scored 0.405 there. This writes the train split an LM
needs for the same test: every row of ``--train`` as it is, then ``--n`` rows of ``--answers``
(CLAUDE / CHATGPT / GEMINI only, equal per provider, seeded, interleaved; the trainer shuffles), each
cut to ``--max-chars`` as ``prepare_data.py`` cut the corpus, with ``genre`` set to ``--genre``::

    python scripts/gpu/add_answers.py --train .gguf/data/train.jsonl.gz \\
        --answers runs/arena/arena-hard.jsonl --genre arena-hard --n 1239 \\
        --exclude .gguf/data/val.jsonl.gz .gguf/edits/arena_b.jsonl.gz --out .gguf/arena/train.jsonl.gz

``runs/arena/arena-hard.jsonl`` is ``benchmarks/external_training.py --write-train``'s file: answers
to half-A prompts only, the held-out assistant versions left out. ``--exclude`` refuses any answer
whose topic (its prompt) or id is in those files, so no test prompt can leak in. The output is
derived from the corpus and the answers: keep it in the git-ignored ``.gguf/`` and carry it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from whowrote.train.data import balanced_subset, read_rows, write_rows
from whowrote.types import PROVIDERS, WhowroteError

FIELDS = ("id", "text", "provider", "model", "genre", "topic")


def added_rows(answers: list[dict], n: int, genre: str, max_chars: int, exclude: list[dict],
               seed: int = 0) -> list[dict]:
    """``n`` answers of the three providers, equal per provider, none on an excluded topic or id,
    in the train split's fields (``genre`` set, text cut to ``max_chars``)."""
    topics = {str(r["topic"]) for r in exclude}
    ids = {str(r["id"]) for r in exclude}
    pool = [r for r in answers if r.get("provider") in PROVIDERS and str(r["topic"]) not in topics
            and str(r["id"]) not in ids]
    picked = balanced_subset(pool, n, PROVIDERS, seed=seed)
    return [{**{f: r.get(f) for f in FIELDS}, "genre": genre, "topic": str(r["topic"]),
             "text": str(r["text"])[:max_chars]} for r in picked]


def inputs_error(paths: list[Path], n: int, unit: str) -> str | None:
    """The one-line error for a missing input file or an ``n`` too small for one ``unit`` per provider;
    None when both are fine."""
    if missing := next((p for p in paths if not p.is_file()), None):
        return f"error: not found: {missing}"
    if n < len(PROVIDERS):
        return f"error: --n must be at least {len(PROVIDERS)} (one {unit} per provider)"
    return None


def short_error(rows: list[dict], n: int, what: str) -> str | None:
    """The one-line error when ``rows`` (a balanced pick of ``n``) lack ``n // 3`` of some provider
    (``what`` says what there was); None when every provider has its share."""
    per_provider = Counter(r["provider"] for r in rows)
    if any(per_provider[p] != n // len(PROVIDERS) for p in PROVIDERS):
        return f"error: {what} for --n {n} ({dict(per_provider)})"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", type=Path, default=Path(".gguf/data/train.jsonl.gz"))
    ap.add_argument("--answers", type=Path, required=True, help="JSONL rows: id, text, provider, model, topic")
    ap.add_argument("--genre", required=True, help="the genre the added rows get (e.g. arena-hard)")
    ap.add_argument("--n", type=int, required=True, help="how many answers to add (equal per provider)")
    ap.add_argument("--exclude", type=Path, nargs="*", default=[], help="splits whose topics and ids stay out")
    ap.add_argument("--max-chars", type=int, default=12000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    if (err := inputs_error([a.train, a.answers, *a.exclude], a.n, "answer")) is not None:
        print(err, file=sys.stderr)
        return 2
    try:
        train = read_rows(a.train)
        exclude = [r for p in a.exclude for r in read_rows(p)]
        added = added_rows(read_rows(a.answers), a.n, a.genre, a.max_chars, exclude, a.seed)
    except (WhowroteError, KeyError) as e:  # a bad line, or a row without id / topic / text
        print(f"error: {e}", file=sys.stderr)
        return 2
    if (err := short_error(added, a.n, f"{a.answers}: only {len(added)} usable answers")) is not None:
        print(err, file=sys.stderr)
        return 2
    write_rows(a.out, [*train, *added])
    print(json.dumps({"train": len(train), "added": len(added), "out": str(a.out),
                      "added_providers": Counter(r["provider"] for r in added),
                      "added_models": len({r["model"] for r in added})}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
