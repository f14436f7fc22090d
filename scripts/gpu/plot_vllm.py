"""Draw docs/figures/vllm.png from results/vllm (issue 14 §1): rollout throughput per engine and
GRPO seconds per step.  python scripts/gpu/plot_vllm.py results/vllm docs/figures/vllm.png"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(src: str = "results/vllm", out: str = "docs/figures/vllm.png") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    root = Path(src)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    names = ["vllm", "hf_mask", "hf_nomask"]
    for i, shape in enumerate(("smollm2-135m", "qwen2.5-0.5b")):
        b = json.loads((root / f"bench_{shape}.json").read_text())
        rates = [b["median_tok_per_s"][n] for n in names]
        ax1.bar([i * 4 + j for j in range(3)], rates, color=["C0", "C1", "C2"])
        for j, r in enumerate(rates):
            ax1.text(i * 4 + j, r, f"{r:,}", ha="center", va="bottom", fontsize=8)
    ax1.axhline(20000, color="k", ls="--", lw=0.8, label="target 20,000")
    ax1.set_xticks([1, 5], ["SmolLM2-135M", "Qwen2.5-0.5B"])
    ax1.set_ylabel("new tokens/s (median)")
    ax1.set_title("96 x 2,300-token prompts -> 256 tokens, H200", fontsize=9)
    ax1.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=f"C{k}") for k in range(3)] + ax1.get_lines(),
               labels=["vLLM 0.25", "HF generate + mask", "HF generate, no mask", "target"], fontsize=7)
    for run, color, label in (("grpo_vllm", "C0", "TRL + vLLM colocate"), ("grpo_hf", "C1", "TRL + HF generate")):
        rows = [json.loads(x) for x in (root / run / "metrics.jsonl").read_text().splitlines()]
        st = [(r["step"], r["step_time"]) for r in rows if r.get("kind") == "train" and "step_time" in r]
        ax2.plot(*zip(*st, strict=True), "o-", color=color, label=label)
    ax2.axhline(3, color="k", ls="--", lw=0.8, label="target 3 s")
    ax2.set_xlabel("GRPO step (96 rollouts x <= 256 tokens, SmolLM2-135M)")
    ax2.set_ylabel("seconds per step")
    ax2.set_ylim(0, None)
    ax2.legend(fontsize=7)
    fig.tight_layout()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main(*sys.argv[1:])
