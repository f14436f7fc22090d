"""Feature-extraction speed: docs/s and MB/s, one core, for the research 41 and the full set.

    python benchmarks/features.py --corpus ../shared/corpus/blogs.jsonl ../shared/corpus/debates.jsonl

For each corpus file: the median of ``--repeat`` timed passes over its texts (after one warm-up),
in documents per second and MB (UTF-8) per second; also the slow literal implementation of the
spec used by the tests (``tests/style/reference41.py``), as the "research code" stand-in.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from whowrote.data.readers import iter_json_rows
from whowrote.style import extract

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "style"))


def texts_of(path: str) -> list[str]:
    return [rec.get("text") or rec.get("content") or "" for _, rec in iter_json_rows(Path(path))]


def timed(fn, texts, repeat: int) -> float:
    fn(texts[:20])
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(texts)
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", nargs="+", required=True)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--limit", type=int, default=1000, help="texts per file")
    ap.add_argument("--reference", action="store_true", help="also time the slow literal reference")
    args = ap.parse_args()
    print("| corpus | docs | mean chars | method | docs/s | MB/s |")
    print("|---|---:|---:|---|---:|---:|")
    for path in args.corpus:
        texts = texts_of(path)[: args.limit]
        mb = sum(len(t.encode()) for t in texts) / 1e6
        methods = {"research41": lambda ts: extract(ts, "research41"), "full": lambda ts: extract(ts, "full")}
        if args.reference:
            from reference41 import reference41

            methods["reference (literal spec)"] = lambda ts: [reference41(t) for t in ts]
        for name, fn in methods.items():
            dt = timed(fn, texts, 1 if name.startswith("reference") else args.repeat)
            print(f"| {Path(path).stem} | {len(texts)} | {sum(map(len, texts)) / len(texts):,.0f} | {name} "
                  f"| {len(texts) / dt:,.0f} | {mb / dt:.1f} |", flush=True)


if __name__ == "__main__":
    main()
