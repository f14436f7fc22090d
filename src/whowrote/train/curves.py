"""Curves from ``metrics.jsonl``: a CSV per record kind and one PNG (reward, accuracy, truncation, length).

Train rows come from TRL's logs (``loss``, ``reward``, ``completions/clipped_ratio``,
``completions/mean_length`` ...); eval rows from the periodic eval callback (``accuracy``,
``truncation_rate``, ``completion_tokens`` stats, per-provider recall). After a resume
(``kind=start`` records mark each attempt) the steps the last attempt redid are drawn from it
alone (:func:`latest_attempts`).
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from whowrote.data.readers import iter_json_rows
from whowrote.types import WhowroteError

PANELS = (
    ("reward / loss", [("train", "reward"), ("train", "loss")]),
    ("val accuracy", [("eval", "accuracy"), ("eval", "macro_recall")]),
    ("truncation", [("train", "completions/clipped_ratio"), ("eval", "truncation_rate")]),
    ("completion length (tokens)", [("train", "completions/mean_length"), ("eval", "completion_tokens_mean")]),
)


def load_metrics(path: str | Path, strict: bool = False) -> list[dict[str, Any]]:
    """Every record of ``metrics.jsonl``, in file order (all attempts; see :func:`latest_attempts`).
    ``strict`` (a user's ``train curves``): a missing file, or a step that is not an integer (the
    curves' x axis), is a one-line error instead of no records."""
    p = Path(path)
    if not p.is_file():
        if strict:
            raise WhowroteError(f"{p}: no such file (not a training run folder?)")
        return []
    recs = []
    for lineno, rec in iter_json_rows(p):
        step = rec.get("step")
        if strict and (step is not None or rec.get("kind") in ("train", "eval")) and (
                not isinstance(step, int) or isinstance(step, bool)):
            raise WhowroteError(f"{p}:{lineno}: 'step' must be an integer, got {step!r}")
        recs.append(rec)
    return recs


def latest_attempts(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The run as it finally went: earlier attempts' records that a later attempt redid are dropped.

    Each attempt of a stage begins with a ``kind=start`` record at the step it starts from. A fresh
    start (step 0) redoes the whole stage, so every earlier record of that stage goes; a resume from
    the checkpoint at step ``s`` keeps what was done up to ``s`` (the checkpoint holds it) and drops
    the earlier attempts' records after ``s`` (lost with the crash and logged again). Other stages'
    records, and records without a stage, are kept.
    """
    kept: list[dict[str, Any]] = []
    for rec in records:
        if rec.get("kind") == "start":
            stage, start = rec.get("stage"), _step(rec)
            kept = [r for r in kept
                    if "stage" not in r or r["stage"] != stage or (start > 0 and _step(r) <= start)]
        kept.append(rec)
    return kept


def _step(rec: dict[str, Any]) -> int:
    try:
        return int(rec.get("step", 0))
    except (TypeError, ValueError):
        return 0


def _flat(rec: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in rec.items() if not isinstance(v, dict | list)}
    for key in ("completion_tokens", "reason_words"):  # the harness's {mean, median, ...} stats
        for stat, v in (rec.get(key) if isinstance(rec.get(key), dict) else {}).items():
            out[f"{key}_{stat}"] = v
    for lab, v in (rec.get("per_provider") or {}).items():
        out[f"recall_{lab}"] = v.get("recall")
    for lab, v in (rec.get("pred_share") or {}).items():
        out[f"share_{lab}"] = v
    return out


def write_csv(records: list[dict[str, Any]], path: Path) -> Path | None:
    if not records:
        return None
    rows = [_flat(r) for r in records]
    keys: list[str] = []
    for r in rows:
        keys.extend(k for k in r if k not in keys)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    return path


def write_curves(metrics_path: str | Path, out_dir: str | Path, title: str | None = None) -> list[Path]:
    """Write ``train.csv``, ``eval.csv`` and ``curves.png`` next to the run; returns what was written."""
    recs = latest_attempts(load_metrics(metrics_path, strict=True))  # a resumed run: only what its last attempt redid
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = [p for p in (write_csv([r for r in recs if r.get("kind") == "train"], out / "train.csv"),
                           write_csv([r for r in recs if r.get("kind") == "eval"], out / "eval.csv")) if p]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return written
    # Stages (e.g. cold start's SFT then GRPO) are drawn one after the other on a global step axis.
    offsets: dict[str, int] = {}
    last = 0
    for r in recs:
        stage = r.get("stage", "")
        if stage not in offsets:
            offsets[stage] = last
        last = max(last, offsets[stage] + int(r.get("step", 0)))
    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    for ax, (name, series) in zip(axes.flat, PANELS, strict=True):
        for kind, key in series:
            pts = [(offsets.get(r.get("stage", ""), 0) + r["step"], r[key]) for r in recs
                   if r.get("kind") == kind and isinstance(r.get(key), int | float)]
            if pts:
                xs, ys = zip(*pts, strict=True)
                ax.plot(xs, ys, marker="o" if kind == "eval" else None, ms=3, label=f"{kind}: {key}")
        ax.set_title(name)
        ax.set_xlabel("step")
        if ax.lines:
            ax.legend(fontsize=7)
    fig.suptitle(title or Path(out).name)
    fig.tight_layout()
    png = out / "curves.png"
    fig.savefig(png, dpi=90)
    plt.close(fig)
    return [*written, png]
