"""Figure of ``external_training.py``'s session-47 arms (issue 17): each arm minus the bundled data,
in points with 95 % intervals, on every test its rule reads.

Reads the arms' ``results.json`` (nothing is re-run) and draws one row per score: T2 / T1 mean 3-way
recall and 4-way accuracy (half-B answers; intervals resample prompts), T3 4-way (the corpus's topic
hold-out) and LOGO 3-way per corpus genre (intervals resample topics)::

    python benchmarks/external_arms_figure.py results/external_{versions,assistants,others}/results.json \\
        --out docs/figures/external_versions.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

BASE = "arena"  # the bundled data, every arm's baseline
TESTS = (("T2 new prompts, held-out versions", "mean_recall_3way", "T2 mean 3-way recall"),
         ("T2 new prompts, held-out versions", "accuracy", "T2 4-way"),
         ("T1 new prompts, trained versions", "mean_recall_3way", "T1 mean 3-way recall"),
         ("T1 new prompts, trained versions", "accuracy", "T1 4-way"),
         ("T3 corpus topic hold-out", "accuracy", "T3 4-way (corpus)"))


def arm_rows(results: dict) -> list[tuple[str, float, float, float]]:
    """``(label, diff, low, high)`` in points for one arm: the tests of ``TESTS``, then LOGO 3-way per genre."""
    arm = results["arm"]
    rows = []
    for test, key, label in TESTS:
        row = results["tests"][test]
        lo, hi = row["diff_intervals"][key]
        rows.append((label, 100 * (row[arm][key] - row[BASE][key]), 100 * lo, 100 * hi))
    for genre, row in results["LOGO"].items():
        lo, hi = row["diff_intervals"]["accuracy_3way"]
        rows.append((f"LOGO {genre} 3-way", 100 * (row[arm]["accuracy_3way"] - row[BASE]["accuracy_3way"]),
                     100 * lo, 100 * hi))
    return rows


def draw(paths: list[Path], out: Path) -> None:
    arms = [json.loads(p.read_text()) for p in paths]
    labels = [r[0] for r in arm_rows(arms[0])]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(labels) + 1.5))
    width = 0.8 / len(arms)
    for k, results in enumerate(arms):
        rows = arm_rows(results)
        y = [i + (k - (len(arms) - 1) / 2) * width for i in range(len(rows))]
        d = [r[1] for r in rows]
        err = [[r[1] - r[2] for r in rows], [r[3] - r[1] for r in rows]]
        verdict = "adopted" if results["adopt"] else "not adopted"
        ax.errorbar(d, y, xerr=err, fmt="o", capsize=3, label=f"{results['arm']} ({verdict})")
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel("arm minus the bundled data (points, 95 % interval)")
    ax.set_title("Training on the held-out versions' Arena-Hard answers too (session 47)")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path, nargs="+", help="an arm's results.json")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    missing = [p for p in args.results if not p.is_file()]
    if missing:
        raise SystemExit(f"error: {missing[0]}: no such file")
    draw(args.results, args.out)


if __name__ == "__main__":
    main()
