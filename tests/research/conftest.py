"""Fixtures for the research-recipe tests: one tiny random chat model, built offline per session."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    from whowrote.train.tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


STYLE = {
    "CLAUDE": "Honestly, the real question is what we owe each other.",
    "CHATGPT": "There are several factors to consider, such as cost and risk.",
    "GEMINI": "We must build a paradigm that is fundamentally profound.",
}


def synthetic_rows(n_per_class: int, prefix: str) -> list[dict]:
    return [{"id": f"{prefix}{p}{i}", "text": f"{s} ({i})", "provider": p, "genre": "synthetic", "topic": f"t{i}"}
            for i in range(n_per_class) for p, s in STYLE.items()]


@pytest.fixture(scope="session")
def splits(tmp_path_factory) -> dict[str, Path]:
    from whowrote.train.data import write_rows

    d = tmp_path_factory.mktemp("splits")
    return {"train": write_rows(d / "train.jsonl", synthetic_rows(2, "tr")),
            "val": write_rows(d / "val.jsonl", synthetic_rows(1, "va"))}


def research_overrides(model: Path, splits: dict[str, Path], out: Path, *, val: bool = False) -> list[str]:
    """Tiny and fast: one GRPO step of 3 prompts x 2 rollouts of 6 tokens (evals only with ``val``)."""
    return [f'model.name_or_path="{model}"', 'model.dtype="float32"', f'data.train="{splits["train"]}"',
            f'data.val="{splits["val"] if val else ""}"', f'run.output_dir="{out}"', 'run.resume=""',
            'run.bf16="false"', "eval.max_new_tokens=6", "eval.batch_size=8", "grpo.num_generations=2",
            "grpo.prompts_per_step=3", "grpo.max_completion_length=6", "grpo.max_steps=1", "grpo.lr=1e-2"]
