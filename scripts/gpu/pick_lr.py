"""The learning-rate rule of a GPU session, applied to its runs' in-loop evals (docs/gpu-notes.md).

Written down before a session and applied here, so the choice is reproducible and never reads val:
the runs' in-loop evals must be on the inner val (scripts/gpu/inner_split.py). Of the candidate
runs (one per lr, same cold start and seed), compare the accuracy at the last eval step that every
run reached; the best wins if it beats the runner-up by more than ``--margin`` texts and neither
raised a collapse record nor has a class recall below ``--min-recall`` there; otherwise the
lowest lr wins (the research's, the conservative choice).

    python scripts/gpu/pick_lr.py results/session7/qwen05b/cs_tellsall/grpo_s0_lr1e-6 \\
        results/session7/qwen05b/cs_tellsall/grpo_s0_lr5e-6
    python scripts/gpu/pick_lr.py --min-recall 0.2 RUN_LR1 RUN_LR2   # the rule with a per-class floor
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from runs_05b import read_jsonl


def lr_of(run: Path) -> float:
    m = re.search(r"_lr([0-9.e+-]+)$", run.name)
    if not m:
        raise SystemExit(f"pick_lr: {run} does not end in _lrLR (scripts/gpu/qwen_calls.sh names arms so)")
    return float(m.group(1))


def evals(run: Path) -> tuple[dict[int, dict], list[int]]:
    """``({step: eval record}, steps of its collapse records)`` of one run's metrics.jsonl (a torn
    line is skipped; a collapse record names its kinds only when one is of severity collapse)."""
    path = run / "metrics.jsonl"
    if not path.is_file():
        raise SystemExit(f"pick_lr: no metrics.jsonl in {run}")
    by_step: dict[int, dict] = {}
    collapses: list[int] = []
    for r in read_jsonl(path):  # runs_05b's reader: a torn line (a run killed mid-write) is left out
        if r.get("kind") == "eval" and isinstance(r.get("accuracy"), (int, float)):
            by_step[r["step"]] = r  # a resumed run re-evaluates a step: the last record wins
        if r.get("kind") == "collapse" and r.get("kinds"):
            collapses.append(r["step"])
    return by_step, collapses


def pick(runs: list[Path], margin: float = 1.0, min_recall: float = 0.0) -> dict:
    rows = []
    for run in runs:
        by_step, collapses = evals(run)
        rows.append({"run": str(run), "lr": lr_of(run), "evals": by_step, "collapses": collapses})
    common = set.intersection(*(set(r["evals"]) for r in rows)) - {0}
    if not common:
        raise SystemExit("pick_lr: the runs share no eval step after step 0")
    step = max(common)
    for r in rows:
        e = r["evals"][step]
        r["collapsed"] = any(c <= step for c in r["collapses"])
        r["accuracy"] = float(e["accuracy"])
        r["min_recall"] = min((float(v["recall"]) for v in (e.get("per_provider") or {}).values()), default=None)
        r["n"] = int(e.get("n_examples") or e.get("n_samples") or 0)
        r["ok"] = not r["collapsed"] and (r["min_recall"] is None or r["min_recall"] >= min_recall)
    ranked = sorted(rows, key=lambda r: -r["accuracy"])
    lowest = min(rows, key=lambda r: r["lr"])
    best, second = ranked[0], ranked[1] if len(ranked) > 1 else None
    # accuracies move in steps of 1/n (and are stored rounded): "more than `margin` texts" is a
    # difference past halfway to the next step
    need = (margin + 0.5) / max(best["n"], 1)
    wins = best["ok"] and (second is None or best["accuracy"] - second["accuracy"] > need)
    chosen = best if wins else lowest
    why = (f"beats the runner-up by more than {margin:g} text(s)" if wins else
           "no run wins clearly (or the best one collapsed / fell below the recall floor): the lowest lr")
    return {"step": step, "chosen_lr": chosen["lr"], "chosen_run": chosen["run"], "why": why,
            "runs": [{k: r[k] for k in ("run", "lr", "accuracy", "min_recall", "collapsed", "ok")} for r in rows]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--margin", type=float, default=1.0, help="texts the best must win by (default 1)")
    ap.add_argument("--min-recall", type=float, default=0.0, help="per-class recall floor (default 0: none)")
    a = ap.parse_args(argv)
    if len(a.runs) < 2:
        raise SystemExit("pick_lr: give at least two runs")
    out = pick(a.runs, a.margin, a.min_recall)
    for r in out["runs"]:
        print(f"lr {r['lr']:g}: accuracy {r['accuracy']:.3f} at step {out['step']}, smallest class recall "
              f"{r['min_recall']}, collapse {'yes' if r['collapsed'] else 'no'}")
    print(f"chosen: lr {out['chosen_lr']:g} ({out['why']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
