"""The Typer application every ``whowrote.cli.*`` module adds its commands to.

Kept free of heavy imports: ``whowrote predict`` start-up time is part of the product, so command
modules import numpy/sklearn/torch inside the command functions, never at module level.
"""

from __future__ import annotations

import typer

app = typer.Typer(
    name="whowrote",
    help="Name the AI assistant (CLAUDE, CHATGPT, GEMINI or OTHER) that wrote a text, and say why.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
data_app = typer.Typer(help="Load, audit and split corpora.", no_args_is_help=True)
train_app = typer.Typer(help="Train LLMs on the task with TRL (SFT, STaR, GRPO, cold start).", no_args_is_help=True)
app.add_typer(data_app, name="data")
app.add_typer(train_app, name="train")
