"""Write the trace-quirk report: ``summary.json``, figures (PNG) and a self-contained ``report.html``.

Every figure puts the sources side by side in the order given, so checkpoints of one run (or
recipes) compare at a glance: cue families cited (share of rationales), rationale length,
and the quality rates (concrete, confident, hedged, faithfulness, repetition, truncation).
"""

from __future__ import annotations

import base64
import html
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from whowrote.data.outdir import check_own_folder, json_object
from whowrote.study.figures import _plt, _png
from whowrote.traces.analyze import FAMILIES

RATES = ("concrete_fraction", "confident_fraction", "hedged_fraction", "faithfulness", "faithfulness_other_text",
         "median_repetition", "truncation_rate")
HEADLINE = ("n", "accuracy", "truncation_rate", "n_with_reason", "median_reason_words", "concrete_fraction",
            "confident_fraction", "hedged_fraction", "faithfulness", "faithfulness_other_text", "n_checked",
            "median_repetition", "median_echo")


def fig_cues(stats: dict[str, dict[str, Any]]) -> bytes:
    """Heat map: sources x cue families, share of each source's rationales citing the family."""
    import numpy as np

    plt = _plt()
    names = list(stats)
    grid = np.array([[stats[n]["cue_families"].get(f, 0) / max(1, stats[n]["n_with_reason"]) for f in FAMILIES]
                     for n in names])
    fig, ax = plt.subplots(figsize=(1.0 + 0.62 * len(FAMILIES), 1.2 + 0.42 * len(names)))
    im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(FAMILIES)), FAMILIES, rotation=45, ha="right")
    ax.set_yticks(range(len(names)), names)
    for i in range(len(names)):
        for j in range(len(FAMILIES)):
            ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=7,
                    color="white" if grid[i, j] < 0.6 else "black")
    fig.colorbar(im, ax=ax, label="share of rationales citing")
    ax.set_title("cue families cited")
    return _png(fig)


def fig_lengths(stats: dict[str, dict[str, Any]]) -> bytes:
    """Rationale length (words) per source, log scale: runaway reasoning shows as a high box."""
    plt = _plt()
    names = list(stats)
    data = [[max(1, w) for w in stats[n]["reason_words"]] or [1] for n in names]
    fig, ax = plt.subplots(figsize=(1.5 + 0.9 * len(names), 3.4))
    ax.boxplot(data, showfliers=False)
    ax.set_xticks(range(1, len(names) + 1), names, rotation=30, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("words in <reason_why>")
    ax.set_title("rationale length")
    return _png(fig)


def fig_rates(stats: dict[str, dict[str, Any]]) -> bytes:
    """Grouped bars of the quality rates per source (missing values are left out)."""
    plt = _plt()
    names = list(stats)
    fig, ax = plt.subplots(figsize=(2.0 + 1.3 * len(names), 3.4))
    width = 0.8 / len(RATES)
    for i, rate in enumerate(RATES):
        xs = [j + i * width for j, n in enumerate(names) if stats[n].get(rate) is not None]
        ys = [stats[n][rate] for n in names if stats[n].get(rate) is not None]
        ax.bar(xs, ys, width, label=rate.replace("_fraction", "").replace("median_", ""))
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(names))], names, rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7, ncol=3, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.3))
    ax.set_title("rationale quality")
    return _png(fig)


FIGURES = {"cues.png": (fig_cues, "Share of each source's rationales citing each cue family (spec §5.8 regexes)."),
           "lengths.png": (fig_lengths, "Rationale length in words (log scale); the box spans the middle half."),
           "rates.png": (fig_rates, "Concrete = cites a surface family; faithfulness = share of checkable claims "
                                    "true of the text's measured features (other text: the same claims checked "
                                    "against the next example's text, the no-information baseline); "
                                    "repetition = repeated 4-grams.")}


def _cell(v: Any) -> str:
    return "-" if v is None else (f"{v:.3f}" if isinstance(v, float) else html.escape(str(v)))


def render_html(stats: dict[str, dict[str, Any]], figures: dict[str, bytes]) -> str:
    rows = "".join("<tr><th>" + html.escape(n) + "</th>" + "".join(f"<td>{_cell(s.get(k))}</td>" for k in HEADLINE)
                   + "</tr>" for n, s in stats.items())
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>whowrote trace quirks</title>",
             "<style>body{font-family:sans-serif;max-width:1200px;margin:2em auto}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:3px 6px;font-size:13px}td{text-align:right}"
             "blockquote{color:#333;border-left:3px solid #ccc;margin:4px 0 4px 1em;padding-left:8px}</style>",
             "</head><body><h1>Trace quirks: what each model's rationales say</h1>",
             "<table><tr><th>source</th>" + "".join(f"<th>{html.escape(k)}</th>" for k in HEADLINE) + "</tr>" + rows
             + "</table>"]
    for name, png in figures.items():
        caption = FIGURES[name][1]
        parts.append(f"<figure><img alt='{name}' src='data:image/png;base64,{base64.b64encode(png).decode()}'>"
                     f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    for n, s in stats.items():
        parts.append(f"<h2>{html.escape(n)}</h2><p>predictions: {html.escape(json.dumps(s['pred_dist']))}; "
                     f"claims checked per family (true / n): "
                     + html.escape(", ".join(f"{f} {c['true']}/{c['n']}" for f, c in s["claims_by_family"].items()))
                     + "</p>")
        for prov, p in s["per_provider"].items():
            cues = ", ".join(f"{f} {c}" for f, c in p["cue_families"].items())
            parts.append(f"<h3>{html.escape(prov)}: {p['n_correct']} correct with a rationale</h3>"
                         f"<p>cues: {html.escape(cues or '-')}</p>"
                         + "".join(f"<blockquote>{html.escape(e)}</blockquote>" for e in p["examples"]))
    parts.append("</body></html>")
    return "\n".join(parts)


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_report(stats: dict[str, dict[str, Any]], out: Path) -> list[Path]:
    """``summary.json``, the figures and ``report.html`` in ``out``; returns the paths written.
    A non-empty ``out`` must be an earlier report (its ``summary.json`` is written first)."""
    check_own_folder(out, "whowrote traces", _earlier_report)
    out.mkdir(parents=True, exist_ok=True)
    figures = {name: fn(stats) for name, (fn, _) in FIGURES.items()}
    _atomic_write(out / "summary.json", (json.dumps(stats, indent=2) + "\n").encode())
    written = []
    for name, png in figures.items():
        _atomic_write(out / name, png)
        written.append(out / name)
    _atomic_write(out / "report.html", render_html(stats, figures).encode())
    return [*written, out / "summary.json", out / "report.html"]


def _earlier_report(out: Path) -> bool:
    """Whether ``out/summary.json`` is a trace report's: one stats object per source."""
    summary = json_object(out / "summary.json")
    return bool(summary) and all(isinstance(s, dict) and {"n", "n_with_reason"} <= s.keys() for s in summary.values())
