"""Print the ladder table (markdown) from unpacked ladder results (``results/ladder/``).

    python scripts/gpu/summarize.py results/ladder [--plot docs/figures/ladder.png]
    python scripts/gpu/summarize.py --layout 05b ROOT ... [--plot docs/figures/ladder_05b.png]

(``--layout 05b``: the Qwen2.5-Coder-0.5B ladder and the research recipes, ``summarize_05b.py``;
``runs_05b.py`` reads the run folders.)

``--plot`` draws the ladder's pass@1 per rung beside the in-loop val accuracy of every
cold start -> GRPO run (one line per learning rate).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

RUNGS = [
    ("1. base (3-way prompt)", "base_eval_3way", None),
    ("1b. base (answer-only prompt)", "base_eval_answer_only", None),
    ("1c. base via `whowrote eval` (harness)", "harness_base_3way", None),
    ("2. answer-only SFT", "sft_answer_only/eval_k4", "sft_answer_only"),
    ("2b. answer-only SFT, 2 GPUs (DDP)", "sft_answer_only_2gpu/eval_k4", "sft_answer_only_2gpu"),
    ("3. GRPO from base", "grpo_base/eval_k4", "grpo_base"),
    ("4. STaR data + cold-start SFT", "coldstart/sft/eval_k4", "coldstart/sft"),
    ("5. cold start -> GRPO, lr 1e-5 (config)", "coldstart/grpo/eval_k4", "coldstart/grpo"),
    ("5b. cold start -> GRPO, lr 3e-5", "coldstart/grpo_lr3e-5/eval_k4", "coldstart/grpo_lr3e-5"),
    ("5c. cold start -> GRPO, lr 3e-6", "coldstart/grpo_lr3e-6/eval_k4", "coldstart/grpo_lr3e-6"),
    ("5d. cold start -> GRPO, lr 1e-6 (research lr)", "coldstart/grpo_lr1e-6/eval_k4", "coldstart/grpo_lr1e-6"),
    ("5e. 5d + a second 4.6-min leg", None, "coldstart/grpo_lr1e-6_leg2"),
]
TIMED = ("sft_answer_only", "sft_answer_only_1gpu", "sft_answer_only_2gpu", "grpo_base", "coldstart/sft",
         "coldstart/grpo", "coldstart/grpo_lr3e-5", "coldstart/grpo_lr3e-6", "coldstart/grpo_lr1e-6",
         "coldstart/grpo_lr1e-6_leg2")


def load(p: Path) -> dict | None:
    return json.loads(p.read_text()) if p.is_file() else None


def recall(s: dict) -> str:
    pp = s.get("per_provider") or {}
    return " / ".join(f"{(pp.get(lab) or {}).get('recall', (pp.get(lab) or {}).get('pass1', float('nan'))):.2f}"
                      for lab in ("CLAUDE", "CHATGPT", "GEMINI"))


def faith(s: dict) -> str:
    """Rationale faithfulness (share of checkable claims true) and the share of traces with a claim."""
    if s.get("faithfulness") is None:
        return "—" if s.get("faithfulness_coverage") is None else f"— ({s['faithfulness_coverage']:.2f})"
    return f"{s['faithfulness']:.2f} ({s.get('faithfulness_coverage', float('nan')):.2f})"


def row(name: str, s: dict | None, run: Path | None) -> str:
    best = final = ""
    if run is not None:
        fe = load(run / "final_eval.json")
        if fe:
            final = f"{fe['final']['accuracy']:.3f}@{fe['final']['step']}"
            if fe.get("best"):
                best = f"{fe['best']['accuracy']:.3f}@{fe['best']['step']}"
            if fe.get("collapse"):
                final += f" ({'+'.join(fe['collapse']['kinds'])} collapse)"
    if s is None:
        return f"| {name} | — | — | — | — | — | — | — | {final} | {best} |"
    k = s.get("sampling", {}).get("k") or s.get("k", 4)
    p1 = s.get("pass@1", s.get("accuracy"))
    pk = s.get(f"pass@{k}", float("nan"))
    rw = s.get("median_reason_words")
    if rw is None and isinstance(s.get("reason_words"), dict):
        rw = s["reason_words"].get("median")
    return (f"| {name} | {p1:.3f} | {pk:.3f} | {faith(s)} | {recall(s)} | {s.get('parse_fail_rate', float('nan')):.3f} | "
            f"{s.get('truncation_rate', float('nan')):.3f} | {rw} | {final} | {best} |")


def plot(base: Path, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [1.1, 1]})
    names, p1 = [], []
    for name, ev, _ in RUNGS:
        s = load(base / ev / "summary.json") if ev else None
        if s is not None:
            names.append(name.replace("cold start -> GRPO", "cs->GRPO").replace(" (config)", ""))
            p1.append(s.get("pass@1", s.get("accuracy", 0.0)))
    ax1.barh(names[::-1], p1[::-1], color="#4c72b0")
    ax1.axvline(1 / 3, color="grey", ls=":", lw=1, label="chance (1/3)")
    for y, v in enumerate(p1[::-1]):
        ax1.text(v + 0.01, y, f"{v:.3f}", va="center", fontsize=8)
    ax1.set_xlim(0, 1.12), ax1.set_xlabel("val pass@1 (k=4, 240 held-out-topic texts)"), ax1.legend(fontsize=8)
    ax1.set_title("SmolLM2-135M ladder", fontsize=10)
    for run in sorted((base / "coldstart").glob("grpo*/metrics.jsonl")):
        recs = [json.loads(line) for line in run.read_text().splitlines() if line.strip()]
        ev = [r for r in recs if r.get("kind") == "eval"]
        if run.parent.name.endswith("_leg2"):  # continues grpo_lr1e-6: drawn after its last step
            prev = [json.loads(x) for x in (run.parent.parent / "grpo_lr1e-6" / "metrics.jsonl").open()]
            off = max(r["step"] for r in prev if r.get("kind") == "eval")
        else:
            off = 0
        stop = [r for r in recs if r.get("kind") in ("collapse", "abort")]
        label = run.parent.name.replace("grpo_lr", "lr ").replace("grpo", "lr 1e-5") \
            .replace("_leg2", ", leg 2 (another val subset)") + \
            (f" ({stop[-1]['kind']})" if stop else "")
        ax2.plot([r["step"] + off for r in ev], [r["accuracy"] for r in ev], marker="o", ms=3, label=label)
    ax2.axhline(1 / 3, color="grey", ls=":", lw=1)
    ax2.set_xlabel("GRPO step"), ax2.set_ylabel("in-loop val accuracy (k=1, 120 texts)")
    ax2.set_title("cold start -> GRPO: in-loop val", fontsize=10), ax2.legend(fontsize=7)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)


def main(root: str) -> None:
    base = Path(root)
    print("| rung | pass@1 | pass@4 | faithfulness (traces with a claim) | recall C / P / G | parse-fail | "
          "truncation | median reason words | in-loop final | in-loop best |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, ev, run in RUNGS:
        s = load(base / ev / "summary.json") if ev else None
        print(row(name, s, base / run if run else None))
    for run in TIMED:
        for tr in sorted((base / run).glob("train_result.*.json")):
            m = load(tr) or {}
            print(f"- {run}: {tr.name}: steps {m.get('global_step')}, runtime {m.get('train_runtime')} s, "
                  f"samples/s {m.get('train_samples_per_second')}")
    st = load(base / "coldstart" / "star.stats.json")
    if st:
        print("- STaR:", json.dumps({k: st.get(k) for k in ("n_items", "final_rows", "cap", "by_gold", "kept_modes",
                                                            "round1", "round2", "fallback", "tokens_per_s",
                                                            "mode", "too_few_tells", "rows_per_provider",
                                                            "mean_words") if k in st}))


if __name__ == "__main__":
    if sys.argv[1:3] == ["--layout", "05b"]:  # the 0.5B layout has its own arguments
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import summarize_05b

        summarize_05b.main(sys.argv[3:])
        sys.exit(0)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", default="results/ladder", help="unpacked ladder results")
    ap.add_argument("--plot", type=Path, metavar="OUT.png", help="pass@1 per rung and the cold start -> GRPO curves")
    ap.add_argument("--layout", choices=["05b"], help="the Qwen2.5-Coder-0.5B ladder (put it first: --layout 05b ROOT ...)")
    args = ap.parse_args()
    if args.layout:
        ap.error("--layout 05b comes first: summarize.py --layout 05b ROOT ...")
    if args.plot is not None:
        plot(Path(args.root), args.plot)
    main(args.root)
