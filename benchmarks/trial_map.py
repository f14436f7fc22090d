"""Every issue-17 trial against the bundled recipe, at a glance (reads results only; re-runs nothing).

Several trials share one protocol: an inner topic split of the outer train part (inner train 8,094
texts, inner val 1,469), scored raw and under every edit, and in most of them leave-one-genre-out
(LOGO) on the outer train part, each with the bundled recipe as ``current`` beside its variants.
This script reads those results files (``TRIALS``: the trial, the file and where its variants
live), and for every variant gives the difference from its own trial's ``current``, in points:

  d_raw       raw inner 4-way accuracy (+ = better)
  d_first800  drop under ``first_800_chars`` (raw minus edit; - = the drop shrinks)
  d_md        the worse of the two Markdown drops, ``md_drop`` (- = shrinks)
  d_worst     the worst drop over the edits (- = shrinks)
  d_logo3     mean LOGO 3-way accuracy (+ = better; None where the trial had no LOGO)

A file whose schema does not fit is skipped and listed with the reason (never guessed at);
``NOT_READ`` lists the trials with another protocol. Prints a markdown table, draws
``docs/figures/issue17_trials.png`` and writes ``results/trial_map.json``.

The later trials score five topic folds of the whole outer train part instead (9,563 texts;
``tree_settings`` rounds 5-19, ``subclass_labels``, ``layout_answers``, ``drop_ends_copies`` and ``list_spacing``), each with 95 % paired
topic-bootstrap intervals from ``trial_noise.py``. ``FOLD_TRIALS`` lists their ``round*.json``; for
every variant the map reads its ``*_noise.json`` (raw, the first-800 drop and the LOGO 3-way mean,
minus ``current``, with intervals) and the round's verdict, prints a second table and draws
``docs/figures/issue17_fold_trials.png``.

    python benchmarks/trial_map.py
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from whowrote.data.generate.store import atomic_write  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

# (trial, results file, where the variants live). "inner": ``inner.<variant>`` holds
# ``plain_route.edit_scores`` output (edits, drops, worst_drop, md_drop); the LOGO means are
# ``logo.mean_3way.<variant>`` (a float) or ``logo.mean.<variant>.accuracy_3way``.
# "results": ``results.<variant>`` holds edits, drops and worst_drop; md_drop is not stored and is
# recomputed as edit_scores does (max of the strip_markdown and markdown_html drops); no LOGO.
TRIALS: list[tuple[str, str, str]] = [
    ("augmentation_mix r1", "results/augmentation_mix/round1.json", "results"),
    ("augmentation_mix r2", "results/augmentation_mix/round2.json", "results"),
    ("plain_route", "results/plain_route/plain_route_logo.json", "inner"),
    ("plain_route html", "results/plain_route/plain_route_html.json", "inner"),
    ("markup_blind", "results/markup_blind/markup_blind_blend.json", "inner"),
    ("length_route", "results/length_route/length_route_logo.json", "inner"),
    ("genre_route", "results/genre_route/genre_route_logo.json", "inner"),
    ("distance_gate", "results/distance_gate/distance_gate.json", "inner"),
    ("copy_types r1", "results/copy_types/copy_types.json", "inner"),
    ("copy_types r2", "results/copy_types/copy_types_round2.json", "inner"),
    ("windows", "results/windows/windows.json", "inner"),
    ("tree_settings r1", "results/tree_settings/round1.json", "inner"),
    ("tree_settings r2", "results/tree_settings/round2.json", "inner"),
    ("tree_settings r3", "results/tree_settings/round3.json", "inner"),
]

# The five-topic-fold trials (label, round file); a round's ``*_noise.json`` sits beside it. Rounds
# not listed: 16, 18 and 20 were not run (each needed an earlier pass); subclass_labels round 1 is
# repeated to the digit by round 2.
FOLD_TRIALS: list[tuple[str, str]] = [
    *[(f"tree_settings r{r}", f"results/tree_settings/round{r}.json") for r in (5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 19)],
    ("subclass_labels r2", "results/subclass_labels/round2.json"),
    ("subclass_labels r3", "results/subclass_labels/round3.json"),
    ("layout_answers r1", "results/layout_answers/round1.json"),
    ("drop_ends_copies r1", "results/drop_ends_copies/round1.json"),
    ("list_spacing r1", "results/list_spacing/round1.json"),
]
WITH_ANSWERS = ("subclass_labels", "layout_answers", "drop_ends_copies", "list_spacing")  # trials whose every fit adds the Arena-Hard answers
FOLD_KEYS = {"raw": "raw", "first800": "drop first_800_chars", "logo3": "LOGO 3-way mean"}
WINDOW = (-5.0, 6.5)  # the fold figure's LOGO axis (points); a variant outside it is named in the caption

# Trials whose results are not read here, and why.
NOT_READ: list[tuple[str, str]] = [
    ("plain_route (plain_route.json)", "the same inner numbers as plain_route_logo.json, which adds LOGO"),
    ("markup_blind (markup_blind.json)", "current and blind repeated, same numbers, in markup_blind_blend.json"),
    ("invariant_features, lexical_features", "outer topic hold-out and LOGO against `bundled`; no inner split"),
    ("list_markers", "outer topic hold-out (1,602 texts) and LOGO via robustness.py; no inner split"),
    ("three_way_logo, genre_normalise, tree_capacity", "LOGO / topic hold-out only: no edits, no `current`"),
    ("genre_jackknife, genre_novelty, calibration_weights, edit_agreement",
     "calibration / error-signal trials: ECE, AUROC, selective accuracy; no accuracy variants"),
    ("few_shot_genre, self_train_genre, prior_shift", "per-genre adaptation curves on the outer split"),
    ("neural_logo, conversation, other_distance", "other questions; no `current` on the inner split"),
    ("external_training, story_training, debate_training, paragraph_trial, debate_layout_trial, persuasion_training",
     "outer topic hold-out, LOGO and out-of-corpus sets against `bundled`; no inner split"),
]

KEYS = ("d_raw", "d_first800", "d_md", "d_worst", "d_logo3")


class SchemaError(ValueError):
    """The file does not carry what the map needs (the message says what is missing)."""


def edit_summary(v: dict[str, Any]) -> dict[str, float]:
    """Raw accuracy and the three drops of one variant's inner scores."""
    try:
        drops = v["drops"]
        md = v["md_drop"] if "md_drop" in v else max(drops["strip_markdown"], drops["markdown_html"])
        return {"raw": v["edits"]["raw"]["accuracy"], "first800": drops["first_800_chars"],
                "md": md, "worst": v["worst_drop"]}
    except (KeyError, TypeError) as e:
        raise SchemaError(f"inner scores lack {e}") from None


def logo_means(data: dict[str, Any]) -> dict[str, float] | None:
    """Mean LOGO 3-way accuracy per variant, or None when the file has no LOGO."""
    logo = data.get("logo")
    if logo is None:
        return None
    try:
        if "mean_3way" in logo:
            means = {k: float(m) for k, m in logo["mean_3way"].items()}
        elif "mean" in logo:
            means = {k: float(m["accuracy_3way"]) for k, m in logo["mean"].items()}
        else:
            raise SchemaError("logo has neither mean_3way nor mean")
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise SchemaError(f"unreadable LOGO means ({type(e).__name__}: {e})") from None
    if "current" not in means:
        raise SchemaError("the LOGO means have no `current`")
    return means


def variants_of(data: dict[str, Any], where: str) -> dict[str, dict[str, Any]]:
    """The variants' inner scores, from ``data[where]``; it must hold ``current``."""
    variants = data.get(where)
    if not isinstance(variants, dict):
        raise SchemaError(f"no `{where}` object")
    if "current" not in variants:
        raise SchemaError(f"`{where}` has no `current` baseline")
    if data.get("n_val") != 1469:
        raise SchemaError(f"n_val {data.get('n_val')} is not the shared inner split's 1,469")
    return variants


def deltas(var: dict[str, float], base: dict[str, float], logo: float | None,
           logo_base: float | None) -> dict[str, float | None]:
    """Variant minus ``current``, in points."""
    d = {f"d_{k}": 100 * (var[k] - base[k]) for k in ("raw", "first800", "md", "worst")}
    d["d_logo3"] = None if logo is None or logo_base is None else 100 * (logo - logo_base)
    return d


def extract(trial: str, path: Path, where: str) -> list[dict[str, Any]]:
    """One row per non-current variant of a trial (raises SchemaError if the file does not fit)."""
    if not path.exists():
        raise SchemaError("file not found")
    data = json.loads(path.read_text())
    if not isinstance(data, dict):
        raise SchemaError("not a JSON object")
    variants = variants_of(data, where)
    logo = logo_means(data)
    base = edit_summary(variants["current"])
    rows = []
    for name, v in variants.items():
        if name == "current":
            continue
        if logo is not None and name not in logo:
            raise SchemaError(f"variant {name!r} missing from the LOGO means")
        d = deltas(edit_summary(v), base, None if logo is None else logo[name],
                   None if logo is None else logo["current"])
        rows.append({"trial": trial, "variant": name, **d})
    return rows


def collect(trials: list[tuple[str, str, str]], root: Path) -> tuple[list[dict], list[dict]]:
    """Rows of every fitting trial, and the skipped ones with their reasons."""
    rows: list[dict] = []
    skipped: list[dict] = []
    for trial, rel, where in trials:
        try:
            rows += extract(trial, root / rel, where)
        except (SchemaError, json.JSONDecodeError) as e:
            skipped.append({"trial": trial, "path": rel, "reason": str(e)})
    return rows, skipped


def fold_rows(trials: list[tuple[str, str]], root: Path) -> tuple[list[dict], list[dict]]:
    """Per variant of every five-fold round: its differences from ``current`` with 95 % intervals
    (``[diff, lo, hi]`` in points) and whether the round's rule adopted it; skipped files with reasons.
    A variant that a later round repeats to the digit (the same fits, e.g. ``leaf1000`` in rounds 5-7)
    is listed once, under its first round."""
    rows: list[dict] = []
    skipped: list[dict] = []
    seen: set[str] = set()
    for trial, rel in trials:
        path = root / rel
        noise_path = path.with_name(path.stem + "_noise.json")
        try:
            if not path.exists() or not noise_path.exists():
                raise SchemaError("round or noise file not found")
            decision = json.loads(path.read_text()).get("decision", {})
            noise = json.loads(noise_path.read_text())
            if noise.get("n_inner") != 9563:
                raise SchemaError(f"n_inner {noise.get('n_inner')} is not the outer train part's 9,563")
            for name, v in noise["variants"].items():
                got = {k: [v[key]["diff"], v[key]["lo"], v[key]["hi"]] for k, key in FOLD_KEYS.items()}
                same = json.dumps([name, got])
                if same in seen:
                    continue
                seen.add(same)
                rows.append({"trial": trial, "variant": name, **got,
                             "adopted": bool(decision.get(name, {}).get("adopt", False))})
        except (SchemaError, json.JSONDecodeError, KeyError, TypeError, AttributeError) as e:
            skipped.append({"trial": trial, "path": rel, "reason": f"{type(e).__name__}: {e}"})
    return rows, skipped


def fold_table(rows: list[dict]) -> str:
    """Markdown table of the five-fold variants (points, 95 % intervals)."""
    lines = ["| trial | variant | Δ raw in-genre 4-way | Δ first-800 drop | Δ LOGO 3-way mean | rule |",
             "|---|---|---:|---:|---:|---|"]
    for r in rows:
        cells = [f"{d:+.2f} [{lo:+.2f}, {hi:+.2f}]" for d, lo, hi in (r[k] for k in FOLD_KEYS)]
        lines.append(f"| {r['trial']} | {r['variant']} | " + " | ".join(cells) + f" | {'passes' if r['adopted'] else 'fails'} |")
    return "\n".join(lines)


def plot_folds(rows: list[dict], out: Path) -> None:
    """Two panels, every five-fold variant with its intervals: Δ LOGO 3-way mean against Δ raw and
    against the first-800 drop's change (sign flipped: up is better); rule passes filled."""
    inside = [WINDOW[0] <= r["logo3"][0] <= WINDOW[1] for r in rows]
    off = [r for r, i in zip(rows, inside, strict=True) if not i]
    rows = [r for r, i in zip(rows, inside, strict=True) if i]
    fig, axes = plt.subplots(1, 2, figsize=(14, 6.5))
    for ax, key, flip, ylabel in ((axes[0], "raw", 1, "Δ raw in-genre 4-way accuracy vs current (points)"),
                                  (axes[1], "first800", -1, "− Δ first_800_chars drop vs current (points; drop shrinks ↑)")):
        ax.axhline(0, color="0.4", lw=0.8)
        ax.axvline(0, color="0.4", lw=0.8)
        for i, r in enumerate(rows):
            x, xlo, xhi = r["logo3"]
            y, ylo, yhi = (flip * v for v in r[key])
            ylo, yhi = min(ylo, yhi), max(ylo, yhi)
            colour = "tab:orange" if r["trial"].startswith(WITH_ANSWERS) else "tab:blue"
            ax.errorbar(x, y, xerr=[[x - xlo], [xhi - x]], yerr=[[y - ylo], [yhi - y]], fmt="o", ms=5,
                        color=colour, mfc=colour if r["adopted"] else "white", elinewidth=0.6, capsize=0, zorder=3)
            label = f"{r['trial'].split()[-1]} {r['variant']}"
            ax.annotate(label, (x, y), xytext=(4, 3 if i % 2 else -9), textcoords="offset points", fontsize=5.5)
        ax.set_xlabel("Δ mean LOGO 3-way accuracy vs current (points, 95 % interval)")
        ax.set_ylabel(ylabel)
        ax.set_xlim(*WINDOW)
        ax.grid(alpha=0.2)
    axes[0].set_title("Across genres vs in-genre (five topic folds, 9,563 texts)")
    axes[1].set_title("Across genres vs the first-800-characters edit")
    handles = [plt.Line2D([], [], marker="o", ls="", color="tab:blue", label="tree_settings (corpus only)"),
               plt.Line2D([], [], marker="o", ls="", color="tab:orange", label="with the Arena-Hard answers"),
               plt.Line2D([], [], marker="o", ls="", color="0.3", mfc="0.3", label="passes its rule"),
               plt.Line2D([], [], marker="o", ls="", color="0.3", mfc="white", label="fails its rule")]
    fig.legend(handles=handles, loc="upper center", ncol=4, fontsize=8)
    fig.text(0.01, 0.01, "Each point: one variant minus its own round's `current` (the bundled recipe); labels: round "
             "and variant. Intervals: paired topic bootstrap (trial_noise.py)."
             + "".join(f" Off the scale: {r['trial']} {r['variant']} (LOGO {r['logo3'][0]:+.1f}, raw {r['raw'][0]:+.1f})."
                       for r in off), fontsize=7, va="bottom")
    fig.tight_layout(rect=(0, 0.04, 1, 0.93))
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=130)
    plt.close(fig)


def fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:+.1f}"


def table(rows: list[dict]) -> str:
    """Markdown table of the deltas (points)."""
    lines = ["| trial | variant | Δ raw inner 4-way | Δ first-800 drop | Δ Markdown drop | Δ worst drop | "
             "Δ LOGO 3-way mean |", "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['trial']} | {r['variant']} | " + " | ".join(fmt(r[k]) for k in KEYS) + " |")
    return "\n".join(lines)


def panel(ax: Any, rows: list[dict], y_of: Any, ylabel: str, styles: dict[str, tuple[str, str]]) -> None:
    """One scatter: x = Δ LOGO 3-way mean, y = y_of(row); the both-better quadrant shaded."""
    xs = [r["d_logo3"] for r in rows]
    ys = [y_of(r) for r in rows]
    span_x = max([abs(x) for x in xs] + [1.0]) * 1.15
    span_y = max([abs(y) for y in ys] + [1.0]) * 1.15
    ax.set_xlim(-span_x, span_x)
    ax.set_ylim(-span_y, span_y)
    ax.axvspan(0, span_x, ymin=0.5, ymax=1.0, color="tab:green", alpha=0.08, lw=0)
    ax.axhline(0, color="0.4", lw=0.8)
    ax.axvline(0, color="0.4", lw=0.8)
    for i, (r, x, y) in enumerate(zip(rows, xs, ys, strict=True)):
        colour, marker = styles[r["trial"]]
        ax.scatter(x, y, color=colour, marker=marker, s=42, label=r["trial"], zorder=3)
        ax.annotate(r["variant"], (x, y), xytext=(4, 3 if i % 2 else -9), textcoords="offset points", fontsize=6)
    ax.set_xlabel("Δ mean LOGO 3-way accuracy vs current (points)")
    ax.set_ylabel(ylabel)
    ax.text(0.98, 0.98, "both better", transform=ax.transAxes, ha="right", va="top", fontsize=7,
            color="tab:green")
    ax.grid(alpha=0.2)


def plot(rows: list[dict], out: Path) -> None:
    """Two panels of the variants with LOGO; those without LOGO are named in a note."""
    with_logo = [r for r in rows if r["d_logo3"] is not None]
    without = [f"{r['trial']}: {r['variant']}" for r in rows if r["d_logo3"] is None]
    trials = list(dict.fromkeys(r["trial"] for r in with_logo))
    cmap = plt.get_cmap("tab10")
    markers = "osD^v<>Ph*X"
    styles = {t: (cmap(i % 10), markers[i % len(markers)]) for i, t in enumerate(trials)}
    fig, axes = plt.subplots(1, 2, figsize=(13, 6))
    panel(axes[0], with_logo, lambda r: r["d_raw"], "Δ raw inner 4-way accuracy vs current (points)", styles)
    panel(axes[1], with_logo, lambda r: -r["d_first800"],
          "− Δ first_800_chars drop vs current (points; drop shrinks ↑)", styles)
    axes[0].set_title("Across genres vs in-genre raw accuracy")
    axes[1].set_title("Across genres vs the first-800-characters edit")
    handles, labels = axes[0].get_legend_handles_labels()
    uniq = dict(zip(labels, handles, strict=True))
    fig.legend(uniq.values(), uniq.keys(), loc="upper center", ncol=min(len(uniq), 5), fontsize=8)
    note = "Each point: one variant minus its own trial's `current` (the bundled recipe), inner split 8,094 / 1,469."
    if without:
        note += "\nNo LOGO, not plotted: " + "; ".join(without)
    fig.text(0.01, 0.01, note, fontsize=7, va="bottom")
    fig.tight_layout(rect=(0, 0.07, 1, 0.9))
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=130)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=ROOT)
    ap.add_argument("--figure", type=Path, default=ROOT / "docs/figures/issue17_trials.png")
    ap.add_argument("--fold-figure", type=Path, default=ROOT / "docs/figures/issue17_fold_trials.png")
    ap.add_argument("--out", type=Path, default=ROOT / "results/trial_map.json")
    args = ap.parse_args()
    rows, skipped = collect(TRIALS, args.root)
    print(table(rows))
    folds, fold_skipped = fold_rows(FOLD_TRIALS, args.root)
    print("\n" + fold_table(folds))
    for s in skipped + fold_skipped:
        print(f"skipped {s['trial']} ({s['path']}): {s['reason']}")
    for t, why in NOT_READ:
        print(f"not read: {t}: {why}")
    plot(rows, args.figure)
    plot_folds(folds, args.fold_figure)
    out = {"units": "points (variant minus its trial's current)", "files": [list(t) for t in TRIALS],
           "rows": rows, "skipped": skipped + fold_skipped,
           "not_read": [{"trial": t, "reason": w} for t, w in NOT_READ],
           "fold_files": [list(t) for t in FOLD_TRIALS],
           "fold_rows": folds}
    atomic_write(args.out, json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.figure}, {args.fold_figure} and {args.out}")


if __name__ == "__main__":
    main()
