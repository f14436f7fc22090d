"""How large is the noise under the inner-split trials' rule? A paired topic bootstrap (issue 17).

Every issue-17 trial since ``plain_route`` is judged by one rule with steps of 0.5 to 2 points: the
LOGO 3-way mean up by >= 1, no edit's drop up by > 0.5, raw down by <= 0.5 (``copy_types.GAIN``,
``plain_route.SLACK``, ``copy_types.GENRE_SLACK``). Those steps are differences of two fits scored
on the same texts. This asks how far such a difference moves when the texts are drawn again: it
resamples whole topics (texts of one topic share their content, so they are not independent) with
replacement, the same topics for both fits, and recomputes every quantity the rule reads:

- ``raw``: inner val 4-way accuracy, variant minus ``current``;
- ``drop <edit>``: the edit's drop (raw minus edited, inner 4-way), variant minus ``current`` (the
  rule's "no drop grows by more than 0.5");
- ``LOGO 3-way mean``: each held-out genre's assistant texts resampled by topic on their own, the
  mean over genres of variant minus ``current``; and each genre's own difference.

It reads the per-text file that ``tree_settings.py`` writes beside each round's results::

    python benchmarks/trial_noise.py results/tree_settings/round3_rows.npz --out results/tree_settings/round3_noise.json

and prints, per variant and quantity, the measured difference and its 95 % bootstrap interval
(percentiles of 2,000 resamples, seed 0), in points.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from whowrote.data.generate.store import atomic_write

QUANTILES = (2.5, 97.5)


def topic_weights(topics: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """``(n_boot, len(topics))`` weights: how often each text's topic was drawn in each resample."""
    uniq, idx = np.unique(topics, return_inverse=True)
    counts = rng.multinomial(len(uniq), np.full(len(uniq), 1 / len(uniq)), size=n_boot)  # per topic
    return counts[:, idx].astype(float)


def weighted_mean(correct: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Accuracy of a right/wrong vector under each row of weights (the full sample: all ones)."""
    return (w @ correct.astype(float)) / w.sum(axis=1)


def interval(point: float, boot: np.ndarray) -> dict[str, float]:
    lo, hi = np.percentile(boot, QUANTILES)
    return {"diff": round(100 * point, 2), "lo": round(100 * float(lo), 2), "hi": round(100 * float(hi), 2),
            "sd": round(100 * float(boot.std()), 2)}


def inner_diff(rows: dict[str, np.ndarray], v: str, edit: str | None, w: np.ndarray) -> np.ndarray:
    """Variant ``v`` minus ``current`` under each row of weights: raw accuracy (``edit`` None), else
    the edit's drop (raw minus edited accuracy)."""
    def value(var: str) -> np.ndarray:
        raw = weighted_mean(rows[f"inner|{var}|raw"], w)
        return raw if edit is None else raw - weighted_mean(rows[f"inner|{var}|{edit}"], w)
    return value(v) - value("current")


def noise(rows: dict[str, np.ndarray], n_boot: int = 2000, seed: int = 0) -> dict:
    """Per variant other than ``current``: each rule quantity's difference and bootstrap interval.

    The intervals resample texts with the fits held fixed: they leave out how much a refit (another
    fold assignment, another seed) would move a difference, so they are a lower bound on the noise."""
    rng = np.random.default_rng(seed)
    keys = [k.split("|") for k in rows if k.startswith("inner|")]
    variants = sorted({v for _, v, _ in keys} - {"current"})
    edits = sorted({e for _, _, e in keys} - {"raw"})
    genres = sorted(k.split("|")[1] for k in rows if k.startswith("logo_topic|"))
    if not variants or "inner_topic" not in rows or not any(k.startswith("inner|current|") for k in rows):
        raise ValueError("no per-text rows of a variant and of current in this file")
    w_in = topic_weights(rows["inner_topic"], n_boot, rng)
    w_logo = {g: topic_weights(rows[f"logo_topic|{g}"], n_boot, rng) for g in genres}
    one_in = np.ones((1, len(rows["inner_topic"])))
    out: dict = {}
    for v in variants:
        res = {"raw": interval(float(inner_diff(rows, v, None, one_in)[0]), inner_diff(rows, v, None, w_in))}
        for e in edits:
            res[f"drop {e}"] = interval(float(inner_diff(rows, v, e, one_in)[0]), inner_diff(rows, v, e, w_in))
        per_genre, points, boots = {}, [], []
        for g in genres:
            a, b = rows[f"logo|{g}|{v}"], rows[f"logo|{g}|current"]
            boot = weighted_mean(a, w_logo[g]) - weighted_mean(b, w_logo[g])
            points.append(float(a.mean() - b.mean()))
            per_genre[g] = interval(points[-1], boot)
            boots.append(boot)
        if genres:
            res["LOGO 3-way mean"] = interval(float(np.mean(points)), np.mean(boots, axis=0))
        res.update({f"LOGO 3-way {g}": per_genre[g] for g in genres})
        out[v] = res
    return {"n_boot": n_boot, "seed": seed, "n_inner": len(rows["inner_topic"]),
            "n_inner_topics": int(len(np.unique(rows["inner_topic"]))),
            "n_logo": {g: len(rows[f"logo_topic|{g}"]) for g in genres}, "variants": out}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows", type=Path, help="a round's per-text file (tree_settings.py's roundN_rows.npz)")
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, help="write the intervals here (JSON)")
    args = ap.parse_args(argv)
    if args.n_boot < 100:
        print("error: --n-boot must be at least 100", file=sys.stderr)
        return 2
    try:
        with np.load(args.rows, allow_pickle=False) as f:
            rows = {k: f[k] for k in f.files}
    except (OSError, ValueError) as e:
        print(f"error: {args.rows}: not a readable per-text file ({e})", file=sys.stderr)
        return 2
    try:
        res = noise(rows, args.n_boot, args.seed)
    except (KeyError, ValueError) as e:
        print(f"error: {args.rows}: {e}", file=sys.stderr)
        return 2
    for v, qs in res["variants"].items():
        print(f"{v} minus current (points; 95 % topic-bootstrap interval):")
        for q, d in qs.items():
            print(f"  {q:<28} {d['diff']:+6.2f}  [{d['lo']:+6.2f}, {d['hi']:+6.2f}]  sd {d['sd']:.2f}")
    if args.out:
        atomic_write(args.out, json.dumps(res, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
