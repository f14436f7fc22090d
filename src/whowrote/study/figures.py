"""The report's figures (matplotlib, Agg backend). Each function returns PNG bytes."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np

COLORS = {"CLAUDE": "#d97706", "CHATGPT": "#10a37f", "GEMINI": "#4285f4", "OTHER": "#9e9e9e"}
PROBE_COLORS = {"style": "#7c3aed", "style_full": "#c084fc", "style_model": "#db2777", "default_model": "#f9a8d4",
                "content": "#64748b"}
PROBE_NAMES = {"style": "style (41 features)", "style_full": "style (full features)",
               "style_model": "StyleModel (refit)", "default_model": "default model (shipped)",
               "content": "content (MiniLM)"}
MARKERS = {"blog": "o", "debate": "s", "fiction": "^", "longform": "D"}
DPI = 90


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False,
                         "svg.hashsalt": "whowrote", "figure.dpi": DPI})
    return plt


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight", metadata={"Software": None})
    _plt().close(fig)
    return buf.getvalue()


def maps(panels: dict[str, np.ndarray], y: np.ndarray, genres: np.ndarray, method: str,
         scores: dict[str, float]) -> bytes:
    """Side-by-side 2-D maps (one per space), coloured by provider, marker by genre."""
    plt = _plt()
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.6))
    axes = np.atleast_1d(axes)
    for ax, (name, Z) in zip(axes, panels.items(), strict=True):
        for p in [c for c in COLORS if c in set(y.tolist())]:
            for g in sorted(set(genres.tolist())):
                m = (y == p) & (genres == g)
                if m.any():
                    ax.scatter(Z[m, 0], Z[m, 1], s=9, alpha=0.65, c=COLORS[p], marker=MARKERS.get(g, "o"),
                               linewidths=0)
        ax.set_title(f"{name} space ({method.upper()}) — 5-NN in 2-D: {scores.get(name, 0):.2f}")
        ax.set_xticks([])
        ax.set_yticks([])
    handles = [plt.Line2D([], [], ls="", marker="o", color=COLORS[p], label=p) for p in COLORS if p in set(y.tolist())]
    handles += [plt.Line2D([], [], ls="", marker=MARKERS.get(g, "o"), color="#333", label=g, markerfacecolor="none")
                for g in sorted(set(genres.tolist()))]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False, bbox_to_anchor=(0.5, -0.04))
    return _png(fig)


def accuracy_bars(results: dict[str, dict[str, dict]], splits: Sequence[str]) -> bytes:
    """Grouped bars: accuracy per split for each probe, with each split's chance level."""
    plt = _plt()
    probes = [p for p in PROBE_NAMES if p in results]
    fig, ax = plt.subplots(figsize=(max(6.0, (0.3 * len(probes) + 0.4) * len(splits) + 1.5), 3.4))
    width = 0.8 / max(len(probes), 1)
    x = np.arange(len(splits))
    for i, p in enumerate(probes):
        vals = [results[p].get(s, {}).get("accuracy", np.nan) for s in splits]
        bars = ax.bar(x + (i - (len(probes) - 1) / 2) * width, vals, width, color=PROBE_COLORS[p],
                      label=PROBE_NAMES[p])
        for b, v in zip(bars, vals, strict=True):
            if not np.isnan(v):
                ax.text(b.get_x() + b.get_width() / 2, v + 0.01, f"{v:.2f}", ha="center", fontsize=6)
    for j, s in enumerate(splits):
        ch = next((results[p][s]["chance"] for p in probes if s in results[p]), None)
        if ch:
            ax.hlines(ch, j - 0.45, j + 0.45, colors="k", linestyles="dashed", linewidth=0.8)
    ax.set_xticks(x, splits)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("accuracy")
    ax.legend(loc="upper center", ncol=len(probes), frameon=False, bbox_to_anchor=(0.5, -0.09), fontsize=8)
    ax.set_title("held-out accuracy (dashed: chance = 1 / number of providers in the test set)", fontsize=9)
    return _png(fig)


def confusions(mats: dict[str, dict]) -> bytes:
    """Row-normalised confusion matrices, one panel per ``{title: metrics}``."""
    plt = _plt()
    fig, axes = plt.subplots(1, len(mats), figsize=(3.4 * len(mats), 3.2))
    axes = np.atleast_1d(axes)
    for ax, (title, m) in zip(axes, mats.items(), strict=True):
        cm = np.asarray(m["confusion"], dtype=float)
        norm = cm / np.maximum(cm.sum(axis=1, keepdims=True), 1)
        ax.imshow(norm, cmap="Blues", vmin=0, vmax=1)
        labels = m["labels"]
        for i in range(len(labels)):
            for j in range(len(labels)):
                ax.text(j, i, f"{int(cm[i, j])}", ha="center", va="center", fontsize=8,
                        color="white" if norm[i, j] > 0.6 else "black")
        ax.set_xticks(range(len(labels)), [lab[:6] for lab in labels], rotation=30)
        ax.set_yticks(range(len(labels)), [lab[:6] for lab in labels])
        ax.set_title(f"{title}\nacc {m['accuracy']:.3f}", fontsize=9)
        ax.set_xlabel("predicted")
    axes[0].set_ylabel("gold")
    return _png(fig)


def signatures(top: dict[str, list[tuple[str, float]]]) -> bytes:
    """Horizontal bars of each provider's top positive standardized coefficients."""
    plt = _plt()
    provs = list(top)
    fig, axes = plt.subplots(1, len(provs), figsize=(3.3 * len(provs), 3.0))
    axes = np.atleast_1d(axes)
    for ax, p in zip(axes, provs, strict=True):
        items = top[p][::-1]
        ax.barh([n for n, _ in items], [v for _, v in items], color=COLORS.get(p, "#777"))
        ax.set_title(p, color=COLORS.get(p, "#333"), fontweight="bold")
        ax.tick_params(axis="y", labelsize=7.5)
        ax.set_xlabel("coefficient (scaled)")
    fig.tight_layout()
    return _png(fig)


def length_curve(curve: dict) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.2, 3.3))
    xs = curve["lengths"]
    for p, accs in curve["accuracy"].items():
        ax.plot(xs, [accs[str(n)] for n in xs], marker="o", ms=3.5, color=PROBE_COLORS.get(p, "#333"),
                label=PROBE_NAMES.get(p, p))
    ax.set_xscale("log")
    ax.set_xticks(xs, [str(n) for n in xs])
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("words kept (prefix)")
    ax.set_ylabel("accuracy")
    ax.legend(frameon=False, fontsize=8)
    ax.grid(alpha=0.3)
    return _png(fig)


def heatmap(rows: Sequence[str], cols: Sequence[str], values: np.ndarray, title: str,
            cmap: str = "RdYlGn", vmin: float = 0.0, vmax: float = 1.0, fmt: str = "{:.2f}",
            rotate: int = 30) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(1.6 + 0.8 * len(cols), 1.0 + 0.3 * len(rows)))
    ax.imshow(np.clip(values, vmin, vmax), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(cols)):
            if not np.isnan(values[i, j]):
                strong = abs((values[i, j] - (vmin + vmax) / 2) / ((vmax - vmin) / 2)) > 0.75
                ax.text(j, i, fmt.format(values[i, j]), ha="center", va="center", fontsize=7,
                        color="white" if strong and cmap != "RdYlGn" else "black")
    ax.set_xticks(range(len(cols)), cols, rotation=rotate, ha="right" if rotate else "center", fontsize=7.5)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_title(title, fontsize=9)
    return _png(fig)
