"""``whowrote train ...``: the TRL recipes (SFT, STaR, GRPO, cold start) and their helpers.

Every recipe reads a TOML config (``configs/*.toml``) and ``--set section.key=value`` overrides.
Heavy imports (torch, transformers, trl) happen inside the commands.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from whowrote.cli.app import train_app

ConfigOpt = Annotated[Path | None, typer.Option("--config", "-c", help="TOML run config (configs/*.toml).")]
SetOpt = Annotated[list[str] | None, typer.Option("--set", help="Override: section.key=value (repeatable).")]


def _cfg(config: Path | None, overrides: list[str] | None):
    # Read and validate the config before any recipe module (torch, transformers, TRL) is
    # imported: a missing file or a bad value costs a fraction of a second, not a 15 s import.
    from whowrote.train.config import load_config

    return load_config(config, overrides or [])


@train_app.command()
def sft(config: ConfigOpt = None, set_: SetOpt = None) -> None:
    """Answer-only or rationale SFT (sft.target) on TRL's SFTTrainer."""
    cfg = _cfg(config, set_)
    from whowrote.train.sft import run_sft

    typer.echo(f"sft done: {run_sft(cfg)}")


@train_app.command()
def grpo(config: ConfigOpt = None, set_: SetOpt = None) -> None:
    """The control GRPO recipe (Dr.GRPO, balanced batches, periodic eval, collapse stop)."""
    cfg = _cfg(config, set_)
    from whowrote.train.grpo import run_grpo

    typer.echo(f"grpo done: {run_grpo(cfg)}")


@train_app.command()
def star(config: ConfigOpt = None, set_: SetOpt = None,
         then_sft: Annotated[bool, typer.Option(help="Train rationale SFT on the kept rows afterwards.")] = False) -> None:
    """STaR (or gold-conditioned, star.mode=goldcond) rationale data; optionally SFT on it."""
    cfg = _cfg(config, set_)
    from whowrote.train.coldstart import run_star, run_star_sft

    path, stats = run_star(cfg)
    typer.echo(f"star data: {path} {json.dumps({k: stats[k] for k in ('n_items', 'n_accepted', 'final_rows')})}")
    if then_sft:
        typer.echo(f"sft done: {run_star_sft(cfg, path)}")


@train_app.command()
def coldstart(config: ConfigOpt = None, set_: SetOpt = None) -> None:
    """Cold start: STaR data -> rationale SFT for coldstart.sft_max_steps -> GRPO from it."""
    cfg = _cfg(config, set_)
    from whowrote.train.coldstart import run_coldstart

    typer.echo(json.dumps(run_coldstart(cfg), indent=2))


@train_app.command()
def evaluate(model: Annotated[str, typer.Option(help="Model dir / HF id / .gguf file.")],
             data: Annotated[Path, typer.Option(help="Split JSONL(.gz) with text + provider.")],
             out: Annotated[Path, typer.Option(help="Output dir (traces.jsonl, summary.json); re-run to resume.")],
             config: ConfigOpt = None, set_: SetOpt = None) -> None:
    """`whowrote eval` (the harness) with the sampling settings of a training config's eval section."""
    cfg = _cfg(config, set_)
    from whowrote.llm.evaluate import run_eval
    from whowrote.train.evaluation import harness_config

    d = cfg.data
    hcfg = harness_config(cfg.eval, d.labels, split=str(data), out=str(out), model=model, seed=cfg.run.seed,
                          dtype=cfg.model.dtype, chat_template_kwargs=cfg.model.chat_template_kwargs,
                          max_text_tokens=d.max_text_tokens if d.max_text_tokens > 0 else None,
                          limit=cfg.eval.n_val or None)
    summary = run_eval(hcfg)
    keys = ("n_examples", "accuracy", f"pass@{hcfg.k}", "macro_recall", "parse_fail_rate", "truncation_rate")
    typer.echo(json.dumps({k: summary.get(k) for k in keys} | {"median_reason_words": summary["reason_words"]["median"],
                                                               "per_provider": summary["per_provider"]}))


@train_app.command()
def curves(run_dir: Annotated[Path, typer.Argument(help="A run's output dir (holds metrics.jsonl).")]) -> None:
    """(Re)draw train.csv, eval.csv and curves.png from a run's metrics.jsonl."""
    from whowrote.train.curves import write_curves

    for p in write_curves(run_dir / "metrics.jsonl", run_dir):
        typer.echo(str(p))


@train_app.command("export-model")
def export_model(model: Annotated[str, typer.Argument(help="HF id / dir / .gguf file.")],
                 out: Annotated[Path, typer.Argument(help="Directory to save the HF model to.")],
                 dtype: Annotated[str | None, typer.Option(help="Weights dtype (default: [model] dtype's).")] = None) -> None:
    """Load once (dequantising a GGUF) and save a plain HF directory that loads fast."""
    from whowrote.train.config import ModelConfig
    from whowrote.train.modeling import export_model as export

    cfg = ModelConfig(name_or_path=model, **({"dtype": dtype} if dtype else {}))
    typer.echo(str(export(cfg, out)))


@train_app.command("tiny-model")
def tiny_model(out: Annotated[Path, typer.Argument(help="Where to save the tiny random model.")]) -> None:
    """Build the tiny random chat model used by the CPU tests and the ladder dry run (offline)."""
    from whowrote.train.tiny import build_tiny_model

    typer.echo(str(build_tiny_model(out)))
