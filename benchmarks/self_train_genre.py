"""Self-training on a new genre's unlabelled texts (issue 17): do the model's own confident verdicts
on texts of a genre it never saw do what labelled texts of that genre do?

few_shot_genre.py showed that 25-100 *labelled* texts of a held-out genre close most of the
leave-one-genre-out gap (3-way mean 0.745 -> 0.842 -> 0.880). A user with a new genre often has many
texts and no labels. This trial asks whether the labels can come from the model itself (one round of
self-training, the classic transductive recipe): fit without the genre, predict its unlabelled texts,
keep the most confident verdicts, refit with those texts under their predicted labels, and score
texts of the genre on other topics.

Same split as few_shot_genre.py (each held-out genre's topics in two halves, seed 0; the *pool* half
is the unlabelled texts, the *test* half is scored; the training genres' texts on the test topics are
dropped when holding out a generation). For n in N and each variant, n pool texts are pseudo-labelled:
the most confident verdicts of the LOGO fit (its top probability), the same number per predicted
label where the pool has enough:

- ``four``: the 4-way verdict (OTHER included) is the label;
- ``three``: only texts whose verdict is one of the three assistants, labelled with it (the LOGO
  fit's OTHER is near chance across genres, AUROC ~0.55, so its OTHER verdicts may only add noise).

Reported per fold: 4-way / 3-way accuracy and OTHER AUROC on the test half, and the accuracy of the
pseudo-labels themselves against the true ones. The fits are the bundled recipe (``fit_augmented``,
seed 0) as in few_shot_genre.py, cached there too (tag ``st<variant><n>-<held out>-``).

Rule, fixed before the first run: adopt self-training as a documented recipe only if one (variant,
n) raises the 3-way mean over the five genres by >= 0.03 over LOGO (n = 0) and lowers no genre's 3-way
by more than 0.01. The bundled model is not changed by this trial either way.

    OMP_NUM_THREADS=2 python benchmarks/self_train_genre.py \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/self_train_genre \\
        [--by generation]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from few_shot_genre import by_option, halves, held_out_folds, scores, trial_result
from genre_jackknife import CACHE, fit_subset, trial_inputs, write_trial

from whowrote.types import LABELS, OTHER

SIZES = (100, 400)
VARIANTS = ("four", "three")
OTHER_I = LABELS.index(OTHER)
MIN_GAIN, MAX_DROP = 0.03, 0.01


def confident_draw(pool: np.ndarray, pred: np.ndarray, conf: np.ndarray, n: int) -> np.ndarray:
    """Up to ``n`` rows of ``pool`` (positions into ``pred``/``conf``, which are per pool row), the most
    confident first within each predicted label, as equal per label as the pool allows (a label short
    of its share gives the remainder to the others). Returns positions into ``pool``, sorted."""
    by = {k: np.flatnonzero(pred == k)[np.argsort(-conf[pred == k], kind="stable")] for k in np.unique(pred)}
    take = dict.fromkeys(by, 0)
    left = min(n, len(pred))
    while left:
        open_ = [k for k in by if take[k] < len(by[k])]
        if not open_:
            break
        for k in open_[:left]:
            take[k] += 1
        left -= len(open_[:left])
    return np.sort(np.concatenate([by[k][:take[k]] for k in by])) if by else np.array([], int)


def pseudo_labels(P: np.ndarray, variant: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(eligible, label, confidence)`` per row of ``P`` (LABELS columns): ``four`` takes every row
    with its 4-way argmax; ``three`` only rows whose 4-way argmax is an assistant."""
    label = P.argmax(axis=1)
    eligible = np.ones(len(P), bool) if variant == "four" else label != OTHER_I
    return eligible, label, P.max(axis=1)


def fold(name: str, held: np.ndarray, base: np.ndarray, genres: list[str], corpus, X: np.ndarray,
         Xa: np.ndarray, yi: np.ndarray, args, log) -> dict[str, Any]:
    """Each variant and n of ``SIZES`` for the ``held`` rows (a mask: a genre or a generation): the pool
    half pseudo-labelled by the LOGO fit, the test half scored; ``base`` (a mask) is trained on."""
    pool, test, base = halves(held, base, corpus, args.seed)
    # n = 0 is few_shot_genre's fit (same tag, same cache): plain LOGO on the test half
    P0 = fit_subset(tuple(genres), corpus, X, Xa, args.seed, args.cache, log, base, f"fs0-{name}-")[0]
    out: dict[str, Any] = {"pool": int(len(pool)), "test": int(len(test)), "logo": scores(P0[test], yi[test]),
                           "runs": {}}
    for variant in VARIANTS:
        eligible, label, conf = pseudo_labels(P0[pool], variant)
        cand = np.flatnonzero(eligible)
        for n in SIZES:
            pos = cand[confident_draw(cand, label[cand], conf[cand], n)]
            chosen, chosen_label = pool[pos], label[pos]
            relabelled = corpus.copy()
            relabelled.iloc[chosen, relabelled.columns.get_loc("provider")] = [LABELS[k] for k in chosen_label]
            among = base.copy()
            among[chosen] = True
            P = fit_subset(tuple(genres), relabelled, X, Xa, args.seed, args.cache, log, among,
                           f"st{variant}{n}-{name}-")[0]
            r = scores(P[test], yi[test]) | {
                "pseudo_n": int(len(chosen)), "pseudo_accuracy": float((chosen_label == yi[chosen]).mean()),
                "pseudo_labels": {LABELS[k]: int((chosen_label == k).sum()) for k in np.unique(chosen_label)}}
            out["runs"][f"{variant}{n}"] = r
            log(f"{name} {variant} {n}: 3-way {r['accuracy_3way']:.3f} (LOGO {out['logo']['accuracy_3way']:.3f}), "
                f"pseudo-labels {r['pseudo_accuracy']:.3f} right")
    return out


def decide(folds: dict[str, dict]) -> dict[str, Any]:
    """The rule of the docstring, per run name."""
    out = {}
    for run in next(iter(folds.values()))["runs"]:
        gains = [f["runs"][run]["accuracy_3way"] - f["logo"]["accuracy_3way"] for f in folds.values()]
        out[run] = {"mean_gain": float(np.mean(gains)), "worst_gain": float(min(gains)),
                    "adopt": bool(np.mean(gains) >= MIN_GAIN and min(gains) >= -MAX_DROP)}
    return out


def table(res: dict[str, Any]) -> str:
    runs = list(next(iter(res["outer"].values()))["runs"])
    lines = ["| held out (pool / test texts) | LOGO | " + " | ".join(runs) + " |", "|---|" + "---:|" * (len(runs) + 1)]
    for g, f in res["outer"].items():
        cells = [f"{f['runs'][r]['accuracy_3way']:.3f} ({f['runs'][r]['accuracy']:.3f}; labels "
                 f"{f['runs'][r]['pseudo_accuracy']:.2f})" for r in runs]
        lines.append(f"| {g} ({f['pool']:,} / {f['test']:,}) | {f['logo']['accuracy_3way']:.3f} "
                     f"({f['logo']['accuracy']:.3f}) | " + " | ".join(cells) + " |")
    means = [np.mean([f["runs"][r]["accuracy_3way"] for f in res["outer"].values()]) for r in runs]
    logo = np.mean([f["logo"]["accuracy_3way"] for f in res["outer"].values()])
    lines.append(f"| mean 3-way | {logo:.3f} | " + " | ".join(f"{m:.3f}" for m in means)
                 + " |")
    lines += ["", "3-way accuracy on the test half (4-way in brackets; share of the pseudo-labels that are right).",
              "", "decision: " + ", ".join(f"{r} {'adopt' if d['adopt'] else 'not adopted'} (mean {d['mean_gain']:+.3f}, "
                                           f"worst {d['worst_gain']:+.3f})" for r, d in res["decision"].items())]
    return "\n".join(lines)


def figure(res: dict[str, Any], path) -> None:
    """3-way accuracy per held-out fold: LOGO and each self-training run, side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folds = list(res["outer"])
    runs = ["LOGO", *next(iter(res["outer"].values()))["runs"]]
    fig, ax = plt.subplots(figsize=(9, 3.6))
    w = 0.8 / len(runs)
    for i, r in enumerate(runs):
        v = [f["logo"]["accuracy_3way"] if r == "LOGO" else f["runs"][r]["accuracy_3way"]
             for f in res["outer"].values()]
        ax.bar(np.arange(len(folds)) + (i - (len(runs) - 1) / 2) * w, v, w, label=r)
    ax.set_xticks(range(len(folds)), folds)
    ax.set_ylabel("3-way accuracy, test half")
    ax.set_ylim(0.3, 1.1)  # room for the legend above the bars
    ax.set_title(f"self-training on the held-out {res.get('by', 'genre')}'s unlabelled texts", fontsize=10)
    ax.legend(fontsize=8, ncol=len(runs))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    if (inputs := trial_inputs(__doc__, CACHE, table, by_option)) is None:
        return
    args, log = inputs[:2]
    folds = held_out_folds(fold, inputs)
    res, stem = trial_result("self_train", inputs, folds, sizes=list(SIZES), variants=list(VARIANTS))
    res["decision"] = decide(folds)
    write_trial(args, log, res, table, list(res["decision"]), stem)
    figure(res, args.out / f"{stem}.png")


if __name__ == "__main__":
    main()
