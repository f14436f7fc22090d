"""``whowrote study``: the style-vs-content report. Heavy imports go inside the function."""

from __future__ import annotations

from pathlib import Path

import typer

from whowrote.cli.app import app
from whowrote.types import LABELS, WhowroteError

STUDY = "whowrote study"


@app.command()
def study(
    paths: list[str] = typer.Argument(..., help="Corpora as `whowrote data` reads them: JSONL/JSON, CSV/TSV, Parquet, "
                                                 "a save_to_disk folder, a Markdown tree or a hub id (owner/name[:split]), "
                                                 "e.g. ../shared/corpus/*.jsonl"),
    out: Path = typer.Option(..., "--out", "-o", help="Directory for report.html, summary.md, summary.json, PNGs"),
    seed: int = typer.Option(0, "--seed", help="Seed for sampling, splits, shuffles and maps"),
    max_per_class: int = typer.Option(
        100, "--max-per-class", help="At most N texts per (genre, provider) cell; 0 = use every text"),
    content_cap: int = typer.Option(
        150, "--content-cap", help="Held-out texts the content probe re-embeds for the edit and length curves"),
    labels: str = typer.Option("CLAUDE,CHATGPT,GEMINI,OTHER", "--labels",
                               help="Comma-separated providers to study (others are dropped)"),
    full_features: bool = typer.Option(True, "--full-features/--no-full-features",
                                       help="Also probe whowrote's full feature set"),
    style_model: bool = typer.Option(True, "--style-model/--no-style-model",
                                     help="Also refit whowrote's StyleModel recipe on each split"),
    default_model: bool = typer.Option(True, "--default-model/--no-default-model",
                                       help="Also score whowrote's default model as shipped"),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars on stderr (only when it is a terminal)"),
    cache_dir: Path = typer.Option(None, "--cache-dir",
                                   help="Where to keep MiniLM embeddings between runs (default OUT/cache)"),
) -> None:
    """Style vs content: which signals separate the providers, as a self-contained HTML report."""
    import time

    from whowrote.data import load_corpus
    from whowrote.data.outdir import check_own_folder, claim_folder
    from whowrote.study.run import run_study

    start = time.perf_counter()

    wanted = tuple(x.strip().upper() for x in labels.split(",") if x.strip())
    bad = [x for x in wanted if x not in LABELS]
    if bad or len(wanted) < 2:
        raise WhowroteError(f"--labels needs at least two of {','.join(LABELS)}; got {labels!r}")
    if max_per_class < 0 or content_cap < 1:
        raise WhowroteError("--max-per-class must be >= 0 and --content-cap >= 1")
    if out.exists() and not out.is_dir():
        raise WhowroteError(f"--out {out} exists and is not a directory")
    if cache_dir is not None and cache_dir.exists() and not cache_dir.is_dir():
        raise WhowroteError(f"--cache-dir {cache_dir} exists and is not a directory")
    check_own_folder(out, STUDY, _earlier_study)  # a user's folder is refused before the corpus is read
    corpus = load_corpus(paths)  # every source load_corpus reads; an unreadable one is a one-line error
    claim_folder(out, STUDY, _earlier_study)  # fail now, not after minutes of embedding
    summary = run_study(corpus, out, seed=seed, max_per_class=max_per_class or None, labels=wanted,
                        content_eval_cap=content_cap, full_features=full_features,
                        style_model=style_model, default_model=default_model, progress=progress,
                        cache_dir=str(cache_dir) if cache_dir else None)
    s, c = summary["style_probe"], summary["content_probe"]
    typer.echo("style probe accuracy:   " + "  ".join(f"{k} {v['accuracy']:.3f}" for k, v in s.items()))
    typer.echo("content probe accuracy: " + "  ".join(f"{k} {v['accuracy']:.3f}" for k, v in c.items()))
    typer.echo(f"wrote {out / 'report.html'}, {out / 'summary.md'}, {out / 'summary.json'} "
               f"({len(corpus)} texts read, {time.perf_counter() - start:.1f} s)")


def _earlier_study(out: Path) -> bool:
    """A report folder a study wrote before folders were marked: its summary.json has the probes."""
    from whowrote.data.outdir import json_object

    return {"style_probe", "content_probe", "config"} <= (json_object(out / "summary.json") or {}).keys()
