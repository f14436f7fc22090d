"""``whowrote train research -c CONFIG.toml``: OPCD, RLSD(-anchored), cheatsheet and pure-accuracy GRPO."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from whowrote.cli.app import train_app


@train_app.command()
def research(
    config: Annotated[Path | None, typer.Option("--config", "-c", help="TOML run config with a [research] section.")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="Override: section.key=value (research.* too).")] = None,
) -> None:
    """The research recipes beyond the control GRPO (research.mode: rl, opcd, rlsd, rlsd_anchored)."""
    from whowrote.train.distill import load_research_config, run_research

    cfg, recipe = load_research_config(config, set_ or [])
    typer.echo(f"research ({recipe.mode}) done: {run_research(cfg, recipe)}")


@train_app.command()
def preflight(
    config: Annotated[Path | None, typer.Option("--config", "-c", help="TOML run config with a [research] section.")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="Override: section.key=value (research.* too).")] = None,
    n: Annotated[int, typer.Option(min=1, help="Val texts scored (provider-balanced).")] = 200,
) -> None:
    """Teacher/student pre-flight (spec §3.4): does the cheatsheet make the model a better judge?"""
    import json

    from whowrote.train.config import ModelConfig
    from whowrote.train.data import balanced_subset, read_rows, truncate_texts, usable
    from whowrote.train.distill import load_research_config, resolve_cheatsheet
    from whowrote.train.modeling import load_policy
    from whowrote.train.preflight import teacher_preflight
    from whowrote.train.runner import check_run_dir, claim_run_dir
    from whowrote.types import WhowroteError

    cfg, recipe = load_research_config(config, set_ or [])
    out = Path(cfg.run.output_dir)
    check_run_dir(out)  # a user's folder is refused before the model loads
    cheat = resolve_cheatsheet(recipe.cheatsheet)
    if not cheat:
        raise WhowroteError("pre-flight needs research.cheatsheet")
    d = cfg.data
    if not d.val:
        raise WhowroteError("pre-flight needs data.val (the texts to score)")
    rows = balanced_subset(usable(read_rows(d.val), d.labels, d.label_field, d.text_field), n, d.labels, seed=d.seed,
                           label_field=d.label_field)
    model, tok = load_policy(ModelConfig(name_or_path=cfg.model.name_or_path, dtype=cfg.model.dtype))
    rows = truncate_texts(rows, tok, d.max_text_tokens, d.text_field)
    report = teacher_preflight(model, tok, rows, cheat, variant=cfg.grpo.variant, labels=d.labels,
                               text_field=d.text_field, label_field=d.label_field)
    claim_run_dir(out)  # the research run that follows writes here too (same run.output_dir)
    (out / "preflight.json").write_text(json.dumps(report, indent=2) + "\n")
    typer.echo(json.dumps(report))
