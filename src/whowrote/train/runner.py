"""What every recipe does around its TRL trainer, in one place: :func:`run_recipe` reads the data,
loads the policy, records the config, adds the callbacks, trains (resuming when asked) and saves.
A recipe only says how to build its trainer."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whowrote.data.outdir import check_own_folder, claim_folder
from whowrote.data.readers import iter_json_rows
from whowrote.train.callbacks import (
    MetricsFileCallback,
    NonFiniteGuard,
    PeriodicEvalCallback,
    TimeLimitCallback,
)
from whowrote.train.config import InLoopEval, TrainConfig, dump_toml
from whowrote.train.data import Row, balanced_subset, read_rows, truncate_texts, usable
from whowrote.train.modeling import load_policy
from whowrote.train.phases import time_phases
from whowrote.train.profiling import ProfileCallback
from whowrote.types import WhowroteError


@dataclass
class Prepared:
    model: Any
    tokenizer: Any
    train_rows: list[Row]
    val_rows: list[Row]
    out: Path


def prepare(cfg: TrainConfig, stage: str, *, train_rows: list[Row] | None = None, model: Any = None,
            tokenizer: Any = None, n_train: int | None = None) -> Prepared:
    """Load the policy, read/balance/truncate the splits, create the output dir and record the config."""
    out = claim_run_dir(Path(cfg.run.output_dir))
    (out / f"config.{stage}.toml").write_text(dump_toml(cfg))
    if model is None and not cfg.model.name_or_path:
        raise WhowroteError("model.name_or_path is empty: say which model to train")
    # The data first: a bad split fails in a second instead of after the model load.
    d = cfg.data
    if train_rows is None:
        if not d.train:
            raise WhowroteError("data.train is empty: give a train split (JSONL)")
        train_rows = usable(read_rows(d.train), d.labels, d.label_field, d.text_field)
        train_rows = balanced_subset(train_rows, d.n_train if n_train is None else n_train, d.labels,
                                     seed=d.seed, label_field=d.label_field, balance=d.balance)
    if not train_rows:
        raise WhowroteError(f"no usable training rows for labels {d.labels}")
    val_rows: list[Row] = []
    if d.val:
        val_rows = usable(read_rows(d.val), d.labels, d.label_field, d.text_field)
        if cfg.eval.n_val > 0:
            val_rows = balanced_subset(val_rows, cfg.eval.n_val, d.labels, seed=d.seed, label_field=d.label_field)
    if model is None:
        model, tokenizer = load_policy(cfg.model)
    train_rows = truncate_texts(train_rows, tokenizer, d.max_text_tokens, d.text_field)
    val_rows = truncate_texts(val_rows, tokenizer, d.max_text_tokens, d.text_field)
    return Prepared(model, tokenizer, train_rows, val_rows, out)


RUN_OWNER = "whowrote train"


def claim_run_dir(out: Path) -> Path:
    """``out`` for a training stage (preflight, STaR, SFT, GRPO…), created and marked as a run's;
    never a user's folder: a non-empty one must be a run's own (marked, or an earlier run's)."""
    return claim_folder(out, RUN_OWNER, _earlier_run)


def check_run_dir(out: Path) -> None:
    """:func:`claim_run_dir`'s refusal alone (nothing written): for a check before a slow model load."""
    check_own_folder(out, RUN_OWNER, _earlier_run)


def _earlier_run(out: Path) -> bool:
    """A run folder written before folders were marked: its metrics.jsonl holds the ``kind=start``
    record that opens every attempt, or it holds the STaR stage's rows and stats, a stage's config
    (a run stopped before its first step), a pre-flight report, or only the GPU scripts' ``.done``."""
    if (out / "star.jsonl").is_file() and (out / "star.stats.json").is_file():
        return True
    if any(_is_run_config(c) for c in out.glob("config.*.toml")) or (out / "preflight.json").is_file():
        return True
    if [p.name for p in out.iterdir()] == [".done"]:  # scripts/gpu/qwen_calls.sh's marker of a run that never started
        return True
    try:  # the record callbacks.mark_attempt opens every attempt with (read lazily: found before a torn last line)
        return any(r.get("kind") == "start" and "stage" in r for _, r in iter_json_rows(out / "metrics.jsonl"))
    except (WhowroteError, OSError):  # no metrics, or not a run's (a bad line, not UTF-8)
        return False


def _is_run_config(path: Path) -> bool:
    """Whether ``path`` is a stage's recorded config (``dump_toml``: every section, ``[run]`` with its output_dir)."""
    import tomllib

    try:
        run = tomllib.loads(path.read_text(encoding="utf-8")).get("run")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return isinstance(run, dict) and "output_dir" in run and "seed" in run


def _resume_checkpoint(cfg: TrainConfig) -> str | None:
    """The checkpoint to resume from: a path, the latest in output_dir ("auto"), or None."""
    from transformers.trainer_utils import get_last_checkpoint

    if not cfg.run.resume:
        return None
    if cfg.run.resume != "auto":
        return cfg.run.resume
    out = Path(cfg.run.output_dir)
    return get_last_checkpoint(str(out)) if out.is_dir() else None


def _callbacks(cfg: TrainConfig, prep: Prepared, stage: str, eval_cfg: InLoopEval) -> list[Any]:
    from whowrote.train.evaluation import harness_config

    # The guard right after the metrics file: the diverged step is on record before it stops the run.
    cbs: list[Any] = [MetricsFileCallback(prep.out, stage), NonFiniteGuard(prep.out, cfg.run.max_nonfinite_skips)]
    if prep.val_rows:
        # Val rows are already cut to data.max_text_tokens and subset to eval.n_val by prepare().
        harness = harness_config(eval_cfg, cfg.data.labels, dtype=cfg.model.dtype,
                                 chat_template_kwargs=cfg.model.chat_template_kwargs)
        cbs.append(PeriodicEvalCallback(rows=prep.val_rows, cfg=eval_cfg, labels=cfg.data.labels,
                                        output_dir=prep.out, stage=stage, tokenizer=prep.tokenizer,
                                        seed=cfg.run.seed, text_field=cfg.data.text_field,
                                        label_field=cfg.data.label_field, harness=harness))
    if cfg.run.max_minutes > 0:  # after the eval callback: a stopped run still gets its final eval
        cbs.append(TimeLimitCallback(cfg.run.max_minutes, prep.out))
    if cfg.run.profile_steps > 0:
        cbs.append(ProfileCallback(prep.out, cfg.run.profile_steps))
    return cbs


def trl_table(config_cls: type, table: dict[str, Any], where: str) -> dict[str, Any]:
    """A ``[sft.trl]``/``[grpo.trl]`` table checked against TRL's config class (one-line error)."""
    known = {f.name for f in dataclasses.fields(config_cls)}
    unknown = sorted(set(table) - known)
    if unknown:
        raise WhowroteError(f"[{where}] has keys that {config_cls.__name__} does not know: {unknown}")
    return dict(table)


def common_args(cfg: TrainConfig) -> dict[str, Any]:
    """TrainingArguments shared by the SFT and GRPO configs."""
    from whowrote.train.modeling import use_bf16

    save = cfg.run.save_steps > 0
    return {
        "output_dir": cfg.run.output_dir,
        "seed": cfg.run.seed,
        "logging_steps": cfg.run.logging_steps,
        "save_strategy": "steps" if save else "no",
        "save_steps": cfg.run.save_steps if save else 500,
        "save_total_limit": cfg.run.save_total_limit,
        "report_to": [] if cfg.run.report_to in ("", "none") else [cfg.run.report_to],
        "bf16": use_bf16(cfg.run.bf16),
        "disable_tqdm": True,
        # Always passed: TRL's configs default it to True (TrainingArguments: False), so leaving it
        # out when off checkpointed every SmolLM2 run until session 13 (a third forward per micro-batch).
        checkpointing_arg(): cfg.model.gradient_checkpointing,
    }


def checkpointing_arg() -> str:
    """TrainingArguments' name for activation checkpointing: transformers >= 5.2x renamed
    ``gradient_checkpointing`` (kept as a deprecated alias that warns)."""
    from transformers import TrainingArguments

    known = {f.name for f in dataclasses.fields(TrainingArguments)}
    return "activation_checkpointing" if "activation_checkpointing" in known else "gradient_checkpointing"


def _finish(trainer: Any, cfg: TrainConfig, prep: Prepared, stage: str, train_result: Any) -> Path:
    """Save final weights, the train summary and the curves; return the final model dir."""
    final = prep.out / "final"
    if cfg.run.save_final:
        trainer.save_model(str(final))
        prep.tokenizer.save_pretrained(final)
    if trainer.is_world_process_zero():
        metrics = dict(getattr(train_result, "metrics", {}) or {})
        metrics["global_step"] = trainer.state.global_step
        (prep.out / f"train_result.{stage}.json").write_text(json.dumps(metrics, indent=2))
        try:
            from whowrote.train.curves import write_curves

            write_curves(prep.out / "metrics.jsonl", prep.out)
        except ImportError:  # matplotlib is optional; the CSV/JSONL are the record
            pass
    return final


def run_recipe(cfg: TrainConfig, stage: str, build: Callable[[Prepared, list[Any]], Any], *,
               eval_cfg: InLoopEval, train_rows: list[Row] | None = None, model: Any = None,
               tokenizer: Any = None) -> Path:
    """Prepare, ``build(prep, callbacks)`` the TRL trainer, train, save; returns the final model dir."""
    prep = prepare(cfg, stage, train_rows=train_rows, model=model, tokenizer=tokenizer)
    callbacks = _callbacks(cfg, prep, stage, eval_cfg)
    trainer = time_phases(build(prep, callbacks))  # rollout vs optimisation time in metrics.jsonl
    for cb in callbacks:  # in-loop evals sample on the trainer's colocated vLLM engine when it has one
        if isinstance(cb, PeriodicEvalCallback):
            cb.trainer = trainer
    result = trainer.train(resume_from_checkpoint=_resume_checkpoint(cfg))
    return _finish(trainer, cfg, prep, stage, result)
