"""Helpers shared by the research tests: synthetic rows and fast run overrides (a uniquely named
module, so it never collides with another folder's conftest)."""

from __future__ import annotations

from pathlib import Path

STYLE = {
    "CLAUDE": "Honestly, the real question is what we owe each other.",
    "CHATGPT": "There are several factors to consider, such as cost and risk.",
    "GEMINI": "We must build a paradigm that is fundamentally profound.",
}


def synthetic_rows(n_per_class: int, prefix: str) -> list[dict]:
    return [{"id": f"{prefix}{p}{i}", "text": f"{s} ({i})", "provider": p, "genre": "synthetic", "topic": f"t{i}"}
            for i in range(n_per_class) for p, s in STYLE.items()]


def research_overrides(model: Path, splits: dict[str, Path], out: Path, *, val: bool = False) -> list[str]:
    """Tiny and fast: one GRPO step of 3 prompts x 2 rollouts of 6 tokens (evals only with ``val``)."""
    return [f'model.name_or_path="{model}"', 'model.dtype="float32"', f'data.train="{splits["train"]}"',
            f'data.val="{splits["val"] if val else ""}"', f'run.output_dir="{out}"', 'run.resume=""',
            'run.bf16="false"', "eval.max_new_tokens=6", "eval.batch_size=8", "grpo.num_generations=2",
            "grpo.prompts_per_step=3", "grpo.max_completion_length=6", "grpo.max_steps=1", "grpo.lr=1e-2"]
