"""The Qwen2.5-Coder-0.5B ladder and the research recipes: one table row per run and session, one figure.

    python scripts/gpu/summarize.py --layout 05b results/qwen05b results/research \\
        results/session5/qwen05b results/session5/research [--plot docs/figures/ladder_05b.png]
    python scripts/gpu/summarize.py --layout 05b results/session9/research results/session10/research \\
        --plot-steps docs/figures/rlsd_reward_ablation.png   # per step: accuracy, truncation, CLAUDE share
    python scripts/gpu/summarize.py --layout 05b results/session7/qwen05b results/session12/callA/qwen05b \
        results/session12/callB/qwen05b --plot-steps docs/figures/headline_seeds.png --no-research-rlsd

Every run under the roots is found from its files (``runs_05b.py`` reads them: which folder is a
training run, which an eval, and which session a root is). A missing or unreadable file gives "—"
(an eval), "no final" (a run), never a crash. Only the research's numbers (``REFERENCE``) are
written here.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from pathlib import Path

from runs_05b import Run, collect, read_json, session_key, session_of

LABS = ("CLAUDE", "CHATGPT", "GEMINI")
FAMILY = {"5.": "coldstart", "R1": "opcd", "R2b": "rlsd_unscored", "R2": "rlsd", "R3": "rlsd_anchored", "R4": "cheatsheet",
          "R5": "pureacc", "3.": "grpo_base"}
ARM_COLOR = {"tells": "#4c72b0", "fallback": "#64b5cd", "star": "#1f3a68", "tellsall": "#2ca02c"}
COLOR = {"coldstart": "#4c72b0", "opcd": "#c44e52", "rlsd": "#dd8452", "rlsd_unscored": "#e8b04a", "rlsd_anchored": "#937860",
         "cheatsheet": "#55a868", "pureacc": "#8172b3", "grpo_base": "#444444"}
# The research's in-loop val numbers (Qwen3.5-9B, its own val), from /work/shared/docs/research-spec.md
# §3.6.4: "Cold-start, Phase 2" (val .670 at step 0 -> .895 at step 40), "E2 OPCD" (peak .2911 at 12),
# "E3 RLSD" (peak .4094 at 12), "Design B: cheatsheet GRPO" (.662 at step 28 with the cheatsheet; .348
# without it at step 28), "Pure-accuracy RL" (peak .650 at step 16).
REFERENCE = [
    ("coldstart", "cold start -> GRPO", [(0, 0.670), (40, 0.895)], "*"),
    ("opcd", "OPCD peak", [(12, 0.2911)], "*"),
    ("rlsd", "RLSD peak", [(12, 0.4094)], "*"),
    ("cheatsheet", "cheatsheet GRPO, with it (peak)", [(28, 0.662)], "*"),
    ("cheatsheet", "cheatsheet GRPO, without it", [(28, 0.348)], "X"),
    ("pureacc", "pure-accuracy peak", [(16, 0.650)], "*"),
]
# research-spec §3.6.4, "E3 RLSD": val reward and truncation share per step (24-40: .0000 and 100 %)
RLSD_VAL = [(0, .2222), (4, .2585), (8, .2874), (12, .4094), (16, .2983), (20, .0024), (24, 0.0), (40, 0.0)]
RLSD_TRUNC = [(0, .378), (4, .355), (8, .289), (12, .092), (16, .086), (20, .986), (24, 1.0), (40, 1.0)]
HEADER = ("| rung | session | steps | eval (texts x k) | pass@1 | pass@4 | recall C / P / G | truncation | "
          "faithfulness (coverage) vs another text, claims a trace | in-loop step 0 -> best -> final | collapse | peak class share | NaN skips | ended |")


def num(x: object, fmt: str = ".3f") -> str:
    return format(x, fmt) if isinstance(x, (int, float)) and math.isfinite(x) else "—"


def eval_cells(s: dict | None) -> list[str]:
    if s is None:
        return ["—"] * 6
    k = s.get("k")
    pp = s.get("per_provider") or {}
    rec = " / ".join(num((pp.get(lab) or {}).get("recall"), ".2f") for lab in LABS)
    faith = num(s.get("faithfulness"), ".2f")
    if s.get("faithfulness_coverage") is not None:
        faith += f" ({num(s['faithfulness_coverage'], '.2f')})"
    if s.get("faithfulness_other_text") is not None:  # the baseline it must beat (another text's)
        faith += f" vs {num(s['faithfulness_other_text'], '.2f')}"
    if s.get("claims_per_trace") is not None:  # saying less is one way to be "faithful"
        faith += f", {num(s['claims_per_trace'], '.1f')} claims"
    return [f"{s.get('n_examples', '?')} x {k}", num(s.get("pass@1", s.get("accuracy"))),
            num(s.get(f"pass@{k}")) if k == 4 else "—", rec, num(s.get("truncation_rate")), faith]


def steps_of(run: Run) -> int | None:
    if run.train_result and isinstance(run.train_result.get("global_step"), int):
        return run.train_result["global_step"]
    steps = [r["step"] for r in run.records if r.get("kind") == "train" and "step" in r]
    return max(steps) if steps else None


def in_loop(run: Run) -> str:
    ev = run.evals
    if not ev:
        return "—"
    first = ev[0]["accuracy"] if ev[0]["step"] == 0 else None
    best = max(ev, key=lambda r: (r["accuracy"], -r["step"]))
    fin = (run.final_eval or {}).get("final")
    if isinstance(fin, dict) and isinstance(fin.get("accuracy"), (int, float)):
        last = f"{fin['accuracy']:.3f}@{fin.get('step')}"
    else:
        last = f"no final (last {ev[-1]['accuracy']:.3f}@{ev[-1]['step']})"
    where = "inner val: " if run.inner else ""
    return f"{where}{num(first)} -> {best['accuracy']:.3f}@{best['step']} -> {last}"


def collapse_of(run: Run) -> str:
    seen: dict[str, int] = {}
    for r in run.records:
        if r.get("kind") == "collapse":
            for k in r.get("kinds") or []:
                seen.setdefault(str(k), r["step"])
    return ", ".join(f"{k}@{s}" for k, s in seen.items()) or "none"


def peak_share(run: Run) -> str:
    """The largest share one provider took of a training step's rollouts (the one-class drift, seen
    before the collapse check fires), and its step; "—" without the per-class reward columns."""
    best: tuple[float, int] | None = None
    for r in run.records:
        if r.get("kind") != "train":
            continue
        shares = [r[k] for k in (f"rewards/pred_{lab.lower()}/mean" for lab in LABS) if k in r]
        if shares and (best is None or max(shares) > best[0]):
            best = (max(shares), r["step"])
    return "—" if best is None else f"{best[0]:.2f}@{best[1]}"


def skips_of(run: Run) -> str:
    steps = [str(r["step"]) for r in run.records if r.get("kind") == "skip"]
    return f"{len(steps)} (@{', '.join(steps)})" if steps else "0"


def ended(run: Run) -> str:
    """final saved (train_result.<stage>.json is written after the final weights) / time limit / killed.

    A run resumed in a later call keeps the earlier call's abort record; an abort before the run's
    last step was such a pause and is named as one ("resumed after ..."), not as the run's end."""
    aborts = [r for r in run.records if r.get("kind") == "abort"]
    last = steps_of(run)
    paused = [a for a in aborts if last is not None and a["step"] < last]
    aborts = [a for a in aborts if a not in paused]
    resumed = "; resumed after " + ", ".join(f"{a.get('reason', 'abort')} @{a['step']}" for a in paused) \
        if paused else ""
    why = f"{aborts[-1].get('reason', 'abort')} @{aborts[-1]['step']}" if aborts else ""
    if run.train_result is not None:
        if not aborts:
            return f"final saved{resumed}"
        return f"time limit @{aborts[-1]['step']} (final saved{resumed})" if why.startswith("time limit") \
            else f"stopped: {why} (final saved{resumed})"
    return f"killed (no final){', after ' + why if why else ''}{resumed}"


def row(run: Run) -> str:
    if not run.trained:
        cells = ["—", *eval_cells(run.summary), "—", "—", "—", "—", "eval only" if run.summary else "eval: no summary"]
    else:
        cells = [num(steps_of(run), "d"), *eval_cells(run.summary), in_loop(run), collapse_of(run),
                 peak_share(run), skips_of(run), ended(run)]
    return "| " + " | ".join([run.name, run.session, *cells]) + " |"


def star_lines(roots: list[str]) -> list[str]:
    out = []
    for root in roots:
        path, session = session_of(root)
        for p in sorted(path.glob("cs_*/star.stats.json")):
            st = read_json(p) or {}
            out.append(f"- session {session}, {p.parent.name} data: {st.get('n_accepted', '—')} of "
                       f"{st.get('n_items', '—')} items accepted (by gold {json.dumps(st.get('by_gold'))}), "
                       f"{st.get('final_rows', '—')} rows kept (cap {st.get('cap', '—')} a class), "
                       f"modes {json.dumps(st.get('kept_modes'))}")
    return out


def seed_lines(runs: list[Run]) -> list[str]:
    """For RL runs that differ only in their seed: did their first training steps differ (until session
    24 the seed never reached the colocated vLLM sampler, and two seeds sampled the same first step),
    and how far apart did they end (the spread a comparison between recipes has to beat)?"""
    groups: dict[tuple[str, str], list[tuple[str, dict, Run]]] = {}
    for run in runs:
        first = next((r for r in run.records if r.get("kind") == "train" and "reward" in r), None)
        m = re.search(r"seed (\d+)", run.name)
        if first is not None and m:
            key = (run.session, run.name.replace(m.group(0), "seed *"))
            groups.setdefault(key, []).append((m.group(1), first, run))
    out = []
    for (session, name), members in groups.items():
        if len(members) < 2:
            continue
        seeds = ", ".join(seed for seed, _, _ in members)
        firsts = {(r["reward"], r.get("completions/mean_length")) for _, r, _ in members}
        reward, length = next(iter(firsts))
        line = f"- session {session}, {name}: seeds {seeds} " + (
            f"sampled the same first step (reward {reward:.3f}, mean length {num(length, '.1f')}): the seed did "
            "not reach the sampler" if len(firsts) == 1 else
            "differ from the first step (reward " + " / ".join(f"{r['reward']:.3f}" for _, r, _ in members) + ")")
        out.append(line + spread_text(members))
    return out


def spread_text(members: list[tuple[str, dict, Run]]) -> str:
    """"; final pass@1 a / b, spread N points" for seeds that all have a final eval; a seed that
    collapsed (a new collapse stopped it) makes the gap a failure, not seed noise, so no spread."""
    finals = [run.summary["pass@1"] for _, _, run in members
              if run.summary and isinstance(run.summary.get("pass@1"), int | float)]
    if len(finals) < len(members):
        return ""
    text = f"; final pass@1 {' / '.join(f'{v:.3f}' for v in finals)}"
    steps = [steps_of(run) for _, _, run in members]
    if len(set(steps)) > 1:
        text += f" after {' / '.join(num(n, 'd') for n in steps)} steps"
    collapsed = [seed for seed, _, run in members
                 if any(r.get("kind") == "collapse" and r.get("new", True) for r in run.records)]
    if collapsed:
        return text + f"; seed {', '.join(collapsed)} collapsed, so no seed spread"
    return text + f", spread {100 * (max(finals) - min(finals)):.1f} points"


def table(roots: list[str]) -> str:
    runs = collect(roots)
    lines = [HEADER, "|" + "---|" * HEADER.count(" | ") + "---|", *(row(r) for r in runs)]
    return "\n".join(lines + star_lines(roots) + seed_lines(runs))


def _rl(run: Run) -> bool:
    start = next((r for r in run.records if r.get("kind") == "start"), {})
    return run.trained and start.get("stage") in ("grpo", "research") and bool(run.evals)


def plot(roots: list[str], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = collect(roots)
    sessions = sorted({r.session for r in runs}, key=session_key)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(16, 7.5), gridspec_kw={"width_ratios": [1, 1.15]})
    names = list(dict.fromkeys(r.name for r in runs if r.summary and r.summary.get("k") == 4))
    height = 0.8 / max(len(sessions), 1)
    for j, ses in enumerate(sessions):
        vals = {r.name: r.summary.get("pass@1", r.summary.get("accuracy")) for r in runs
                if r.session == ses and r.summary and r.summary.get("k") == 4}
        ys = [len(names) - 1 - i + 0.4 - height * (j + 0.5) for i, n in enumerate(names) if n in vals]
        xs = [vals[n] for n in names if n in vals]
        ax1.barh(ys, xs, height=height, label=f"session {ses}", color=f"C{j}")
        for y, v in zip(ys, xs, strict=True):
            ax1.text(v + 0.01, y, f"{v:.3f}", va="center", fontsize=7)
    ax1.set_yticks(range(len(names)), names[::-1], fontsize=8)
    ax1.axvline(1 / 3, color="grey", ls=":", lw=1, label="chance (1/3)")
    ax1.set_xlim(0, 1.05), ax1.set_xlabel("val pass@1 (k = 4, held-out-topic texts)"), ax1.legend(fontsize=8)
    ax1.set_title("Qwen2.5-Coder-0.5B ladder: k = 4 eval of the final weights", fontsize=10)
    for i, run in enumerate(r for r in runs if _rl(r)):
        ev = run.evals
        fam = FAMILY.get(run.name.split(".")[0], FAMILY.get(run.name[:2], ""))  # "R2b" before "R2"
        stop = ended(run)
        color = ARM_COLOR.get(run.order[2], COLOR[fam]) if fam == "coldstart" else COLOR.get(fam, f"C{i % 10}")
        ax2.plot([r["step"] for r in ev], [r["accuracy"] for r in ev], color=color,
                 ls="-" if run.session == sessions[-1] else "--", marker="osD^v"[i % 5], ms=4, lw=1.3,
                 label=f"s{run.session} {run.name.split('. ', 1)[-1]}"
                       f"{' (no final)' if 'no final' in stop else ''}{' [inner val]' if run.inner else ''}")
    for fam, label, pts, mark in REFERENCE:
        ax2.plot([p[0] for p in pts], [p[1] for p in pts], ls=":", lw=1, marker=mark, ms=11, color=COLOR[fam],
                 mec="black", mew=0.5, label=f"research (Qwen3.5-9B): {label}")
    ax2.axhline(1 / 3, color="grey", ls=":", lw=1)
    ax2.set_xlabel("training step"), ax2.set_ylabel("in-loop val accuracy (k = 1)")
    ax2.set_ylim(0, 1), ax2.set_title("RL runs, in-loop val (solid: latest session; *: research-spec §3.6.4)",
                                      fontsize=10)
    ax2.legend(fontsize=6.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    _save(fig, out)


def _save(fig, out: Path) -> None:
    """Write the figure through a temporary name, then rename (never half a PNG)."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.stem}.tmp{out.suffix}")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, out)


def plot_steps(roots: list[str], out: Path, research_rlsd: bool = True) -> None:
    """Per training step, for every RL run: in-loop val accuracy, the share of train completions cut
    off at the length limit, and CLAUDE's share of the train answers (the truncation and the one-class
    collapse the research reports, side by side; ``research_rlsd``: with the research's RLSD curves)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = (("in-loop val accuracy (k = 1)", None), ("train completions cut off", "completions/clipped_ratio"),
              ("train answers: CLAUDE share", "rewards/pred_claude/mean"))
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    for i, run in enumerate(r for r in collect(roots) if _rl(r)):
        label = f"s{run.session} {run.name.split('. ', 1)[-1]}"
        style = {"marker": "osD^v"[i % 5], "ms": 3, "lw": 1.2, "color": f"C{i % 10}", "label": label}
        axes[0].plot([r["step"] for r in run.evals], [r["accuracy"] for r in run.evals], **style)
        for ax, (_, key) in zip(axes[1:], panels[1:], strict=True):
            values = run.train_values(key)
            ax.plot(list(values), list(values.values()), **style)
    if research_rlsd:
        ref = {"color": "black", "ls": ":", "lw": 1.2, "marker": "*", "ms": 7}
        axes[0].plot(*zip(*RLSD_VAL, strict=True), **ref, label="research RLSD (Qwen3.5-9B), val reward")
        axes[1].plot(*zip(*RLSD_TRUNC, strict=True), **ref, label="research RLSD (Qwen3.5-9B), val truncation")
        axes[1].legend(fontsize=7)
    for ax, (title, _) in zip(axes, panels, strict=True):
        ax.set_title(title, fontsize=10), ax.set_xlabel("training step"), ax.set_ylim(0, 1)
    axes[0].axhline(1 / 3, color="grey", ls=":", lw=1)
    axes[2].axhline(1 / 3, color="grey", ls=":", lw=1)
    axes[0].legend(fontsize=7)
    _save(fig, out)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="summarize.py --layout 05b", description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="+", metavar="ROOT[=SESSION]", help="results folders (=SESSION names the session)")
    ap.add_argument("--plot", type=Path, metavar="OUT.png", help="pass@1 per rung and session")
    ap.add_argument("--plot-steps", type=Path, metavar="OUT.png", help="per step: accuracy, truncation, CLAUDE share")
    ap.add_argument("--no-research-rlsd", action="store_true",
                    help="the step figure without the research's RLSD curves")
    return ap


def main(argv: list[str]) -> None:
    args = parser().parse_args(argv)
    print(table(args.roots))
    if args.plot is not None:
        plot(args.roots, args.plot)
    if args.plot_steps is not None:
        plot_steps(args.roots, args.plot_steps, not args.no_research_rlsd)


if __name__ == "__main__":
    main(sys.argv[1:])
