"""Write the study's files: figures (PNG), report.html (self-contained), summary.md.

Every number in the HTML and Markdown is formatted from the summary dict (3 decimals for
accuracies), so the three files always agree.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import numpy as np

from whowrote.study import figures as F
from whowrote.study.tables import Table, build_tables, probes_in

FIGURES = ("maps", "accuracy", "confusion", "signatures", "length", "robustness", "genre")
CAPTIONS = {
    "maps": "The same held-out texts in style space (41 features, scaled and clipped to ±3 s.d.) and content "
            "space (MiniLM), "
            "coloured by provider, marker by genre. The title gives the 5-NN accuracy in the 2-D map.",
    "accuracy": "Held-out accuracy per split and probe.",
    "confusion": "Row-normalised confusion matrices (cell text = counts).",
    "signatures": "Each provider's largest positive standardized coefficients (41-feature probe, topic split).",
    "length": "Accuracy on the first N words of each held-out text (probes trained on full texts).",
    "robustness": "Accuracy after each edit (probes trained on raw texts).",
    "genre": "Standardized difference of each provider from its genre's mean on the main tells: the same "
             "colour across genres = a tell that transfers; a flip = a genre-specific habit.",
}


def make_figures(summary: dict, panels: dict[str, np.ndarray], y: np.ndarray, genres: np.ndarray) -> dict[str, bytes]:
    probes = probes_in(summary)
    splits = list(summary["style_probe"])
    figs = {
        "maps": F.maps(panels, y, genres, summary["maps"]["method"], summary["maps"]["knn_separation_2d"]),
        "accuracy": F.accuracy_bars(probes, splits),
    }
    cm_split = "val_ood" if "val_ood" in summary["style_probe"] else "val"
    figs["confusion"] = F.confusions({f"style, {cm_split}": summary["style_probe"][cm_split],
                                      f"content, {cm_split}": summary["content_probe"][cm_split]})
    figs["signatures"] = F.signatures({p: [tuple(x) for x in v] for p, v in summary["top_style_features"].items()})
    figs["length"] = F.length_curve(summary["length_curve"])
    rob = summary["robustness"]["accuracy"]
    edits, scorers = list(rob), list(next(iter(rob.values())))
    figs["robustness"] = F.heatmap(edits, [F.PROBE_NAMES.get(s, s) for s in scorers],
                                   np.array([[rob[e][s] for s in scorers] for e in edits]), "accuracy after each edit")
    gr = summary["cross_genre"]["genre_effects"]
    cols = [f"{g}\n{p[:7]}" for g in gr for p in gr[g]]
    feats = list(next(iter(next(iter(gr.values())).values()))) if gr else []
    vals = np.array([[gr[g][p][f] for g in gr for p in gr[g]] for f in feats]) if feats else np.zeros((0, 0))
    figs["genre"] = F.heatmap(feats, cols, vals, "(provider mean − genre mean) / genre s.d.", cmap="RdBu_r",
                              vmin=-1.5, vmax=1.5, fmt="{:+.1f}", rotate=0)
    return figs


def _anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def _b64(png: bytes) -> str:
    return base64.b64encode(png).decode("ascii")


CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1180px;margin:24px auto;padding:0 20px;
color:#1f2937;line-height:1.45}
h1{font-size:1.7em;margin-bottom:0.1em}h2{border-bottom:2px solid #e5e7eb;padding-bottom:4px;margin-top:1.8em}
table{border-collapse:collapse;margin:10px 0 16px;font-size:0.88em}
th,td{border:1px solid #e5e7eb;padding:4px 9px;text-align:right}th{background:#f3f4f6;text-align:center}
td.t,th:first-child{text-align:left}
figure{margin:14px 0}figure img{max-width:100%;border:1px solid #eee}
figcaption{font-size:0.85em;color:#6b7280}
.lead{font-size:1.08em;background:#f9fafb;border-left:4px solid #7c3aed;padding:10px 14px}
.note{font-size:0.85em;color:#6b7280}nav{font-size:0.9em;margin:8px 0 0}nav a{color:#7c3aed;text-decoration:none}
code{background:#f3f4f6;padding:0 3px;border-radius:3px;font-size:0.9em}
.CLAUDE{color:#d97706;font-weight:600}.CHATGPT{color:#10a37f;font-weight:600}
.GEMINI{color:#4285f4;font-weight:600}.OTHER{color:#6b7280;font-weight:600}
"""


_NUMERIC = re.compile(r"^[-+]?\d[\d.,]*(?: / [-+]?\d[\d.]*)?$|^–$")


def _td(cell: object) -> str:
    text = str(cell)
    return f"<td>{html.escape(text)}</td>" if _NUMERIC.match(text) else f"<td class='t'>{html.escape(text)}</td>"


def _html_table(t: Table) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in t.header)
    body = "".join("<tr>" + "".join(_td(c) for c in row) + "</tr>" for row in t.rows)
    cap = f"<p class='note'>{html.escape(t.note)}</p>" if t.note else ""
    return f"<h3>{html.escape(t.title)}</h3><table><tr>{head}</tr>{body}</table>{cap}"


def _md_table(t: Table) -> str:
    lines = [f"### {t.title}", "", "| " + " | ".join(h.replace("|", "\\|") for h in t.header) + " |",
             "|" + "---|" * len(t.header)]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in t.rows]
    if t.note:
        lines += ["", f"_{t.note}_"]
    return "\n".join(lines) + "\n"


def _sentences_html(summary: dict) -> str:
    items = []
    for p, sents in summary["ratio_sentences"].items():
        for s in sents:
            rest = re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(s["sentence"][len(p):]))
            items.append(f"<li><span class='{p}'>{p}</span>{rest}</li>")
    return "<ul>" + "".join(items) + "</ul>"


def write_report(summary: dict, panels: dict[str, np.ndarray], y: np.ndarray, genres: np.ndarray, out: Path) -> None:
    figs = make_figures(summary, panels, y, genres)
    for name, png in figs.items():
        (out / f"study_{name}.png").write_bytes(png)
    sections = build_tables(summary)
    lead = sections.pop("lead")
    # ---- HTML
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>whowrote style study</title>"
             f"<style>{CSS}</style></head><body>",
             "<h1>whowrote style study — what separates the providers</h1>",
             f"<p class='lead'>{html.escape(lead)}</p>",
             "<nav>" + " · ".join(f"<a href='#{_anchor(t)}'>{html.escape(t)}</a>" for t in sections) + "</nav>"]
    for title, block in sections.items():
        parts.append(f"<h2 id='{_anchor(title)}'>{html.escape(title)}</h2>")
        for item in block:
            if isinstance(item, Table):
                parts.append(_html_table(item))
            elif isinstance(item, str) and item.startswith("fig:"):
                name = item[4:]
                parts.append(f"<figure><img alt='{name}' src='data:image/png;base64,{_b64(figs[name])}'>"
                             f"<figcaption>{html.escape(CAPTIONS[name])}</figcaption></figure>")
            elif item == "ratio_sentences":
                parts.append(_sentences_html(summary))
            else:
                parts.append(f"<p>{html.escape(str(item))}</p>")
    parts.append("</body></html>")
    (out / "report.html").write_text("\n".join(parts), encoding="utf-8")
    # ---- Markdown
    md = ["# whowrote style study — what separates the providers", "", lead, ""]
    for title, block in sections.items():
        md += [f"## {title}", ""]
        for item in block:
            if isinstance(item, Table):
                md.append(_md_table(item))
            elif isinstance(item, str) and item.startswith("fig:"):
                md += [f"![{item[4:]}](study_{item[4:]}.png)", ""]
            elif item == "ratio_sentences":
                md += [f"- {s['sentence']}" for sents in summary["ratio_sentences"].values() for s in sents] + [""]
            else:
                md += [str(item), ""]
    (out / "summary.md").write_text("\n".join(md), encoding="utf-8")
