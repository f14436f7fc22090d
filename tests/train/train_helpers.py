"""Config builder shared by the training tests (tiny model, synthetic splits, fast settings)."""

from __future__ import annotations

from pathlib import Path

from whowrote.train.config import TrainConfig, load_config


def tiny_cfg(model: Path, splits: dict[str, Path], out: Path, *extra: str) -> TrainConfig:
    base = [
        f'model.name_or_path="{model}"', 'model.dtype="float32"',
        f'data.train="{splits["train"]}"', f'data.val="{splits["val"]}"',
        f'run.output_dir="{out}"', 'run.resume=""', 'run.bf16="false"',
        "eval.max_new_tokens=8", "eval.batch_size=8",
        "sft.batch_size=4", "sft.lr=3e-3", 'sft.scheduler="constant"', "sft.weight_decay=0.0",
        "grpo.num_generations=4", "grpo.prompts_per_step=3", "grpo.max_completion_length=8", "grpo.max_steps=2",
        "star.k=2", "star.max_new_tokens=8",
    ]
    return load_config(None, [*base, *extra])
