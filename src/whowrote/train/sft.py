"""Supervised recipes on TRL's SFTTrainer (spec §1.9, §3.5).

- **answer-only SFT** (``sft.target = "answer_only"``): answer-only prompt -> ``<answer>GOLD</answer>``
  on a provider-balanced labelled subset. The research control D4 reached 1.000/1.000.
- **rationale SFT** (``sft.target = "rationale"``): 3-way prompt -> ``<reason_why>r</reason_why>``
  + answer, where r comes from the rows' ``rationale`` field: STaR self-distilled rationales (D3)
  or gold-conditioned teacher rationales (D1), both produced by :mod:`whowrote.train.star`.

The data are in TRL's conversational prompt-completion format, so SFTTrainer's
``completion_only_loss`` puts the loss on the assistant turn only (prompt tokens are masked).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from whowrote.train.config import TrainConfig
from whowrote.train.data import Row, sft_records, to_dataset
from whowrote.train.runner import Prepared, common_args, run_recipe, trl_table


def sft_variant(cfg: TrainConfig) -> str:
    if cfg.sft.variant:
        return cfg.sft.variant
    return "answer_only" if cfg.sft.target == "answer_only" else "3way"


def build_sft_config(cfg: TrainConfig, *, max_steps: int | None = None) -> Any:
    from trl import SFTConfig

    s = cfg.sft
    args = dict(
        **common_args(cfg),
        learning_rate=s.lr,
        num_train_epochs=s.epochs,
        max_steps=s.max_steps if max_steps is None else max_steps,
        per_device_train_batch_size=s.batch_size,
        gradient_accumulation_steps=s.grad_accum,
        lr_scheduler_type=s.scheduler,
        warmup_steps=s.warmup_steps,
        weight_decay=s.weight_decay,
        max_grad_norm=s.max_grad_norm,
        # The text is already cut to data.max_text_tokens; this only guards against a long
        # system prompt + rationale pushing past it, so truncation never eats the answer.
        # max_text_tokens <= 0 means "texts not cut": then nothing may be cut here either.
        max_length=cfg.data.max_text_tokens + 1024 if cfg.data.max_text_tokens > 0 else None,
        completion_only_loss=True,
        packing=False,  # the research SFT stacked padded samples, no cross-sample packing
        dataset_num_proc=None,
    )
    return SFTConfig(**{**args, **trl_table(SFTConfig, s.trl, "sft.trl")})


def sft_trainer(cfg: TrainConfig, prep: Prepared, callbacks: list[Any], *, max_steps: int | None = None) -> Any:
    """TRL's SFTTrainer on the prepared rows (also what scripts/gpu/step_rows.py rebuilds a run's batches with)."""
    from trl import SFTTrainer

    records = sft_records(prep.train_rows, target=cfg.sft.target, variant=sft_variant(cfg),
                          text_field=cfg.data.text_field, label_field=cfg.data.label_field,
                          rationale_field=cfg.sft.rationale_field,
                          chat_template_kwargs=cfg.model.chat_template_kwargs)
    return SFTTrainer(model=prep.model, args=build_sft_config(cfg, max_steps=max_steps),
                      train_dataset=to_dataset(records), processing_class=prep.tokenizer, callbacks=callbacks)


def run_sft(cfg: TrainConfig, *, stage: str = "sft", train_rows: list[Row] | None = None,
            max_steps: int | None = None, model: Any = None, tokenizer: Any = None) -> Path:
    """Train, evaluate (step 0, periodic, final) and save; returns the final model directory."""
    from trl import SFTConfig

    trl_table(SFTConfig, cfg.sft.trl, "sft.trl")  # a typo fails before the model loads

    def build(prep: Prepared, cbs: list[Any]) -> Any:
        return sft_trainer(cfg, prep, cbs, max_steps=max_steps)

    eval_cfg = dataclasses.replace(cfg.eval, variant=cfg.eval.variant or sft_variant(cfg))
    return run_recipe(cfg, stage, build, eval_cfg=eval_cfg, train_rows=train_rows, model=model, tokenizer=tokenizer)
