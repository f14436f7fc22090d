"""On a held-out genre, the LM and the style model on texts by versions seen in training and by versions not seen.

A leave-one-genre-out test mixes two shifts: a new genre, and (for some texts) a model version that
wrote no training text. This splits the held-out texts by whether their ``model`` wrote any row of
the training file, and gives the LM's pass@1, the style model's and the gate's accuracy on each part
(``lm_style_blend.rights``, the same per-text numbers its ``score_file`` averages), with the LM minus
the style model and a 95 % interval from a bootstrap over topics. It is an analysis of session 43–44's
arms, run after their verdicts; no rule reads it.

    python scripts/gpu/seen_versions.py --lm /tmp/s44t/qwen05b/sft_answer_only_arena_aug_nofiction \\
        --style /tmp/s43style/lmtrain_arena_aug_nofiction --test .gguf/logo_fiction/fiction.jsonl.gz \\
        --train .gguf/arena_aug_nofiction/train.jsonl.gz --out results/session44/seen_versions_fiction.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lm_style_blend import paired_diff, rights  # noqa: E402
from style_side_by_side import prompt_units  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from trial_noise import topic_weights  # noqa: E402

from whowrote.data.generate.store import atomic_write  # noqa: E402
from whowrote.style.io import load_model  # noqa: E402
from whowrote.train.data import read_rows  # noqa: E402
from whowrote.types import PROVIDERS, WhowroteError  # noqa: E402


def split_scores(rows: list[dict], right: dict[str, np.ndarray], seen: np.ndarray) -> dict[str, dict]:
    """Accuracies on the texts by seen and by unseen versions, and on all of them."""
    units = prompt_units(rows)
    gold = np.array([r["provider"] for r in rows])
    out = {}
    for part, keep in (("seen", seen), ("unseen", ~seen), ("all", np.ones(len(rows), bool))):
        if not keep.any():
            out[part] = {"n": 0}
            continue
        lm, style = right["lm"][keep], right["style"][keep]
        w = topic_weights(units[keep], 2000, np.random.default_rng(0))
        out[part] = {"n": int(keep.sum()), "lm": float(lm.mean()), "style": float(style.mean()),
                     "gated": float(right["gated"][keep].mean()),
                     "lm_minus_style": paired_diff(lm, style, w),
                     "n_by_provider": {p: int((gold[keep] == p).sum()) for p in PROVIDERS}}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lm", type=Path, required=True, help="the LM's run folder (its eval_k4_GENRE traces)")
    ap.add_argument("--style", required=True, help="the style model fitted on the LM's training rows (a train-probe folder; default: the bundled one)")
    ap.add_argument("--test", type=Path, required=True, help="the held-out genre's file (hold_out_genre.py --out-test)")
    ap.add_argument("--train", type=Path, required=True, help="the training file both sides were fitted on")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    try:
        rows = read_rows(a.test)
        if not rows:
            sys.exit(f"error: {a.test} has no rows")
        genre = rows[0]["genre"]
        traces = a.lm / f"eval_k4_{genre}" / "traces.jsonl"
        trained = {r["model"] for r in read_rows(a.train) if r.get("model")}  # a row without one names no version
        right = rights(load_model(None if a.style == "default" else a.style), rows, traces)
    except (OSError, KeyError, WhowroteError) as e:
        sys.exit(f"error: {e}")
    seen = np.array([r.get("model") in trained for r in rows])
    out = {"command": "scripts/gpu/seen_versions.py", "genre": genre, "test": str(a.test), "train": str(a.train),
           "seen_models": sorted({str(r["model"]) for r, s in zip(rows, seen, strict=True) if s}),
           "scores": split_scores(rows, right, seen)}
    atomic_write(a.out, json.dumps(out, indent=1))
    for part, s in out["scores"].items():
        if s["n"]:
            d = s["lm_minus_style"]
            print(f"{genre} {part:7s} n {s['n']:3d}  LM {s['lm']:.3f}  style {s['style']:.3f}  gate {s['gated']:.3f}"
                  f"  LM - style {d['diff']:+.1f} [{d['lo']:+.1f}, {d['hi']:+.1f}]")


if __name__ == "__main__":
    main()
