"""``whowrote predict`` (attribute texts with the bundled or a given model) and ``whowrote train-probe``.

Start-up is part of the product: this module imports only typer at load time; the command
imports numpy and the style package (no scikit-learn, pandas, torch or matplotlib) when it runs.

Exit codes of ``predict``: 0 every input attributed; 3 some inputs could not be read (each still
gets an explicit "cannot tell" result); 1 no input could be read, or a fatal error (bad model).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from whowrote.cli.app import app, data_app, train_app  # noqa: F401

EXIT_PARTIAL = 3
BATCH = 256
COLOURS = {"CLAUDE": "#d97706", "CHATGPT": "#10a37f", "GEMINI": "#4285f4", "OTHER": "grey62"}


def _record(item, attribution) -> dict:
    rec = {"path": item.path, **attribution.to_dict()}
    if item.id is not None:
        rec["id"] = item.id
    if item.error:
        rec["error"] = item.error
    return rec


def _attribute_all(model, items, n_tells: int, progress: bool):
    """Yield ``(item, attribution)`` in input order, attributing readable items in batches."""
    from whowrote.style.explain import no_attribution

    pending = []
    bar = task = None

    def flush():
        readable = [it for it in pending if not it.error]
        found = iter(model.attribute([it.text for it in readable], n_tells=n_tells) if readable else ())
        for it in pending:
            if it.error:
                yield it, no_attribution([it.error])
            else:
                att = next(found)
                att.warnings[:0] = it.warnings
                yield it, att
        if bar is not None:  # advance once the batch is done, so the bar shows real progress
            bar.advance(task, len(pending))
        pending.clear()

    if progress:
        from rich.progress import Progress

        bar = Progress(transient=True, console=_stderr_console())
        bar.start()
        task = bar.add_task("attributing", total=len(items))
    try:
        for it in items:
            pending.append(it)
            if len(pending) >= BATCH:
                yield from flush()
        if pending:
            yield from flush()
    finally:
        if bar is not None:
            bar.stop()


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


def _table(records: list[dict], explain: int) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(show_lines=explain > 0)
    for col in ("text", "provider", "p", "words", "why" if explain > 0 else "notes"):
        table.add_column(col, overflow="fold")
    for r in records:
        colour = COLOURS.get(r["provider"], "white")
        verdict = f"[{colour}]{r['provider']}[/]" + (" [dim](uncertain)[/]" if r["uncertain"] else "")
        notes = "\n".join([t["sentence"] for t in r["tells"][:explain]] + [f"[yellow]! {w}[/]" for w in r["warnings"]])
        table.add_row(r["path"], verdict, f"{r['probabilities'][r['provider']]:.2f}", str(r["n_words"]), notes)
    Console().print(table)


@app.command()
def predict(
    paths: Annotated[list[str], typer.Argument(help="Files, folders (recursing into .md/.txt), globs, '-' for stdin, "
                                                     "or .jsonl/.csv/.tsv/.json tables (one text per row).")],
    json_out: Annotated[bool, typer.Option("--json", help="One JSON array of results.")] = False,
    jsonl: Annotated[bool, typer.Option("--jsonl", help="One JSON object per text, one per line.")] = False,
    csv_out: Annotated[bool, typer.Option("--csv", help="CSV: path, provider, uncertain, 4 probabilities.")] = False,
    explain: Annotated[int, typer.Option("--explain", "-e", min=0, help="Show the top N tells per text.")] = 3,
    column: Annotated[str | None, typer.Option(help="Text column of JSONL/CSV inputs (default: text/content/...).")] = None,
    model_path: Annotated[Path | None, typer.Option("--model", help="A model directory from train-probe.")] = None,
    progress: Annotated[bool | None, typer.Option("--progress/--no-progress",
                                                  help="Progress bar on stderr (default: for >20 texts on a terminal).")] = None,
) -> None:
    """Name the assistant (CLAUDE, CHATGPT, GEMINI or OTHER) that wrote each text, with its tells."""
    from whowrote.style.io import load_model
    from whowrote.style.sources import iter_items
    from whowrote.types import LABELS, WhowroteError

    if sum((json_out, jsonl, csv_out)) > 1:
        raise WhowroteError("choose one of --json, --jsonl, --csv")
    model = load_model(model_path)
    items = list(iter_items(paths, column=column))
    if not items:
        raise WhowroteError("no input texts found (folders are searched for .md and .txt files)")
    if all(it.nothing_in_table for it in items):
        # Only tables with nothing to attribute: one line saying why, not a table of "cannot tell".
        raise WhowroteError("; ".join(f"{it.path}: {it.error}" for it in items))
    show_bar = progress if progress is not None else (len(items) > 20 and sys.stderr.isatty())
    n_err = 0
    records: list[dict] = []
    out = sys.stdout
    writer = None
    if csv_out:
        import csv

        writer = csv.writer(out)
        writer.writerow(["path", "provider", "uncertain", *(f"p_{lab}" for lab in LABELS), "n_words", "warnings"])
    for item, att in _attribute_all(model, items, explain, show_bar):
        n_err += item.error is not None
        if item.error and not (json_out or jsonl or csv_out):
            print(f"whowrote: {item.path}: {item.error}", file=sys.stderr)
        rec = _record(item, att)
        if jsonl:
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        elif writer is not None:
            writer.writerow([rec["path"], rec["provider"], rec["uncertain"],
                             *(f"{rec['probabilities'][lab]:.6f}" for lab in LABELS), rec["n_words"],
                             " | ".join(rec["warnings"])])
        else:
            records.append(rec)
    if json_out:
        json.dump(records, out, ensure_ascii=False, indent=1)
        out.write("\n")
    elif not (jsonl or csv_out):
        _table(records, explain)
    out.flush()
    if n_err == len(items):
        raise typer.Exit(1)
    if n_err:
        raise typer.Exit(EXIT_PARTIAL)


@app.command("train-probe")
def train_probe(
    corpus: Annotated[list[Path], typer.Option("--corpus", help="Corpus files (JSONL/CSV/...); repeat for several.")],
    out: Annotated[Path, typer.Option("--out", help="Directory to write model.json, model.npz, MODEL_CARD.md.")],
    seed: Annotated[int, typer.Option(help="Seed for the split, the trees and the calibration folds.")] = 0,
    feature_set: Annotated[str, typer.Option(help="research41 or full.")] = "full",
    check: Annotated[bool, typer.Option("--check/--no-check", help="First measure on a topic-held-out split.")] = True,
) -> None:
    """Train the stylometric model reproducibly and print its held-out metrics."""
    from whowrote.style.train import train_probe as run

    metrics = run([str(p) for p in corpus], out, seed=seed, feature_set=feature_set, check=check,
                  log=lambda m: print(m, file=sys.stderr))
    print(json.dumps(metrics, indent=1))
