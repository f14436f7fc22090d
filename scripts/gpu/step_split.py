"""Where each GRPO run's steps went: ``python scripts/gpu/step_split.py RUN/metrics.jsonl ...``.

Per run (one line each): the number of logged steps and the medians, over every step but the first
(engine warm-up and kernel compiles), of TRL's ``step_time``, the rollouts (``time/rollouts_s``:
sampling, weight sync, rewards, the old-policy log-probability pass), the vLLM sampling and weight
sync within them (``time/vllm_generate_s``, ``time/vllm_sync_s``), and the optimisation
(``step_time - time/rollouts_s``), as ``whowrote.train.phases`` logs them. A file without those
keys (a run before they existed) shows dashes; a torn line is skipped.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from summarize_05b import read_jsonl  # the same folder: a torn line is skipped

KEYS = ("step_time", "time/rollouts_s", "time/vllm_generate_s", "time/vllm_sync_s")


def split(path: Path) -> dict[str, float | int | None]:
    rows = [r for r in read_jsonl(path) if r.get("kind") == "train" and isinstance(r.get("step_time"), (int, float))]
    steps = {r["step"]: r for r in rows}  # a resumed step: the last record wins
    later = [steps[s] for s in sorted(steps)][1:]

    def median(key: str) -> float | None:
        vals = [r[key] for r in later if isinstance(r.get(key), (int, float))]
        return statistics.median(vals) if vals else None

    out: dict[str, float | int | None] = {"steps": len(steps), **{k: median(k) for k in KEYS}}
    opt = [r["step_time"] - r["time/rollouts_s"] for r in later if isinstance(r.get("time/rollouts_s"), (int, float))]
    out["optimisation"] = statistics.median(opt) if opt else None
    return out


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: step_split.py RUN/metrics.jsonl ...", file=sys.stderr)
        return 2
    cols = ("step_time", "time/rollouts_s", "time/vllm_generate_s", "time/vllm_sync_s", "optimisation")
    print("run | steps | " + " | ".join(cols) + "  (medians in s, first step left out)")
    rc = 0
    for arg in argv:
        p = Path(arg)
        if not p.is_file():
            print(f"{arg}: not found", file=sys.stderr)
            rc = 1
            continue
        got = split(p)
        print(f"{p.parent.name} | {got['steps']} | " + " | ".join("—" if got[c] is None else f"{got[c]:.2f}" for c in cols))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
