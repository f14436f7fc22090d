"""The Typer application every ``whowrote.cli.*`` module adds its commands to.

Kept free of heavy imports: command modules import numpy/sklearn/torch inside the command
functions, never at module level. ``whowrote predict`` does not come through here at all (see
:mod:`whowrote.cli.predict`): Typer itself costs more start-up than the whole prediction.
"""

from __future__ import annotations

import typer

from whowrote.cli.version import version


def _show_version(value: bool) -> None:
    if value:
        print(f"whowrote {version()}")
        raise typer.Exit()


app = typer.Typer(
    name="whowrote",
    help="Name the AI assistant (CLAUDE, CHATGPT, GEMINI or OTHER) that wrote a text, and say why.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _main(
    show_version: bool = typer.Option(False, "--version", callback=_show_version, is_eager=True,
                                      help="Print the version and exit."),
) -> None:
    """Name the AI assistant (CLAUDE, CHATGPT, GEMINI or OTHER) that wrote a text, and say why."""


data_app = typer.Typer(help="Load, audit and split corpora.", no_args_is_help=True)
train_app = typer.Typer(help="Train LLMs on the task with TRL (SFT, STaR, GRPO, cold start).", no_args_is_help=True)
app.add_typer(data_app, name="data")
app.add_typer(train_app, name="train")
