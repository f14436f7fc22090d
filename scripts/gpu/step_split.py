"""Where each GRPO run's steps went: ``python scripts/gpu/step_split.py RUN/metrics.jsonl ...``.

Per run (one line each): the number of logged steps and the medians, over every step but the first
(engine warm-up and kernel compiles), of TRL's ``step_time``, the rollouts (``time/rollouts_s``:
sampling, weight sync, rewards, the old-policy log-probability pass), the vLLM sampling and weight
sync within them (``time/vllm_generate_s``, ``time/vllm_sync_s``), and the optimisation
(``step_time - time/rollouts_s``), as ``whowrote.train.phases`` logs them. A file without those
keys (a run before they existed) shows dashes; a torn line is skipped. ``--skip N`` leaves out the
first N steps instead of one (a run with ``run.profile_steps = P`` profiled steps 2 ... P + 1, which
the profiler slows: ``--skip P+1``). ``--plot PNG`` also draws
each run's step as stacked bars (sampling, weight sync, the rest of the rollouts, the optimisation)
against the 3 s target.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from runs_05b import read_jsonl  # the same folder: a torn line is skipped

KEYS = ("step_time", "time/rollouts_s", "time/vllm_generate_s", "time/vllm_sync_s")


def split(path: Path, skip: int = 1) -> dict[str, float | int | None]:
    rows = [r for r in read_jsonl(path) if r.get("kind") == "train" and isinstance(r.get("step_time"), (int, float))]
    steps = {r["step"]: r for r in rows}  # a resumed step: the last record wins
    later = [steps[s] for s in sorted(steps)][skip:]

    def median(key: str) -> float | None:
        vals = [r[key] for r in later if isinstance(r.get(key), (int, float))]
        return statistics.median(vals) if vals else None

    out: dict[str, float | int | None] = {"steps": len(steps), **{k: median(k) for k in KEYS}}
    opt = [r["step_time"] - r["time/rollouts_s"] for r in later if isinstance(r.get("time/rollouts_s"), (int, float))]
    out["optimisation"] = statistics.median(opt) if opt else None
    return out


def plot(rows: dict[str, dict[str, float | int | None]], path: Path, left_out: str = "first step") -> None:
    """Stacked bars of each run's median step (runs without the split are left out)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = {k: v for k, v in rows.items() if v["time/rollouts_s"] is not None}
    parts = {"vLLM sampling": lambda r: r["time/vllm_generate_s"] or 0.0,
             "weight sync": lambda r: r["time/vllm_sync_s"] or 0.0,
             "rest of the rollouts": lambda r: r["time/rollouts_s"] - (r["time/vllm_generate_s"] or 0.0)
             - (r["time/vllm_sync_s"] or 0.0),
             "optimisation": lambda r: r["optimisation"] or 0.0}
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.6 * len(runs)))
    left = [0.0] * len(runs)
    for label, part in parts.items():
        widths = [part(r) for r in runs.values()]
        ax.barh(list(runs), widths, left=left, label=label)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.axvline(3.0, color="black", linestyle="--", linewidth=1, label="3 s target")
    ax.set_xlabel(f"seconds per GRPO step (median, {left_out} left out)")
    ax.invert_yaxis()
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False)  # above, any height
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="step_split.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("metrics", nargs="+", metavar="RUN/metrics.jsonl")
    ap.add_argument("--plot", type=Path, metavar="PNG", help="also draw each run's step as stacked bars")
    ap.add_argument("--skip", type=int, default=1, metavar="N", help="leave out the first N steps (default 1)")
    a = ap.parse_args(argv)  # a usage error exits 2
    if a.skip < 0:
        ap.error("--skip must be >= 0")
    cols = ("step_time", "time/rollouts_s", "time/vllm_generate_s", "time/vllm_sync_s", "optimisation")
    left_out = "first step" if a.skip == 1 else f"first {a.skip} steps"
    print("run | steps | " + " | ".join(cols) + f"  (medians in s, {left_out} left out)")
    rc = 0
    rows: dict[str, dict[str, float | int | None]] = {}
    for arg in a.metrics:
        p = Path(arg)
        if not p.is_file():
            print(f"{arg}: not found", file=sys.stderr)
            rc = 1
            continue
        got = split(p, a.skip)
        rows[p.parent.name] = got
        print(f"{p.parent.name} | {got['steps']} | " + " | ".join("—" if got[c] is None else f"{got[c]:.2f}" for c in cols))
    if a.plot is not None:
        plot(rows, a.plot, left_out)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
