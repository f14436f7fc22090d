"""How many labelled texts of a new genre does the bundled recipe need (issue 17)?

Leave-one-genre-out leaves the three assistants at 3-way 0.51-0.84 per genre, against 0.9+ when
the genre was in training. Fifteen changes to the model did not close that gap (their sections
in docs/predict-trials.md), and in blog, chat and debate the held-out assistant texts are by model
versions no other genre has. The question this trial answers is the one a user with their own genre
or model generation has: how many of their own labelled texts (``whowrote train-probe`` on the corpus
plus theirs) close how much of the gap? Nothing is adopted from it; the bundled model is unchanged.

For each genre G: G's topics are split in two (``topic_holdout_split(G, val_frac=0.5)``, no topic in
both halves). The *pool* half lends labelled texts, the *test* half is scored. For n in N, the
bundled recipe (``fit_augmented``: the canonical features plus one edited copy per text at weight
0.5, LR + 300 rounds of 15-leaf trees, seed 0, as train-probe) is fitted on the other four genres
plus n texts drawn from the pool, the same number per provider of the pool where there are enough
(seeded); "all" adds the whole pool (the in-genre ceiling of this split; also what an n larger than
the pool gets). n = 0 is plain LOGO on the test half. Reported: 4-way accuracy, 3-way accuracy on the assistants' texts (the argmax over
them) and OTHER-vs-three AUROC, on the same test texts for every n.

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/few_shot_genre.py \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/few_shot_genre \\
        [--by generation]

``--by generation`` asks the same of model drift: train on one generation of models
(``whowrote.data.generations``: 2025-26 or 2023-24; its texts on the test topics dropped), lend texts
of the other from one half of its topics, score the other half.

Features and fits are cached with genre_jackknife's (``--cache``, ``--features-cache``; default
/tmp/whowrote-jackknife), each fit under its own tag (``fs<n>-<held out>-``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from genre_jackknife import CACHE, auroc, fit_subset, trial_inputs, write_trial

from whowrote.data.generations import NEW, OLD, generation
from whowrote.data.splits import topic_holdout_split, topic_keys
from whowrote.types import LABELS, OTHER

SHOTS = (0, 25, 100, 400)
OTHER_I = LABELS.index(OTHER)


def draw(pool: np.ndarray, y: np.ndarray, n: int, seed: int) -> np.ndarray:
    """``n`` rows of ``pool`` (corpus row numbers), as equal per label of ``y[pool]`` as the pool allows
    (a label short of its share gives its remainder to the others), in a seeded order."""
    rng = np.random.default_rng(seed)
    by = {k: rng.permutation(pool[y[pool] == k]) for k in np.unique(y[pool])}
    take = dict.fromkeys(by, 0)
    left = min(n, len(pool))
    while left:  # one more for each label that still has texts, until n are taken
        open_ = [k for k in by if take[k] < len(by[k])]
        for k in open_[:left]:
            take[k] += 1
        left -= len(open_[:left])
    return np.sort(np.concatenate([by[k][:take[k]] for k in by]))


def scores(P: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """4-way accuracy, 3-way accuracy on the assistants' rows, OTHER AUROC (``None`` without both sides)."""
    a = y != OTHER_I
    three = P[a][:, :OTHER_I].argmax(axis=1)
    return {"n": int(len(y)), "accuracy": float((P.argmax(axis=1) == y).mean()),
            "accuracy_3way": float((three == y[a]).mean()) if a.any() else None,
            "other_auroc": auroc(~a, P[:, OTHER_I]) if a.any() and (~a).any() else None}


def halves(held: np.ndarray, base: np.ndarray, corpus, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(pool, test, base)``: the ``held`` rows (a mask) split in two by topic (corpus row numbers), and
    ``base`` (a mask) without the rows on the test half's topics."""
    rows = corpus.assign(row_idx=np.arange(len(corpus)))[held]
    split = topic_holdout_split(rows, seed=seed, val_frac=0.5, balance=False)
    pool, test = np.sort(split["train"]["row_idx"].to_numpy()), np.sort(split["val"]["row_idx"].to_numpy())
    return pool, test, base & ~np.isin(topic_keys(corpus).to_numpy(), topic_keys(corpus.iloc[test]).to_numpy())


def fold(name: str, held: np.ndarray, base: np.ndarray, genres: list[str], corpus, X: np.ndarray,
         Xa: np.ndarray, yi: np.ndarray, args, log) -> dict:
    """Every n of ``SHOTS`` (and "all") for the ``held`` rows (a mask: a genre or a generation), scored
    on the test half of their topics; ``base`` (a mask) is what is trained on without them."""
    pool, test, base = halves(held, base, corpus, args.seed)
    out: dict[str, Any] = {"pool": int(len(pool)), "test": int(len(test)), "shots": {}}
    for n in [*(s for s in SHOTS if s < len(pool)), "all"]:
        among = base.copy()
        if n != 0:
            among[pool if n == "all" else draw(pool, yi, int(n), args.seed)] = True
        P = fit_subset(tuple(genres), corpus, X, Xa, args.seed, args.cache, log, among, f"fs{n}-{name}-")[0]
        out["shots"][str(n)] = scores(P[test], yi[test])
        r = out["shots"][str(n)]
        log(f"{name} + {n} texts: 4-way {r['accuracy']:.3f}, 3-way {r['accuracy_3way']}")
    for n in SHOTS:  # a pool smaller than n lends all it has: that is the "all" fit
        if n >= len(pool):
            out["shots"][str(n)] = {**out["shots"]["all"], "capped_at_pool": True}
    return out


def table(res: dict[str, Any]) -> str:
    """Markdown table of a results file: 3-way (4-way) accuracy per genre and n."""
    cols = [*(str(s) for s in SHOTS), "all"]
    lines = ["| held out (pool / test texts) | " + " | ".join(f"+ {c} texts" for c in cols) + " |",
             "|---|" + "---:|" * len(cols)]
    for g, f in res["outer"].items():
        cells = []
        for c in cols:
            r = f["shots"].get(c)
            cells.append("—" if r is None else f"{r['accuracy_3way']:.3f} ({r['accuracy']:.3f})"
                         + (" ¹" if r.get("capped_at_pool") else ""))
        lines.append(f"| {g} ({f['pool']:,} / {f['test']:,}) | " + " | ".join(cells) + " |")
    means = []
    for c in cols:
        v = [f["shots"][c]["accuracy_3way"] for f in res["outer"].values() if c in f["shots"]]
        means.append(f"{np.mean(v):.3f} ({len(v)})" if v else "—")
    lines.append("| mean 3-way | " + " | ".join(means) + " |")
    if any(r.get("capped_at_pool") for f in res["outer"].values() for r in f["shots"].values()):
        lines += ["", "¹ the pool holds fewer texts than n: all of them are lent (the \"all\" fit)."]
    lines += ["", "OTHER-vs-three AUROC:", "", "| held out | " + " | ".join(f"+ {c}" for c in cols) + " |",
              "|---|" + "---:|" * len(cols)]
    for g, f in res["outer"].items():
        cells = [("—" if (r := f["shots"].get(c)) is None or r["other_auroc"] is None else f"{r['other_auroc']:.3f}")
                 for c in cols]
        if any(x != "—" for x in cells):
            lines.append(f"| {g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def figure(res: dict[str, Any], path: Path) -> None:
    """3-way and 4-way accuracy against the texts lent, one line per held-out genre."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = [*(str(s) for s in SHOTS), "all"]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    for ax, key, title in ((axes[0], "accuracy_3way", "3-way (the three assistants' texts)"),
                           (axes[1], "accuracy", "4-way (every text)")):
        for g, f in res["outer"].items():
            ax.plot(range(len(cols)), [f["shots"][c][key] for c in cols], marker="o", label=g)
        ax.set_xticks(range(len(cols)), [f"+{c}" for c in cols])
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(f"labelled texts of the held-out {res.get('by', 'genre')} added to training")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("accuracy on its other topics")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def by_option(ap) -> None:
    ap.add_argument("--by", choices=("genre", "generation"), default="genre",
                    help="hold out each genre, or each model generation (2023-24, 2025-26)")


def held_out_folds(fold_fn, inputs) -> dict[str, dict]:
    """``fold_fn(name, held, base, genres, corpus, X, Xa, yi, args, log)`` for each genre held out (trained
    on the others), or with ``--by generation`` each generation held out (trained on the other)."""
    args, log, corpus, genres, _, X, Xa, yi = inputs
    if args.by == "genre":
        g_of = corpus["genre"].to_numpy(object)
        return {G: fold_fn(G, g_of == G, g_of != G, genres, corpus, X, Xa, yi, args, log) for G in genres}
    # train on one generation (its rows on the test topics dropped), take texts of the other
    gen = np.array([generation(m, p, g) for m, p, g in zip(corpus["model"], corpus["provider"], corpus["genre"],
                                                           strict=True)])
    return {f"{src} -> {dst}": fold_fn(dst, gen == dst, gen == src, genres, corpus, X, Xa, yi, args, log)
            for src, dst in ((NEW, OLD), (OLD, NEW))}


def trial_result(trial: str, inputs, folds: dict[str, dict], **fields: Any) -> tuple[dict[str, Any], str]:
    """``(res, stem)``: the results record of ``trial`` (``few_shot``, ``self_train``) and the stem its
    files are written under (``<trial>_genre`` or ``<trial>_generation``, after ``--by``)."""
    args, _, corpus, genres, fkey = inputs[:5]
    stem = f"{trial}_{args.by}"
    return {"command": f"benchmarks/{trial}_genre.py --by {args.by}", "by": args.by, "seed": args.seed,
            "n_texts": len(corpus), "genres": genres, "features_key": fkey, **fields, "outer": folds}, stem


def main() -> None:
    if (inputs := trial_inputs(__doc__, CACHE, table, by_option)) is None:
        return
    args, log = inputs[:2]
    res, stem = trial_result("few_shot", inputs, held_out_folds(fold, inputs), shots=list(SHOTS))
    write_trial(args, log, res, table, (), stem)
    figure(res, args.out / f"{stem}.png")


if __name__ == "__main__":
    main()
