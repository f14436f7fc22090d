"""``whowrote data generate``: thin wrapper over :mod:`whowrote.data.generate`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from whowrote.cli.app import data_app
from whowrote.types import WhowroteError

if TYPE_CHECKING:
    from whowrote.data.generate.plan import Plan


@data_app.command()
def generate(
    plan: Path = typer.Option(..., "--plan", help="The generation plan (TOML; see configs/generate/example.toml)."),
    out: Path = typer.Option(..., "--out", help="Run folder: generated.jsonl, dropped.jsonl, report.json (resumable)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the cells and the token/cost estimate; send nothing."),
    markdown_tree: bool = typer.Option(False, "--markdown-tree", help="Also write DIR/markdown/<genre>/<category>/"
                                       "<topic>/<model>__<length>.md with YAML frontmatter."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No line per generated text on stderr."),
) -> None:
    """Generate texts for every cell of a plan (models x genres x topics x lengths x samples)."""
    from whowrote.data.generate.plan import load_plan

    def log(message: str) -> None:
        if not quiet:
            print(message, file=sys.stderr, flush=True)

    spec = load_plan(plan)
    if out.exists() and not out.is_dir():
        raise WhowroteError(f"{out}: exists and is not a folder")
    try:
        _generate(spec, out, dry_run, markdown_tree, log)
    except OSError as e:  # unwritable folder, full disk: one line, what was written stays
        raise WhowroteError(f"{out}: {e.strerror or e}") from None


def _generate(spec: Plan, out: Path, dry_run: bool, markdown_tree: bool, log: Callable[[str], None]) -> None:
    import json

    from whowrote.data.generate.budget import estimate, render
    from whowrote.data.generate.plan import cells
    from whowrote.data.generate.run import done_ids, resolve_topics, run

    if dry_run:
        done = done_ids(out, log, repair=False) if out.is_dir() else set()  # a dry run changes no file
        topics, n_proposals = resolve_topics(spec, out, None, log, dry_run=True)
        budget = estimate(spec, cells(spec, topics), done, n_proposals)
        render(budget, _console())
        typer.echo(json.dumps(budget.totals().__dict__))
        return
    report = run(spec, out, markdown=markdown_tree, log=log)
    typer.echo(report.summary())
    if report.markdown_files:
        typer.echo(f"wrote {report.markdown_files} Markdown files under {out / 'markdown'}")
    if report.failed:
        raise WhowroteError(f"{len(report.failed)} cell(s) still failing after retries (see {out / 'report.json'}); "
                            "run the same command again to retry them")


def _console():
    from rich.console import Console

    return Console(width=None if sys.stdout.isatty() else 180, soft_wrap=not sys.stdout.isatty())
