"""Two-stage recipes: STaR data generation, and cold start (STaR SFT for N steps, then GRPO).

Layout under ``run.output_dir`` (each stage resumable on its own; a finished stage is skipped
when the command is run again):

    star.jsonl, star.stats.json   kept STaR rows (text, provider, rationale, ...)
    sft/                          rationale SFT for ``coldstart.sft_max_steps`` steps (final/, best/)
    grpo/                         GRPO initialised from sft/final
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from whowrote.train.config import LM_FREE_STAR_MODES, TrainConfig
from whowrote.train.data import Row, balanced_subset, read_rows, truncate_texts, usable
from whowrote.train.modeling import load_policy
from whowrote.train.runner import claim_run_dir
from whowrote.types import WhowroteError


def _sub(cfg: TrainConfig, name: str, **run_changes: object) -> TrainConfig:
    run = dataclasses.replace(cfg.run, output_dir=str(Path(cfg.run.output_dir) / name), **run_changes)
    return dataclasses.replace(cfg, run=run)


def star_path(cfg: TrainConfig) -> Path:
    return Path(cfg.star.out) if cfg.star.out else Path(cfg.run.output_dir) / "star.jsonl"


def run_star(cfg: TrainConfig) -> tuple[Path, dict]:
    """Generate STaR (or gold-conditioned) rationale rows from ``data.train`` with ``model``; modes
    "tells" and "fallback" build them without the LM (see :mod:`whowrote.train.tells_rationales`)."""
    from whowrote.train.star import generate_star

    out = star_path(cfg)
    stats_path = out.with_suffix(".stats.json")
    if out.is_file() and stats_path.is_file() and cfg.run.resume:  # already generated: resume skips it
        stats = json.loads(stats_path.read_text())
        if stats.get("mode", cfg.star.mode) != cfg.star.mode:  # a head-to-head must not reuse another mode's rows
            raise WhowroteError(f"{out} holds star.mode = {stats['mode']!r} rows, not {cfg.star.mode!r}: "
                                "use another run.output_dir (or star.out)")
        if bool(stats.get("verdict_first", False)) != cfg.star.verdict_first:
            raise WhowroteError(f"{out} holds rows with star.verdict_first = {not cfg.star.verdict_first}: "
                                "use another run.output_dir (or star.out)")
        return out, stats
    d = cfg.data
    if not d.train:
        raise WhowroteError("data.train is empty: give a train split (JSONL)")
    rows = usable(read_rows(d.train), d.labels, d.label_field, d.text_field)  # before the (slow) model load
    rows = balanced_subset(rows, d.n_train, d.labels, seed=d.seed, label_field=d.label_field, balance=d.balance)
    if not rows:
        raise WhowroteError(f"{d.train}: no usable rows for labels {d.labels}")
    claim_run_dir(Path(cfg.run.output_dir))  # never a user's folder (the SFT and GRPO stages write here too)
    if cfg.star.mode in LM_FREE_STAR_MODES:
        return _run_lm_free(cfg, rows, out)
    model, tok = load_policy(cfg.model)
    rows = truncate_texts(rows, tok, d.max_text_tokens, d.text_field)
    kept, stats = generate_star(model, tok, rows, cfg.star, labels=d.labels, out_path=out,
                                text_field=d.text_field, label_field=d.label_field,
                                batch_size=cfg.eval.batch_size, seed=cfg.run.seed,
                                template_kwargs=cfg.model.chat_template_kwargs)
    del model
    if not kept:
        raise WhowroteError(f"STaR kept no rows ({stats.rejected}); nothing to train on")
    return out, json.loads(stats_path.read_text())


def _run_lm_free(cfg: TrainConfig, rows: list[Row], out: Path) -> tuple[Path, dict]:
    """Tells / fallback rows: only the tokenizer is loaded, to cut the texts as the SFT stage will
    (so every tell is true of the text the model is trained on)."""
    from whowrote.train.tells_rationales import build_lm_free

    d = cfg.data
    if d.max_text_tokens > 0:
        if not cfg.model.name_or_path:
            raise WhowroteError(f"star.mode = {cfg.star.mode!r} cuts texts to data.max_text_tokens with the model's "
                                "tokenizer: set model.name_or_path (only its tokenizer loads) or data.max_text_tokens=0")
        from whowrote.llm.models import load_tokenizer

        tok = load_tokenizer(cfg.model.name_or_path, cfg.model.gguf_file or None)
        rows = truncate_texts(rows, tok, d.max_text_tokens, d.text_field)
    kept, stats = build_lm_free(rows, cfg.star, labels=d.labels, out_path=out, text_field=d.text_field,
                                label_field=d.label_field)
    if not kept:
        raise WhowroteError(f"star.mode = {cfg.star.mode!r} kept no rows ({stats['rejected']}); nothing to train on")
    return out, stats


def rationale_sft_config(cfg: TrainConfig) -> TrainConfig:
    """The config of the cold start's SFT stage: rationale targets, in ``<output_dir>/sft``."""
    return dataclasses.replace(_sub(cfg, "sft"), sft=dataclasses.replace(cfg.sft, target="rationale"))


def run_star_sft(cfg: TrainConfig, star_rows: Path) -> Path:
    """Rationale SFT on kept STaR rows, in ``<output_dir>/sft`` (``whowrote train star --then-sft``)."""
    from whowrote.train.sft import run_sft

    return run_sft(rationale_sft_config(cfg), stage="star-sft", train_rows=read_rows(star_rows))


def _warn_if_short(train_result: Path, max_steps: int) -> None:
    """A kept SFT that a time limit stopped early is reused as it is (a finished stage is skipped):
    say so, since nothing else would show that the cold start got fewer steps than asked."""
    try:
        done = int(json.loads(train_result.read_text(encoding="utf-8")).get("global_step", -1))
    except (OSError, ValueError, TypeError, AttributeError):
        return
    if 0 <= done < max_steps:
        print(f"whowrote: warning: reusing {train_result.parent / 'final'}, trained {done} of the "
              f"{max_steps} steps asked (its run stopped early); delete {train_result.parent} to train it again",
              file=sys.stderr)


def run_coldstart(cfg: TrainConfig) -> dict[str, str]:
    """STaR data -> rationale SFT (N steps) -> GRPO from the SFT weights. Returns the stage dirs."""
    from whowrote.train.grpo import run_grpo
    from whowrote.train.sft import run_sft

    result: dict[str, str] = {}
    stages = set(cfg.coldstart.stages)
    unknown = stages - {"star", "sft", "grpo"}
    if unknown:
        raise WhowroteError(f"unknown cold-start stages {sorted(unknown)} (star, sft, grpo)")
    if cfg.coldstart.generate and "star" not in stages:
        path = star_path(cfg)
        if not path.is_file():
            raise WhowroteError(f"stage 'star' skipped but {path} does not exist")
        rows: list[Row] = read_rows(path)
    elif cfg.coldstart.generate:
        path, _ = run_star(cfg)
        rows = read_rows(path)
        result["star"] = str(path)
    else:
        rows = usable(read_rows(cfg.data.train), cfg.data.labels, cfg.data.label_field, cfg.data.text_field)
    sft_cfg = rationale_sft_config(cfg)
    sft_final = Path(sft_cfg.run.output_dir) / "final"
    if "sft" in stages and not (sft_final / "config.json").is_file():
        sft_final = run_sft(sft_cfg, stage="coldstart-sft", train_rows=rows, max_steps=cfg.coldstart.sft_max_steps)
    elif "sft" in stages:
        _warn_if_short(sft_final.parent / "train_result.coldstart-sft.json", cfg.coldstart.sft_max_steps)
    result["sft"] = str(sft_final)
    if "grpo" not in stages:
        return result
    if not (sft_final / "config.json").is_file():
        raise WhowroteError(f"no cold-start SFT weights at {sft_final}: run the 'sft' stage first")
    grpo_cfg = _sub(cfg, "grpo")
    grpo_cfg = dataclasses.replace(grpo_cfg, model=dataclasses.replace(cfg.model, name_or_path=str(sft_final),
                                                                       gguf_file=""))
    result["grpo"] = str(run_grpo(grpo_cfg, stage="coldstart-grpo"))
    return result

