"""The LM, the style model and the gate on each held-out genre, side by side (issue 17, session 44).

Each leave-one-genre-out arm writes one ``lm_style_blend.py --held-out`` JSON. This reads those files
and shows, per held-out genre, the three accuracies and the two paired differences the rule
(``lm_style_blend.logo_verdict``) decided on, with their 95 % intervals: a table on stdout and, with
``--plot``, a figure. Nothing is recomputed: the numbers are the JSONs' own.

    python scripts/gpu/logo_summary.py results/session43/blend_nodebate.json \\
        results/session44/blend_nofiction.json results/session44/blend_nolongform.json \\
        --plot docs/figures/lm_logo_summary_session44.png
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def read_arm(path: Path) -> dict:
    """One held-out genre's accuracies, differences and verdicts from a blend JSON."""
    try:
        d = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: cannot read it as JSON ({e})") from None
    rule = d.get("rule_logo") if isinstance(d, dict) else None
    if rule is None:
        raise ValueError(f"{path}: no rule_logo (was lm_style_blend.py run with --held-out?)")
    try:
        s = d["scores"][rule["held_out"]]
        return {"genre": rule["held_out"], "n": s["n"], "lm": s["lm"], "style": s["style"], "gated": s["gated"],
                "lm_minus_style": rule["lm_minus_style"], "gated_minus_style": rule["gated_minus_style"],
                "lm_verdict": rule["lm"], "gated_verdict": rule["gated"]}
    except (KeyError, TypeError) as e:
        raise ValueError(f"{path}: not an lm_style_blend.py output (missing {e})") from None


def table(arms: list[dict]) -> str:
    def ci(d: dict) -> str:
        return f"{d['diff']:+.1f} [{d['lo']:+.1f}, {d['hi']:+.1f}]"

    rows = ["| held-out genre | n | LM | style | gate | LM − style | verdict | gate − style | verdict |",
            "|---|---:|---:|---:|---:|---:|---|---:|---|"]
    rows += [f"| {a['genre']} | {a['n']} | {a['lm']:.3f} | {a['style']:.3f} | {a['gated']:.3f} | "
             f"{ci(a['lm_minus_style'])} | {a['lm_verdict']} | {ci(a['gated_minus_style'])} | {a['gated_verdict']} |"
             for a in arms]
    return "\n".join(rows)


def plot(arms: list[dict], path: Path) -> None:
    """Left: the three accuracies per held-out genre. Right: the two paired differences with their intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    x = np.arange(len(arms))
    fig, (acc, diff) = plt.subplots(1, 2, figsize=(11, 3.8))
    for j, (who, label) in enumerate((("lm", "LM (pass@1)"), ("style", "style model, same rows"),
                                      ("gated", "gate: style, blend where it abstains"))):
        acc.bar(x + (j - 1) * 0.27, [a[who] for a in arms], 0.27, label=label)
    acc.axhline(1 / 3, color="grey", lw=0.8, ls=":")
    acc.set_xticks(x, [a["genre"] for a in arms])
    acc.set_ylim(0, 1.15)
    acc.set_ylabel("3-way accuracy on the held-out genre")
    acc.legend(loc="upper center", ncol=3, fontsize=7)
    # the colours of the left panel's LM and gate bars
    for j, (key, label, colour) in enumerate((("lm_minus_style", "LM − style", "C0"),
                                              ("gated_minus_style", "gate − style", "C2"))):
        d = [a[key] for a in arms]
        mid = np.array([v["diff"] for v in d])
        err = np.array([[v["diff"] - v["lo"] for v in d], [v["hi"] - v["diff"] for v in d]])
        diff.errorbar(x + (j - 0.5) * 0.25, mid, yerr=err, fmt="o", capsize=4, label=label, color=colour)
    diff.axhline(0, color="black", lw=0.8)
    diff.axhline(2, color="grey", lw=0.8, ls=":")  # the rule's "improves" margin
    diff.set_xticks(x, [a["genre"] for a in arms])
    diff.set_ylabel("points against the style model (95 % interval)")
    diff.legend(fontsize=8)
    fig.suptitle("Trained without one genre, scored on it: the fine-tuned 0.5B LM against the style model")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("blends", nargs="+", type=Path, help="lm_style_blend.py --held-out JSON files")
    ap.add_argument("--plot", type=Path)
    a = ap.parse_args()
    try:
        arms = [read_arm(p) for p in a.blends]
    except ValueError as e:
        sys.exit(f"error: {e}")
    print(table(arms))
    if a.plot:
        plot(arms, a.plot)


if __name__ == "__main__":
    main()
