"""What a second tree ensemble would cost predict (issue 17's ``blend_logit`` against issue 11's speed).

``tree_settings.py`` round 7 found that averaging the bundled trees' class scores with those of a
``min_samples_leaf=1000`` ensemble passes the trial rule. Shipping it means walking two ensembles
per text, and issue 11's chat target (1,000 chat answers at >= 2x ``c64209e``'s docs/s) is met by
only 1-2 %. This fits a round's variants (round 7: ``current`` and ``leaf1000``) as the trials do (the outer train part, features
from ``plain_route``'s cache), prints each ensemble's size, and times the one tree step predict runs
(``decision.scores_and_credits``: scores and every class's path credits from one search for the
leaves; since session 33 predict itself sums only the two compared classes' credits) on the
features of N chat answers, the ensembles interleaved, on one pinned core, CPU time; a round's tree-score blends are
walked as the one ensemble a shipped blend would be (``TreeEnsemble.weighted_sum``), and every
ensemble's splits on the (row, tree) paths per text are counted (the credits' work, free of the
machine's noise; the leaves' search costs about the number of splits of all trees)::

    OMP_NUM_THREADS=1 taskset -c 1 python benchmarks/tree_cost.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --out results/tree_settings --texts ../shared/corpus/chat.jsonl --n 2048 --round 7   # and --round 8, 10, 11
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from plain_route import inner_setup
from predict_parts import texts_of
from robustness import corpus_args, timed_log
from tree_settings import BLENDS, ROUNDS, split_settings, with_tree_settings

from whowrote.data.generate.store import atomic_write
from whowrote.style.decision import path_tables, scores_and_credits
from whowrote.style.trees import TreeEnsemble, log_transform


def size(trees: TreeEnsemble) -> dict[str, float]:
    """Trees, nodes, leaves and the mean leaf depth (nodes a row visits, roughly)."""
    n_trees = len(trees.roots)
    leaves = int(trees.is_leaf.sum())
    depth = np.zeros(len(trees.feature), dtype=np.int64)
    for parent in range(len(trees.feature)):  # children always come after their parent
        if not trees.is_leaf[parent]:
            depth[trees.left[parent]] = depth[trees.right[parent]] = depth[parent] + 1
    return {"trees": n_trees, "nodes": len(trees.feature), "leaves": leaves,
            "mean_leaf_depth": float(depth[trees.is_leaf].mean())}


def walk_steps(trees: TreeEnsemble, Z: np.ndarray) -> float:
    """The splits on the (row, tree) paths per row of ``Z``: the terms the path credits sum, and
    what the level walk before session 33 stepped through (it also stepped pairs that waited on a
    leaf for a compaction, so the rounds 7-11 numbers are a little higher than this count)."""
    start, _, _ = path_tables(trees)
    leaves = trees.leaves(Z)
    return float((start.take(leaves + 1) - start.take(leaves)).sum() / len(Z))


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]), "/tmp/whowrote-plain-route")
    ap.add_argument("--texts", type=Path, required=True, help="the texts whose features are walked (chat answers)")
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--round", type=int, default=7, choices=sorted(ROUNDS), help="tree_settings' round whose variants are fitted")
    args = ap.parse_args()
    log = timed_log()
    inn = inner_setup(args, log)
    models = {}
    for v, settings in ROUNDS[args.round].items():
        trees, own = split_settings(settings)
        models[v] = with_tree_settings(inn.fit, **trees)(inn.X, inn.Xa, inn.outer, **own)
    log("fitted " + ", ".join(models))
    trees = {v: m.trees_ for v, m in models.items()}
    for name, other, w, space, base in BLENDS.get(args.round, ()):
        if space == "logit":  # what a shipped blend walks: both ensembles' trees as one
            trees[name] = TreeEnsemble.weighted_sum([(models[other].trees_, w), (models[base].trees_, 1.0 - w)])
    Z = np.ascontiguousarray(log_transform(inn.feat(texts_of(args.texts, args.n))), dtype=np.float64)
    spent: dict[str, list[float]] = {v: [] for v in trees}
    for _ in range(args.repeat):  # interleaved, so a slower spell of the machine hits every one
        for v, t in trees.items():
            t0 = time.process_time()
            scores_and_credits(t, Z)
            spent[v].append(1e6 * (time.process_time() - t0) / len(Z))
    res = {v: {**size(t), "walk_steps_per_text": walk_steps(t, Z),
               "us_per_text_median": float(np.median(spent[v])),
               "us_per_text_all": [round(s, 1) for s in spent[v]]} for v, t in trees.items()}
    for v in trees:  # each repeat's time against current's in the same repeat: the cost check reads the median
        if v != "current" and "current" in trees:
            ratio = np.array(spent[v]) / np.array(spent["current"])
            res[v]["ratio_to_current_median"] = float(np.median(ratio))
            res[v]["ratio_to_current_all"] = [round(float(r), 3) for r in ratio]
    res["texts"], res["n"] = str(args.texts), args.n
    for v in trees:
        log(f"{v}: {res[v]['trees']} trees, {res[v]['leaves']} leaves, mean leaf depth {res[v]['mean_leaf_depth']:.2f}, "
            f"{res[v]['walk_steps_per_text']:.0f} walk steps and {res[v]['us_per_text_median']:.1f} us a text "
            f"(median of {args.repeat})")
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / f"tree_cost_round{args.round}.json", json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
