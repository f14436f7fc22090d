"""``whowrote train package CKPT --out DIR [--push-to-hub REPO]``: a loadable HF model folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from whowrote.cli.app import train_app


@train_app.command()
def package(
    ckpt: Annotated[Path, typer.Argument(help="Checkpoint dir (a run's final/, best/ or checkpoint-N/).")],
    out: Annotated[Path, typer.Option("--out", help="Folder to write the packaged model to.")],
    summary: Annotated[Path | None, typer.Option(help="Eval summary.json for the card's metrics "
                                                 "(default: the run's final_eval.json).")] = None,
    tokenizer_from: Annotated[str | None, typer.Option(help="Take the tokenizer (chat template) from this "
                                                       "model dir/id when the checkpoint lacks one.")] = None,
    temperature: Annotated[float, typer.Option(min=0.0, help="Sampling temperature in generation_config.json.")] = 0.7,
    top_p: Annotated[float, typer.Option(min=0.0, max=1.0)] = 0.95,
    max_new_tokens: Annotated[int, typer.Option(min=1)] = 4096,
    name: Annotated[str, typer.Option(help="Model name in the card (default: the --out folder name).")] = "",
    force: Annotated[bool, typer.Option(help="Replace an earlier package in --out.")] = False,
    push_to_hub: Annotated[str | None, typer.Option(help="Also upload to this Hub repo (owner/name).")] = None,
    public: Annotated[bool, typer.Option(help="Create the Hub repo public (default: private).")] = False,
) -> None:
    """Package a checkpoint: safetensors, tokenizer, sampling generation config, model card."""
    from whowrote.train.package import Sampling, package_checkpoint
    from whowrote.train.package import push_to_hub as push

    folder = package_checkpoint(ckpt, out, summary=summary, tokenizer_from=tokenizer_from,
                                sampling=Sampling(temperature, top_p, max_new_tokens), name=name, force=force)
    typer.echo(f"packaged {ckpt} -> {folder}")
    if push_to_hub:
        typer.echo(f"pushed to {push_to_hub}: {push(folder, push_to_hub, private=not public)}")
