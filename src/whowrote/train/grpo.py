"""The research "control" GRPO recipe (spec §3.2) on TRL's GRPOTrainer.

What maps to what (research -> TRL GRPOConfig), also in docs/train.md:

- batch_size / group_size (96/8, 144/12)  -> ``num_generations = G`` and
  ``prompts_per_step * G`` rollouts per optimizer step, split into micro-batches by gradient
  accumulation; ``steps_per_generation`` = accumulation steps, so each step samples once
  (on-policy, like the research loop at max off-policy 0-1).
- Dr.GRPO advantage A = r - mean(r)       -> ``scale_rewards = "none"``.
- per-token loss summed, divided by a constant -> ``loss_type = "dr_grpo"``.
- zero-advantage groups give no gradient   -> automatic with A = r - mean(r) and ``beta = 0``
  (an all-equal group has A = 0 on every token); the *guardrail* (abort after 10 consecutive
  all-zero steps) is :class:`~whowrote.train.callbacks.ZeroTrainableGuard` on TRL's logged
  ``frac_reward_zero_std``.
- no reference KL, no entropy term         -> ``beta = 0``, ``entropy_coef = 0`` (defaults).
- DPPO trust-region mask (|dp| > 0.2)       -> nearest TRL analogue: PPO ratio clip ``epsilon = 0.2``
  (on-policy with one iteration the clip is inactive, as was the research mask in practice).
- trainer/inference mismatch KL (1e-3)     -> not needed: TRL scores with the trainer's own model.
- surprisal entropy bonus (0.02)           -> ``entropy_coef`` (TRL's mean-entropy bonus; not the
  same functional form, documented as an approximation).
- truncation penalty (-0.5 on truncated rollouts' advantage, no re-centring) -> reward shaping:
  ``truncation_penalty`` is subtracted from the *reward*, then centred with the group. This also
  pushes truncated wrong rollouts below untruncated wrong ones, but does re-centre; a
  ``mask_truncated_completions`` option (DAPO) is there as the alternative.
- provider-balanced batches with the data order kept -> rows interleaved C/P/G and
  ``shuffle_dataset = False`` (prompts_per_step a multiple of the number of labels).
- multiplicative reasoning gate            -> ``require_reason`` in the task's reward.
- unfinished rollouts (cut at the cap, looping, unclosed tags) earn no accuracy reward
  (``score_unfinished = False``); truncation is read off TRL's ``completion_ids`` with the
  model's stop ids, the test TRL itself uses for ``mask_truncated_completions``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from whowrote.llm.backends import stop_ids
from whowrote.task.trl_rewards import make_reward_funcs, reward_weights
from whowrote.train.callbacks import ZeroTrainableGuard
from whowrote.train.config import TrainConfig, check_balanced_steps
from whowrote.train.data import Row, grpo_records, to_dataset
from whowrote.train.runner import Prepared, common_args, run_recipe, trl_table
from whowrote.types import WhowroteError


def grpo_batch_plan(cfg: TrainConfig, world_size: int = 1) -> dict[str, int]:
    """Per-device micro-batch and accumulation so one optimizer step = G * prompts_per_step rollouts."""
    g = cfg.grpo
    total = g.num_generations * g.prompts_per_step
    check_balanced_steps(cfg)
    micro = g.micro_batch or total // world_size
    if total % (micro * world_size):
        raise WhowroteError(f"{total} rollouts per step do not split into micro-batches of {micro} x {world_size}")
    if micro % g.num_generations and (micro * world_size) % g.num_generations:
        raise WhowroteError("micro_batch x world size must be a multiple of num_generations")
    accum = total // (micro * world_size)
    return {"per_device_train_batch_size": micro, "gradient_accumulation_steps": accum,
            "steps_per_generation": accum}


def reward_funcs(cfg: TrainConfig, stop: set[int] | None = None) -> list[Any]:
    """The run's reward functions (built once): gated, finished-only correctness (+ faithful claims) + diagnostics."""
    g = cfg.grpo
    return make_reward_funcs(labels=cfg.data.labels, require_reason=g.require_reason,
                             truncation_penalty=g.truncation_penalty, score_unfinished=g.score_unfinished,
                             majority_penalty=g.majority_penalty, faithfulness_weight=g.faithfulness_weight,
                             faithfulness_grounded=g.faithfulness_grounded,
                             stop_ids=stop)


def build_grpo_config(cfg: TrainConfig, funcs: Sequence[Any], *, world_size: int = 1) -> Any:
    from trl import GRPOConfig

    g = cfg.grpo
    args = dict(
        **common_args(cfg),
        **grpo_batch_plan(cfg, world_size),
        learning_rate=g.lr,
        max_steps=g.max_steps,
        warmup_steps=g.warmup_steps,
        weight_decay=g.weight_decay,
        max_grad_norm=g.max_grad_norm,
        lr_scheduler_type="constant_with_warmup",
        num_generations=g.num_generations,
        max_completion_length=g.max_completion_length,
        temperature=g.temperature,
        top_p=g.top_p,
        loss_type=g.loss_type,
        scale_rewards=g.scale_rewards,
        beta=g.beta,
        epsilon=g.epsilon,
        num_iterations=1,
        entropy_coef=g.entropy_coef,
        mask_truncated_completions=g.mask_truncated_completions,
        shuffle_dataset=not g.balanced_batches,
        reward_weights=reward_weights(funcs),
        disable_dropout=True,
        log_completions=False,
        chat_template_kwargs=dict(cfg.model.chat_template_kwargs),
        use_vllm=g.use_vllm,
        vllm_mode=g.vllm_mode,
        **({"vllm_server_base_url": g.vllm_server_base_url} if g.vllm_server_base_url else {}),
    )
    trl = trl_table(GRPOConfig, g.trl, "grpo.trl")
    gen = dict(trl.get("generation_kwargs") or {})
    if g.use_vllm and g.vllm_mode == "colocate" and "stop" not in gen:
        # TRL's colocated engine reads token ids and log-probs only, never vLLM's text, so vLLM need not
        # detokenise every sampled token: 0.45-0.66 s less per step at 96 x 256 tokens (session 16).
        # Stop strings need the text, so a table that sets them keeps detokenising.
        trl["generation_kwargs"] = {"detokenize": False, **gen}
    return GRPOConfig(**{**args, **trl})


def seed_colocated_sampler(trainer: Any) -> Any:
    """Reseed torch's RNG with ``args.seed`` once TRL has built its colocated vLLM engine; returns the trainer.

    TRL seeds torch with ``args.seed`` (per process) and then builds the in-process engine with
    ``seed = process_index // tensor_parallel_size``; vLLM reseeds torch's global RNG with that, and its
    sampler draws its noise from that RNG. So every colocated run
    sampled as if its seed were 0: in sessions 23 and 24 two "seeds" had the same first step to the last
    digit (reward 0.836 and 0.696, mean length 203.2 and 201.7 tokens), and they differed later only by
    GPU nondeterminism. Reseeding per process (as TRL seeds its own sampling) lets the seed reach the rollouts.
    """
    args = trainer.args
    if getattr(args, "use_vllm", False) and getattr(args, "vllm_mode", "") == "colocate":
        from transformers import set_seed

        set_seed(args.seed + trainer.accelerator.process_index)
    return trainer


def run_grpo(cfg: TrainConfig, *, stage: str = "grpo", train_rows: list[Row] | None = None,
             model: Any = None, tokenizer: Any = None) -> Path:
    """GRPO with periodic eval, best-val weights, collapse early stop; returns the final model dir."""
    import os

    from trl import GRPOConfig, GRPOTrainer

    g = cfg.grpo
    trl_table(GRPOConfig, g.trl, "grpo.trl")  # a typo fails before the model loads
    world = int(os.environ.get("WORLD_SIZE", "1"))

    def build(prep: Prepared, cbs: list[Any]) -> Any:
        funcs = reward_funcs(cfg, stop_ids(prep.tokenizer, prep.model))  # built once per run
        records = grpo_records(prep.train_rows, variant=g.variant, text_field=cfg.data.text_field,
                               label_field=cfg.data.label_field)
        return seed_colocated_sampler(GRPOTrainer(
            model=prep.model,
            reward_funcs=funcs,
            args=build_grpo_config(cfg, funcs, world_size=world),
            train_dataset=to_dataset(records),
            processing_class=prep.tokenizer,
            callbacks=[*cbs, ZeroTrainableGuard(g.zero_trainable_patience, prep.out)],
        ))

    eval_cfg = dataclasses.replace(cfg.eval, variant=cfg.eval.variant or g.variant,
                                   require_reason=cfg.eval.require_reason or g.require_reason)
    return run_recipe(cfg, stage, build, eval_cfg=eval_cfg, train_rows=train_rows, model=model, tokenizer=tokenizer)
