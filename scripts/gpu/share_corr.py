"""Do GRPO runs swing together? Correlation of the CLAUDE share of train answers, step by step.

Session 26's four runs (one cold start) all peaked in CLAUDE share at step 11 and dipped at steps
15-16. If the swing comes from what runs share (the data order: ``data.seed``, the same in every
session so far) rather than from the cold start, runs of *other* sessions swing at the same steps
too. This reads every GRPO run under the roots (``runs_05b``'s reader) and writes, for steps 1..N,
each run's per-step share and the Pearson correlation of every pair over the steps both logged::

    python scripts/gpu/share_corr.py results/session25/chain/qwen05b results/session26/chain/qwen05b \\
        results/session27/chain/qwen05b --steps 16 --out results/session27/claude_share_corr.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from runs_05b import Run, collect

from whowrote.data.generate.store import atomic_write

KEY = "rewards/pred_claude/mean"


def label(run: Run) -> str:
    return f"s{run.session}:{run.path.name}"


def pearson(a: list[float], b: list[float]) -> float | None:
    """Pearson's r of two equal-length series; None with fewer than 3 points or a constant series."""
    n = len(a)
    if n < 3:
        return None
    ma, mb = sum(a) / n, sum(b) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True))
    va, vb = sum((x - ma) ** 2 for x in a), sum((y - mb) ** 2 for y in b)
    return None if va == 0 or vb == 0 else cov / math.sqrt(va * vb)


def correlations(runs: list[Run], steps: int) -> dict:
    """Per run its shares at steps 1..steps, and per pair r over the steps both have (with n)."""
    series = {label(r): {s: v for s, v in r.train_values(KEY).items() if 1 <= s <= steps} for r in runs}
    series = {k: v for k, v in series.items() if v}
    names = list(series)
    pairs = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            common = sorted(set(series[a]) & set(series[b]))
            r = pearson([series[a][s] for s in common], [series[b][s] for s in common])
            pairs[f"{a} ~ {b}"] = {"r": None if r is None else round(r, 3), "n_steps": len(common)}
    return {"metric": KEY, "steps": steps, "share": {k: {str(s): round(v, 4) for s, v in d.items()}
                                                     for k, d in series.items()}, "pairs": pairs}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="+", help="result folders (a sessionN/ in the path names the session)")
    ap.add_argument("--steps", type=int, default=16, help="compare steps 1..STEPS (default 16)")
    ap.add_argument("--out", type=Path, help="write the shares and correlations here (JSON)")
    args = ap.parse_args(argv)
    if args.steps < 3:
        print("error: --steps must be at least 3", file=sys.stderr)
        return 2
    runs = [r for r in collect(args.roots) if r.trained and r.train_values(KEY)]
    if len(runs) < 2:
        print(f"error: fewer than two runs under the roots log {KEY}", file=sys.stderr)
        return 2
    res = correlations(runs, args.steps)
    for pair, v in res["pairs"].items():
        print(f"{'—' if v['r'] is None else format(v['r'], '+.2f'):>6}  ({v['n_steps']:2d} steps)  {pair}")
    if args.out:
        atomic_write(args.out, json.dumps(res, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
