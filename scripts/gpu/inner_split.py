"""An inner topic split of the ladder's train split, for choosing settings without touching val.

``make`` (here, with pandas): hold out a share of train's topics per genre with the project's own
:func:`whowrote.data.splits.topic_holdout_split` (seeded; each genre is its own category), balance
the held-out rows per provider, and write only *ids* (no corpus text) to a small JSON file that is
committed: ``val`` (the inner val) and ``drop`` (rows of a held-out topic that balancing left out:
they may not go to the inner train either, or a topic would cross).

``apply`` (on the GPU machine): read ``DIR/train.jsonl.gz`` and write
``DIR/inner_train.jsonl.gz`` (train minus val and drop) and ``DIR/inner_val.jsonl.gz`` atomically;
it refuses if an id is missing, so a different train split cannot be cut by a stale id list.

    python scripts/gpu/inner_split.py make --train .gguf/data/train.jsonl.gz --out scripts/gpu/inner_val_ids.json
    python3 scripts/gpu/inner_split.py apply --data ~/stage/x/data --ids scripts/gpu/inner_val_ids.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections import Counter
from pathlib import Path

from whowrote.train.data import read_rows, write_rows


def ids_digest(ids: list[str]) -> str:
    """A fingerprint of the train split the ids were cut from (sorted ids, sha256)."""
    return hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()


def make(train: Path, out: Path, seed: int, val_frac: float) -> dict:
    import pandas as pd

    from whowrote.data.splits import topic_holdout_split

    rows = read_rows(train)
    frame = pd.DataFrame(rows)
    frame["category"] = frame["genre"]  # train rows carry no category: each genre is one
    parts = topic_holdout_split(frame, seed=seed, val_frac=val_frac, balance=False)
    held = parts["val"]
    balanced = topic_holdout_split(frame, seed=seed, val_frac=val_frac, balance=True)["val"]
    val_ids = sorted(balanced["id"].astype(str))
    drop_ids = sorted(set(held["id"].astype(str)) - set(val_ids))
    info = {"seed": seed, "val_frac": val_frac, "train_digest": ids_digest([str(r["id"]) for r in rows]),
            "n_train": len(rows), "val": val_ids, "drop": drop_ids,
            "val_by_provider": dict(sorted(Counter(balanced["provider"]).items())),
            "val_by_genre": dict(sorted(Counter(balanced["genre"]).items()))}
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, out)
    return info


def apply(data: Path, ids_file: Path) -> tuple[int, int]:
    info = json.loads(ids_file.read_text(encoding="utf-8"))
    rows = read_rows(data / "train.jsonl.gz")
    if ids_digest([str(r["id"]) for r in rows]) != info["train_digest"]:
        raise SystemExit(f"inner_split: {data / 'train.jsonl.gz'} is not the train split {ids_file} was cut from")
    val, drop = set(info["val"]), set(info["drop"])
    inner_val = [r for r in rows if r["id"] in val]
    inner_train = [r for r in rows if r["id"] not in val and r["id"] not in drop]
    write_rows(data / "inner_train.jsonl.gz", inner_train)  # atomic: a tmp name, then one rename
    write_rows(data / "inner_val.jsonl.gz", inner_val)
    return len(inner_train), len(inner_val)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("--train", type=Path, required=True)
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--seed", type=int, default=100)
    m.add_argument("--val-frac", type=float, default=0.15)
    a = sub.add_parser("apply")
    a.add_argument("--data", type=Path, required=True)
    a.add_argument("--ids", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "make":
        info = make(args.train, args.out, args.seed, args.val_frac)
        print(f"inner val {len(info['val'])} rows {info['val_by_provider']} {info['val_by_genre']}, "
              f"{len(info['drop'])} more rows of held-out topics kept out of the inner train -> {args.out}")
    else:
        n_train, n_val = apply(args.data, args.ids)
        print(f"inner split: {n_train} train rows, {n_val} val rows in {args.data}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
