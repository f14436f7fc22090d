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
