"""Print the ladder table (markdown) from unpacked ladder results (``results/ladder/``).

    python scripts/gpu/summarize.py results/ladder
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

RUNGS = [
    ("1. base (3-way prompt)", "base_eval_3way", None),
    ("1b. base (answer-only prompt)", "base_eval_answer_only", None),
    ("1c. base via `whowrote eval` (harness)", "harness_base_3way", None),
    ("2. answer-only SFT", "sft_answer_only/eval_k4", "sft_answer_only"),
    ("2b. answer-only SFT, 2 GPUs (DDP)", None, "sft_answer_only_2gpu"),
    ("3. GRPO from base", "grpo_base/eval_k4", "grpo_base"),
    ("4. STaR data + cold-start SFT", "coldstart/sft/eval_k4", "coldstart/sft"),
    ("5. cold start -> GRPO", "coldstart/grpo/eval_k4", "coldstart/grpo"),
]


def load(p: Path) -> dict | None:
    return json.loads(p.read_text()) if p.is_file() else None


def recall(s: dict) -> str:
    pp = s.get("per_provider") or {}
    return " / ".join(f"{(pp.get(lab) or {}).get('recall', (pp.get(lab) or {}).get('pass1', float('nan'))):.2f}"
                      for lab in ("CLAUDE", "CHATGPT", "GEMINI"))


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
        return f"| {name} | — | — | — | — | — | — | {final} | {best} |"
    k = s.get("sampling", {}).get("k") or s.get("k", 4)
    p1 = s.get("pass@1", s.get("accuracy"))
    pk = s.get(f"pass@{k}", float("nan"))
    rw = s.get("median_reason_words")
    if rw is None and isinstance(s.get("reason_words"), dict):
        rw = s["reason_words"].get("median")
    return (f"| {name} | {p1:.3f} | {pk:.3f} | {recall(s)} | {s.get('parse_fail_rate', float('nan')):.3f} | "
            f"{s.get('truncation_rate', float('nan')):.3f} | {rw} | {final} | {best} |")


def main(root: str) -> None:
    base = Path(root)
    print("| rung | pass@1 | pass@4 | recall C / P / G | parse-fail | truncation | median reason words | "
          "in-loop final | in-loop best |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, ev, run in RUNGS:
        s = load(base / ev / "summary.json") if ev else None
        print(row(name, s, base / run if run else None))
    for run in ("sft_answer_only", "sft_answer_only_2gpu", "grpo_base", "coldstart/sft", "coldstart/grpo"):
        for tr in sorted((base / run).glob("train_result.*.json")):
            m = load(tr) or {}
            print(f"- {run}: {tr.name}: steps {m.get('global_step')}, runtime {m.get('train_runtime')} s, "
                  f"samples/s {m.get('train_samples_per_second')}")
    st = load(base / "coldstart" / "star.stats.json")
    if st:
        print("- STaR:", json.dumps({k: st.get(k) for k in ("n_items", "final_rows", "cap", "by_gold", "kept_modes",
                                                            "round1", "round2", "fallback", "tokens_per_s")}))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "results/ladder")
