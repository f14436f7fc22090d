"""Two ``train-probe`` runs side by side, from their ``model.json`` metrics (issue #17's targets).

    python benchmarks/compare_models.py BEFORE_DIR AFTER_DIR

Prints Markdown: the topic hold-out under every edit (4-way, drop from raw in points), leave-one-
genre-out per genre (4-way, 3-way, OTHER AUROC, ECE, coverage, selective accuracy) and the in-genre
(topic hold-out val) accuracy per genre.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from whowrote.style.edits import edits


def _metrics(d: str) -> dict:
    return json.loads((Path(d) / "model.json").read_text())["metrics"]


def main(before: str, after: str) -> None:
    b, a = _metrics(before), _metrics(after)
    print("| edit (topic hold-out) | before | drop | after | drop |\n|---|---:|---:|---:|---:|")
    rb, ra = b["topic_holdout_edits"]["raw"]["accuracy"], a["topic_holdout_edits"]["raw"]["accuracy"]
    for e in edits():
        vb, va = b["topic_holdout_edits"].get(e), a["topic_holdout_edits"].get(e)  # an edit newer than a run: "—"
        cells = [f"{v['accuracy']:.3f} | {(v['accuracy'] - r) * 100:+.1f}" if v else "— | —"
                 for v, r in ((vb, rb), (va, ra))]
        print(f"| {e} | {cells[0]} | {cells[1]} |")
    lb, la = b["leave_one_genre_out"], a["leave_one_genre_out"]
    keys = ("accuracy", "accuracy_3way", "other_auroc", "ece", "coverage", "selective_accuracy")
    print("\n| LOGO genre | " + " | ".join(f"{k} before / after" for k in keys) + " |")
    print("|---|" + "---:|" * len(keys))
    for g in [g for g, v in lb.items() if isinstance(v, dict) and "n" in v]:
        cells = [f"{lb[g][k]:.3f} / {la[g][k]:.3f}" if k in lb[g] else "—" for k in keys]
        print(f"| {g} | " + " | ".join(cells) + " |")
    means = ("mean_accuracy", "mean_accuracy_3way", "mean_other_auroc", "mean_ece", "mean_coverage",
             "mean_selective_accuracy")
    print("| **mean** | " + " | ".join(f"{lb[k]:.3f} / {la[k]:.3f}" for k in means) + " |")
    print("\n| in-genre (topic hold-out val) | before | after |\n|---|---:|---:|")
    vb, va = b["topic_holdout_val"], a["topic_holdout_val"]
    for g in vb["per_genre"]:
        print(f"| {g} | {vb['per_genre'][g]['accuracy']:.3f} | {va['per_genre'][g]['accuracy']:.3f} |")
    for k in ("accuracy", "ece", "other_auroc"):
        print(f"| all: {k} | {vb[k]:.3f} | {va[k]:.3f} |")
    print("\n| length (first N words) | before | after |\n|---|---:|---:|")
    for n in sorted(b["length_falloff"], key=int):
        print(f"| {n} | {b['length_falloff'][n]:.3f} | {a['length_falloff'][n]:.3f} |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python benchmarks/compare_models.py BEFORE_DIR AFTER_DIR")
    main(sys.argv[1], sys.argv[2])
