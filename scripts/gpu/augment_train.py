"""The LM's train split with the style model's edit-robust training copies (issue 17, for the LM engine).

Writes every train row as it is plus one edited copy of it: the copy the bundled style model trains
on (:func:`whowrote.style.train.edited_copies`, ``AUGMENTATIONS``: the text's first 60-600 words, or
pasted as plain text, or all content-keeping edits at once; seeded, one edit drawn per text). So
one epoch over this file is as many optimizer steps as the shipped two epochs over the plain one,
and each text is seen once as written and once edited, unless its copy equals it (a plain-text
copy of a text without Markdown, or a cut longer than the text: 110 of the ladder's 1,239). The edits the suite scores but no copy
makes (the HTML round trip, character crops, ``*`` bullets) are the held-out edits of the test.

    python scripts/gpu/augment_train.py --train .gguf/data/train.jsonl.gz --out .gguf/aug/train.jsonl.gz

The output is derived from the corpus: keep it in the git-ignored ``.gguf/`` and carry it to the device.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from statistics import median_high

from whowrote.style.train import AUGMENTATIONS, edited_copies
from whowrote.train.data import read_rows, write_rows


def augmented_rows(rows: list[dict], seed: int = 0) -> list[dict]:
    """``rows`` then one edited copy of each, in the same order (id suffixed ``~aug``)."""
    (copies,) = edited_copies([r["text"] for r in rows], seed=seed, groups=AUGMENTATIONS[:1])
    edited = [{**r, "id": f"{r['id']}~aug", "text": c} for r, c in zip(rows, copies, strict=True)]
    return [*rows, *edited]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", type=Path, default=Path(".gguf/data/train.jsonl.gz"))
    ap.add_argument("--out", type=Path, default=Path(".gguf/aug/train.jsonl.gz"))
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rows = read_rows(a.train)
    if not rows:
        raise SystemExit(f"augment_train: no rows in {a.train}")
    out = augmented_rows(rows, a.seed)
    write_rows(a.out, out)
    n = len(rows)
    changed = sum(o["text"] != c["text"] for o, c in zip(out[:n], out[n:], strict=True))
    print(json.dumps({"rows": len(out), "copies": n, "copies_changed": changed,
                      "providers": dict(Counter(r["provider"] for r in out)),
                      "median_chars": {"raw": median_high(len(r["text"]) for r in out[:n]),
                                       "copies": median_high(len(r["text"]) for r in out[n:])}}))


if __name__ == "__main__":
    main()
