"""``whowrote traces REPORT_DIR TRACES...``: the trace-quirk report (cues, length, repetition, truth)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from whowrote.cli.app import app


@app.command("traces")
def traces_command(
    report_dir: Annotated[Path, typer.Argument(help="Folder for report.html, summary.json and the figures.")],
    traces: Annotated[list[str], typer.Argument(help="[NAME=]PATH: a `whowrote eval` output folder, its "
                                                "traces.jsonl, or a run's evals/stepN.traces.jsonl (repeatable).")],
    split: Annotated[Path | None, typer.Option(help="Split file holding the texts, when the traces do not "
                                               "say (default: the eval's run.json / the run's config).")] = None,
) -> None:
    """Compare what each recipe's or checkpoint's rationales say, and whether it is true of the text."""
    from whowrote.traces.analyze import analyze_sources
    from whowrote.traces.report import write_report

    stats = analyze_sources(traces, split)
    for p in write_report(stats, report_dir):
        typer.echo(str(p))
    for name, s in stats.items():
        faith, other = ("-" if s.get(k) is None else f"{s[k]:.3f}" for k in ("faithfulness", "faithfulness_other_text"))
        typer.echo(f"{name}: n={s['n']} acc={s['accuracy']} rationales={s['n_with_reason']} "
                   f"median_words={s['median_reason_words']} concrete={s['concrete_fraction']} faithfulness={faith} "
                   f"(against another text: {other})")
