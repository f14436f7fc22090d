"""Which edited copies should training add? Candidate mixes compared on an inner split of train.

The outer topic hold-out's val and the leave-one-genre-out genres are already reported, so the mix
is chosen on an *inner* topic split of the outer train part only (``topic_holdout_split(outer
train, seed=100 + seed)``): each candidate fits on the inner train (with one copy per group of its mix for each text, the
edit drawn from the group, by ``whowrote.style.train.copy_features``) and is scored on the inner val,
raw and under every edit of the suite (all inner val texts, no cap).

Rule, fixed before the run: among the mixes whose raw inner accuracy is at most 0.5 points below
the current mix's, pick the smallest worst drop (raw minus the worst edit); ties go to higher raw.

    OMP_NUM_THREADS=1 python benchmarks/augmentation_mix.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/augmentation_mix
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from whowrote.data.splits import topic_holdout_split, topic_keys
from whowrote.style import StyleModel
from whowrote.style.edits import edits
from whowrote.style.heldout import accuracies
from whowrote.style.train import copy_features, fit_augmented, training_corpus

# A mix: one copy per group for each training text (its edit drawn from the group), and its weight.
MIXES = {
    "current": ((("truncated", "plain_text", "combined"),), 0.5),
    "+html": ((("truncated", "plain_text", "markdown_html", "combined"),), 0.5),
    "+chars": ((("truncated", "plain_text", "combined", "first_chars"),), 0.5),
    "+html+chars": ((("truncated", "plain_text", "markdown_html", "combined", "first_chars"),), 0.5),
    # second round (after the first four): a length copy and a format copy per text
    "2 copies, 0.5": ((("truncated", "first_chars"), ("plain_text", "markdown_html", "combined")), 0.5),
    "2 copies, 0.25": ((("truncated", "first_chars"), ("plain_text", "markdown_html", "combined")), 0.25),
}
RAW_SLACK = 0.005


def choose(results: dict) -> str:
    base = results["current"]["edits"]["raw"]["accuracy"]
    ok = {m: r for m, r in results.items() if r["edits"]["raw"]["accuracy"] >= base - RAW_SLACK}
    return min(ok, key=lambda m: (ok[m]["worst_drop"], -ok[m]["edits"]["raw"]["accuracy"]))


def inner_split(paths: list[str], seed: int, inner_seed: int | None = None):
    """The outer topic hold-out's train part (index reset, a ``row`` column numbering it) and its
    inner topic split (seed ``inner_seed``, by default 100 + seed, the split every trial used until
    tree_settings' round 4): (outer, inner train, inner val)."""
    corpus = training_corpus(paths)
    outer = topic_holdout_split(corpus, seed=seed, balance=False)["train"].reset_index(drop=True)
    outer["row"] = range(len(outer))
    inner = topic_holdout_split(outer, seed=100 + seed if inner_seed is None else inner_seed, balance=False)
    return outer, inner["train"], inner["val"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", nargs="+", required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mixes", nargs="+", default=list(MIXES), choices=list(MIXES))
    args = ap.parse_args()
    t0 = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t0:6.0f}s] {msg}", flush=True)

    _, tr, va = inner_split(args.corpus, args.seed)
    log(f"inner split: train {len(tr)}, val {len(va)} ({va['genre'].value_counts().to_dict()})")
    params = {"feature_set": "full", "seed": args.seed, "calibrate": False}
    feat = StyleModel(**params).features
    X = feat(tr["text"].tolist())
    y, yv, gv = tr["provider"], va["provider"].to_numpy(object), va["genre"].to_numpy(object)
    edited = {name: feat([fn(t) for t in va["text"]]) for name, fn in edits(args.seed).items()}
    log("features of the inner train and of the inner val under every edit")
    results = {}
    for mix in args.mixes:
        groups, weight = MIXES[mix]
        Xa = copy_features(feat, tr["text"].tolist(), args.seed, groups)
        m = fit_augmented(X, Xa, y, tr["genre"], topic_keys(tr), aug_weight=weight, **params)
        ed = {name: accuracies(m, Xe, yv) for name, Xe in edited.items()}
        pred = m.predict(edited["raw"])
        per_genre = {str(g): float((pred[gv == g] == yv[gv == g]).mean()) for g in sorted(set(gv.tolist()))}
        raw = ed["raw"]["accuracy"]
        drops = {e: raw - v["accuracy"] for e, v in ed.items() if e != "raw"}
        results[mix] = {"edits": ed, "per_genre_raw": per_genre, "drops": drops, "worst_drop": max(drops.values())}
        log(f"{mix}: raw {raw:.3f} ({', '.join(f'{g} {a:.3f}' for g, a in per_genre.items())}); drops "
            + ", ".join(f"{e} {d * 100:+.1f}" for e, d in drops.items()))
    picked = choose(results) if "current" in results else None
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "augmentation_mix.json").write_text(json.dumps(
        {"n_train": len(tr), "n_val": len(va), "mixes": {m: MIXES[m] for m in args.mixes},
         "results": results, "picked": picked}, indent=1) + "\n")
    log(f"picked: {picked}")


if __name__ == "__main__":
    main()
