"""One-screen console summary of an eval (rich)."""

from __future__ import annotations

from typing import Any

from whowrote.llm.collapse import Finding
from whowrote.llm.metrics import NONE


def _pct(x: Any) -> str:
    return "-" if x is None else f"{100 * float(x):.1f}%"


def faithfulness_line(summary: dict[str, Any]) -> str:
    """"0.750 (claims checkable in 40.0% of traces, 1.2 a trace; 0.700 against another text)", or "-"
    without checkable claims."""
    faith, cov = summary.get("faithfulness"), summary.get("faithfulness_coverage")
    if faith is None:
        return "-" if cov is None else "- (no checkable claim in any trace)"
    other = summary.get("faithfulness_other_text")
    vs = f"; {other:.3f} against another text" if other is not None else ""
    per = summary.get("claims_per_trace")
    n = f", {per:.1f} a trace" if per is not None else ""
    return f"{faith:.3f} (claims checkable in {_pct(cov)} of traces{n}{vs})"


def render_summary(summary: dict[str, Any], findings: list[Finding] | None = None, console: Any = None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    run = summary.get("run", {})
    k = summary.get("k", 1)
    from pathlib import Path

    who = Path(str(run.get("backend") or run.get("model"))).name
    head = Table(title=f"whowrote eval - {who} on {Path(str(run.get('split'))).name}",
                 show_header=False, box=None)
    tp = summary.get("throughput", {})
    rows = [
        ("examples x k", f"{summary.get('n_examples')} x {k} = {summary.get('n_samples')} samples"
                         + ("" if run.get("complete", True) else "  (incomplete)")),
        ("accuracy / pass@1", f"{summary.get('accuracy', 0):.4f}"),
        ("rationale faithfulness", faithfulness_line(summary)),
        (f"pass@{k}", f"{summary.get(f'pass@{k}', float('nan')):.4f}" if f"pass@{k}" in summary else "-"),
        ("macro recall", f"{summary.get('macro_recall') or 0:.4f}"),
        ("parse fail / truncated", f"{_pct(summary.get('parse_fail_rate'))} / {_pct(summary.get('truncation_rate'))}"),
        ("prompt text cut", _pct(summary.get("prompt_truncation_rate"))),
        ("reason ok / think leak", f"{_pct(summary.get('reason_ok_rate'))} / {_pct(summary.get('think_leak_rate'))}"),
        ("reasoning words (median)", str((summary.get("reason_words") or {}).get("median"))),
        ("completion tokens (mean)", str((summary.get("completion_tokens") or {}).get("mean"))),
        ("throughput", f"{tp.get('tokens_per_s')} tok/s over {tp.get('gen_seconds')} s"),
    ]
    for name, val in rows:
        head.add_row(f"[bold]{name}[/]", val)
    console.print(head)

    labels = run.get("labels") or list(summary.get("per_provider", {}))
    conf = Table(title="gold (rows) x predicted (columns); recall", show_lines=False)
    conf.add_column("gold")
    for p in (*labels, NONE):
        conf.add_column(p, justify="right")
    conf.add_column("recall", justify="right")
    for g in labels:
        row = summary.get("confusion", {}).get(g, {})
        rec = summary.get("per_provider", {}).get(g, {}).get("recall")
        conf.add_row(g, *[str(row.get(p, 0)) for p in (*labels, NONE)], _pct(rec))
    share = summary.get("pred_share", {})
    conf.add_row("[dim]share[/]", *[_pct(share.get(p, 0)) for p in (*labels, NONE)], "")
    console.print(conf)
    genres = summary.get("per_genre") or {}
    if len(genres) > 1:  # one genre adds nothing to the table above
        by_genre = Table(title="by genre: accuracy; recall per gold provider")
        for col in ("genre", "texts", "accuracy", *labels):
            by_genre.add_column(col, justify="left" if col == "genre" else "right")
        for name, b in genres.items():
            by_genre.add_row(name, str(b["n_examples"]), _pct(b["accuracy"]),
                             *[_pct(b["recall"][g]) if g in b["recall"] else "-" for g in labels])
        console.print(by_genre)
    for f in findings or []:
        style = "red" if f.severity == "collapse" else "yellow"
        console.print(f"[{style}]{f.severity.upper()} ({f.kind}): {f.message}[/]")
