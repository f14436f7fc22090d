"""``whowrote predict`` start-up and end-to-end throughput.

    python benchmarks/predict.py --corpus ../shared/corpus/blogs.jsonl --n 1000

- start-up: wall time of ``whowrote predict ONE.md --jsonl`` (median of ``--repeat`` runs), via the
  installed entry-point script (not the pyenv shim, whose own start-up is not ours);
- batch: ``whowrote predict FOLDER --jsonl`` over ``--n`` files written from the corpus
  (texts cycled if the file has fewer), wall time including start-up, in docs/s;
- in-process: ``load_model().attribute(texts)`` docs/s (no file I/O, no start-up).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from whowrote.data.readers import iter_json_rows


def entry_point() -> str:
    script = Path(sys.executable).with_name("whowrote")
    return str(script) if script.exists() else shutil.which("whowrote") or "whowrote"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    texts = [r.get("text") or r.get("content") or "" for _, r in iter_json_rows(Path(args.corpus))]
    exe = entry_point()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "one.md").write_text(texts[0])
        runs = []
        for _ in range(args.repeat + 1):
            t0 = time.perf_counter()
            subprocess.run([exe, "predict", str(d / "one.md"), "--jsonl"], check=True, capture_output=True)
            runs.append(time.perf_counter() - t0)
        print(f"start-up (one file, {exe}): median {statistics.median(runs[1:]):.3f} s, min {min(runs[1:]):.3f} s")
        batch = d / "batch"
        batch.mkdir()
        for i in range(args.n):
            (batch / f"{i:05d}.md").write_text(texts[i % len(texts)])
        mb = sum(len(texts[i % len(texts)].encode()) for i in range(args.n)) / 1e6
        t0 = time.perf_counter()
        out = subprocess.run([exe, "predict", str(batch), "--jsonl", "--no-progress"], check=True,
                             capture_output=True, text=True).stdout
        dt = time.perf_counter() - t0
        assert len(out.splitlines()) == args.n
        print(f"batch CLI: {args.n} files, {mb:.1f} MB in {dt:.2f} s = {args.n / dt:,.0f} docs/s ({mb / dt:.1f} MB/s)")
    from whowrote.style import load_model

    model = load_model()
    sample = [texts[i % len(texts)] for i in range(args.n)]
    model.attribute(sample[:10])
    t0 = time.perf_counter()
    model.attribute(sample)
    dt = time.perf_counter() - t0
    print(f"in-process attribute(): {args.n / dt:,.0f} docs/s")


if __name__ == "__main__":
    main()
