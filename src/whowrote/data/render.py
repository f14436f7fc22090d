"""Rich tables for the CLI: the audit report and the per-split summary."""

from __future__ import annotations

import pandas as pd
from rich.console import Console
from rich.table import Table
from rich.text import Text

from whowrote.data.audit import KINDS, AuditReport
from whowrote.data.splits import word_counts
from whowrote.types import LABELS


def frame_table(frame: pd.DataFrame, title: str, index_name: str) -> Table:
    """A DataFrame (index = row names) as a rich table with right-aligned numbers."""
    table = Table(title=title, title_justify="left", show_edge=False)
    table.add_column(index_name)
    for col in frame.columns:
        table.add_column(str(col), justify="right")
    for name, row in frame.iterrows():
        # Text, not str: names come from the data ("[/INST]" is a model name, not rich markup)
        table.add_row(Text(str(name)), *[Text(str(v)) for v in row.tolist()])
    return table


def render_audit(report: AuditReport, console: Console, max_per_kind: int = 25) -> None:
    """Counts per genre / category / model, then every problem (``max_per_kind`` per kind
    listed in full, the rest counted; 0 = list all)."""
    console.print(f"[bold]Corpus audit[/bold]: {report.n_rows} texts")
    for by, title in (("genre", "Texts per genre and provider"), ("category", "Texts per category and provider"),
                      ("model", "Texts per model and provider")):
        frame = _order_labels(report.counts[by])
        console.print(frame_table(frame, title, by))
        console.print()
    for note in report.notes:
        console.print(f"note: {note}", markup=False, highlight=False)
    counts = report.problem_counts()
    if not counts:
        console.print("[green]No problems found.[/green]")
        return
    summary = Table(title="Problems", title_justify="left", show_edge=False)
    summary.add_column("kind")
    summary.add_column("count", justify="right")
    for kind, n in counts.items():
        summary.add_row(kind, str(n))
    console.print(summary)
    for kind in KINDS:
        found = [p for p in report.problems if p.kind == kind]
        shown = found if max_per_kind <= 0 else found[:max_per_kind]
        for p in shown:
            where = f"{p.id}: " if p.id else ""
            console.print(f"  {kind}: {where}{p.detail}", markup=False, highlight=False)
        if len(found) > len(shown):
            console.print(f"  {kind}: ... and {len(found) - len(shown)} more (--max-problems 0 lists all)")


def render_split_summary(splits: dict[str, pd.DataFrame], info: dict, console: Console) -> None:
    """One row per split: rows, per-provider counts, genres, topics, stripped, mean words."""
    labels = [lab for lab in LABELS if any((p["provider"] == lab).any() for p in splits.values())]
    table = Table(title="Splits", title_justify="left", show_edge=False)
    for col in ("split", "rows", *labels, "genres", "categories", "topics", "stripped", "mean words"):
        table.add_column(col, justify="left" if col == "split" else "right")
    for name, part in splits.items():
        counts = part["provider"].value_counts()
        words = word_counts(part["text"]).mean() if len(part) else 0
        table.add_row(
            name, str(len(part)), *[str(int(counts.get(lab, 0))) for lab in labels],
            str(part["genre"].nunique()), str(part["category"].nunique()), str(part["topic"].nunique()),
            str(int(part.get("stripped", pd.Series(dtype=bool)).sum())), f"{words:.0f}",
        )
    console.print(table)
    by_genre = pd.concat({n: p.groupby("genre")["provider"].value_counts().unstack(fill_value=0)
                          for n, p in splits.items() if len(p)}, names=["split", "genre"]).fillna(0).astype(int)
    by_genre.index = [f"{s} / {g}" for s, g in by_genre.index]
    console.print(frame_table(_order_labels(by_genre), "Per split and genre", "split / genre"))
    if info.get("ood_categories") or info.get("ood_genres"):
        held = [*info.get("ood_genres", []), *info.get("ood_categories", [])]
        console.print(f"val_ood holds out: {', '.join(held)}", markup=False, highlight=False)
    for line in [*info.get("load_notes", []), *info.get("unknown_models", [])]:
        console.print(f"note: {line}", markup=False, highlight=False)
    console.print(f"audit: {info.get('audit_dropped', 0)} flagged rows dropped before splitting; "
                  f"{info.get('near_duplicate_pairs', 0)} duplicate / near-duplicate pairs, none across splits; "
                  "no (genre, topic) in two splits")


def _order_labels(frame: pd.DataFrame) -> pd.DataFrame:
    first = [c for c in LABELS if c in frame.columns]
    return frame[first + [c for c in frame.columns if c not in first]]
