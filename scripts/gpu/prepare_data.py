"""Build the ladder's splits from ../shared/corpus into a git-ignored folder (default .gguf/data).

train: every genre, topic-held-out, provider-balanced (OTHER dropped).
val:   the held-out topics of blogs + debates only, provider-balanced (GEMINI comes from debates:
       the blogs have none), at most --n-val texts.
Texts are cut to --max-chars characters (the trainers and the eval harness cut again to the exact
token budget, data.max_text_tokens, with the model's own tokenizer), so the gzipped files stay small
enough to carry to the device. Never write these into the repository.

    python scripts/gpu/prepare_data.py --corpus ../shared/corpus --out .gguf/data

``--files blogs,debates,fiction,longform`` reads only those corpus files: the four the 135M ladder
was built from (the corpus gained chat.jsonl later, which changes the topic split), so the Qwen
ladder gets the same 240-text val and 1239-text train as docs/results.md.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from whowrote.data import load_corpus
from whowrote.data.splits import topic_holdout_split
from whowrote.train.data import balanced_subset, write_rows
from whowrote.types import PROVIDERS


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="../shared/corpus")
    ap.add_argument("--out", default=".gguf/data")
    ap.add_argument("--val-frac", type=float, default=0.3)
    ap.add_argument("--n-val", type=int, default=300)
    ap.add_argument("--n-train", type=int, default=2400)
    ap.add_argument("--max-chars", type=int, default=9000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--files", default="", help="comma-separated corpus file stems (default: every *.jsonl)")
    a = ap.parse_args()
    files = sorted(Path(a.corpus).glob("*.jsonl"))
    if a.files:
        wanted = [w.strip() for w in a.files.split(",") if w.strip()]
        files = [Path(a.corpus) / f"{w}.jsonl" for w in wanted]
        missing = [str(f) for f in files if not f.is_file()]
        if missing:
            raise SystemExit(f"prepare_data: no such corpus file: {', '.join(missing)}")
    corpus = load_corpus(files)
    splits = topic_holdout_split(corpus, seed=a.seed, val_frac=a.val_frac, labels=PROVIDERS, balance=True)
    cols = ["id", "text", "provider", "model", "genre", "topic"]

    def rows(frame):
        out = []
        for r in frame[cols].to_dict("records"):
            r["text"] = str(r["text"])[: a.max_chars]
            r["topic"] = str(r["topic"])
            out.append(r)
        return out

    val_frame = splits["val"][splits["val"]["genre"].isin(["blog", "blogs", "debate", "debates"])]
    val = balanced_subset(rows(val_frame), a.n_val, PROVIDERS, seed=a.seed)
    train = balanced_subset(rows(splits["train"]), a.n_train, PROVIDERS, seed=a.seed)
    out = Path(a.out)
    write_rows(out / "train.jsonl.gz", train)
    write_rows(out / "val.jsonl.gz", val)
    assert not {r["topic"] for r in val} & {r["topic"] for r in train if r["genre"] in ("blog", "debate")}
    report = {name: {"n": len(rs), "providers": Counter(r["provider"] for r in rs),
                     "genres": Counter(r["genre"] for r in rs)} for name, rs in (("train", train), ("val", val))}
    report["corpus_files"] = [f.name for f in files]
    report["max_chars"] = a.max_chars
    (out / "data_report.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
