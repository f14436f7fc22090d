"""A head for the three assistants only (issue 17): does a model that never learns OTHER tell CLAUDE,
CHATGPT and GEMINI apart better on a genre it never saw?

Hypothesis: the bundled model's 3-way verdict is the argmax of its 4-way probabilities over the three
assistants. OTHER is the class that transfers worst across genres (LOGO OTHER AUROC ~0.55): each
genre's "other" models differ, so a 4-way fit spends trees and weights on boundaries between the
assistants and that genre's open models which need not hold elsewhere. A model fitted on the three
assistants' texts alone puts all of its capacity on the boundaries the 3-way question asks about.

Outer leave-one-genre-out over the five genres. For held-out genre G both contenders fit the
bundled recipe (``fit_augmented``: ``StyleModel(feature_set="full", calibrate=False, seed=0)`` on the
features plus one edited copy per text at weight 0.5, as train-probe) on the other four genres:

- ``four``: on every text (the bundled recipe; its 3-way answer is the argmax over the assistants);
- ``three``: on the CLAUDE, CHATGPT and GEMINI texts only;
- ``blend``: the mean of ``three``'s probabilities and ``four``'s renormalised over the assistants.

Also reported, for ``four``: the held-out texts split by whether their model version (the corpus's
``model`` field) wrote any training text, since a held-out genre's assistant texts are mostly by
versions no other genre has (added after the first run; it changes no fit).

Scored on G's texts by the three assistants: 3-way accuracy and per-provider recall. In-genre
sanity: the same contenders on train-probe's topic hold-out (seed 0).

Decision rule, written here before any result: ``three`` (or ``blend``) becomes the 3-way verdict
of ``predict`` only if (1) its LOGO 3-way mean beats ``four``'s by >= 3 points, (2) no genre loses
more than 2 points, and (3) on the topic hold-out its 3-way accuracy is no more than 1 point below
``four``'s.

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/three_way_logo.py \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/three_way_logo

Features and fits live in genre_jackknife's cache (``--cache``, ``--features-cache``; default
/tmp/whowrote-jackknife): ``four`` is its LOGO and topic fit of the same rows (reused when present),
``three`` is cached beside it with the tag ``three-``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from genre_jackknife import CACHE, fit_subset, trial_inputs, write_trial

from whowrote.data.splits import topic_holdout_split
from whowrote.types import LABELS, OTHER, PROVIDERS

HEADS = ("four", "three", "blend")
GAIN, SLACK, TOPIC_SLACK = 0.03, 0.02, 0.01
OTHER_I = LABELS.index(OTHER)


def three_probs(P: np.ndarray) -> np.ndarray:
    """The assistants' columns of ``P`` (``LABELS`` order), renormalised to sum to 1."""
    Q = P[:, :OTHER_I]
    return Q / np.maximum(Q.sum(axis=1, keepdims=True), 1e-300)


def score(Q: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """3-way accuracy and recall of ``Q`` (assistants' probabilities) on labels ``y`` (< OTHER_I)."""
    pred = Q.argmax(axis=1)  # confusion: true provider -> predicted provider -> texts
    return {"n": int(len(y)), "accuracy_3way": float((pred == y).mean()),
            "recall": {p: float((pred[y == k] == k).mean()) if (y == k).any() else None
                       for k, p in enumerate(PROVIDERS)},
            "confusion": {p: {q: int((pred[y == k] == j).sum()) for j, q in enumerate(PROVIDERS)}
                          for k, p in enumerate(PROVIDERS)}}


def contenders(subset: tuple[str, ...], train: np.ndarray, te: np.ndarray, tag: str, X: np.ndarray,
               Xa: np.ndarray, yi: np.ndarray, corpus, args, log) -> dict[str, Any]:
    """Fit ``four`` and ``three`` on the ``train`` rows (a mask) of the genres in ``subset``
    (genre_jackknife's cached fits: ``four`` is its fit of that subset); score every head on ``te``'s
    assistant texts."""
    te = te[yi[te] != OTHER_I]
    P4 = fit_subset(subset, corpus, X, Xa, args.seed, args.cache, log, train, tag)[0]
    P3 = fit_subset(subset, corpus, X, Xa, args.seed, args.cache, log, train & (yi != OTHER_I), f"three-{tag}")[0]
    Q4, Q3 = three_probs(P4[te]), three_probs(P3[te])
    Qs = {"four": Q4, "three": Q3, "blend": (Q4 + Q3) / 2}
    # the bundled recipe's 3-way accuracy split by whether the text's model version wrote training texts
    rows = train & corpus["genre"].isin(subset).to_numpy()
    seen = corpus["model"].iloc[te].isin(set(corpus["model"][rows])).to_numpy()
    by_version = {k: score(Q4[m], yi[te][m]) if m.any() else None for k, m in (("seen", seen), ("unseen", ~seen))}
    return {h: score(Qs[h], yi[te]) for h in HEADS} | {
        "agree_four_three": float((Q4.argmax(1) == Q3.argmax(1)).mean()), "four_by_version": by_version}


def decide(folds: dict[str, Any], topic: dict[str, Any]) -> dict[str, Any]:
    acc = {h: np.array([f[h]["accuracy_3way"] for f in folds.values()]) for h in HEADS}
    out: dict[str, Any] = {"mean_3way": {h: float(v.mean()) for h, v in acc.items()}}
    for h in ("three", "blend"):
        gain, worst = float(acc[h].mean() - acc["four"].mean()), float((acc[h] - acc["four"]).min())
        t = topic[h]["accuracy_3way"] - topic["four"]["accuracy_3way"]
        checks = {"gain": gain >= GAIN, "worst_genre": worst >= -SLACK, "topic": t >= -TOPIC_SLACK}
        out[h] = {"gain_3way_mean": gain, "worst_genre_change": worst, "topic_change_3way": t,
                  "checks": checks, "adopt": all(checks.values())}
    return out


def table(res: dict[str, Any]) -> str:
    """Markdown table of a results file."""
    folds = res["outer"]

    def cell(r: dict[str, Any]) -> str:
        rec = " / ".join("—" if v is None else f"{v:.2f}" for v in r["recall"].values())
        return f"{r['accuracy_3way']:.3f} ({rec})"

    lines = ["| held-out genre (assistants' texts) | " + " | ".join(
        f"{h}: 3-way (recall C / P / G)" for h in HEADS) + " | four and three agree |",
             "|---|" + "---:|" * (len(HEADS) + 1)]
    for g, f in folds.items():
        lines.append(f"| {g} ({f['four']['n']:,}) | " + " | ".join(cell(f[h]) for h in HEADS)
                     + f" | {f['agree_four_three']:.3f} |")
    lines.append("| **LOGO mean** | " + " | ".join(f"**{res['decision']['mean_3way'][h]:.3f}**" for h in HEADS) + " | |")
    t = res["topic_holdout"]
    lines.append(f"| topic hold-out ({t['four']['n']:,}) | " + " | ".join(cell(t[h]) for h in HEADS)
                 + f" | {t['agree_four_three']:.3f} |")
    lines += ["", "The bundled recipe (`four`) by whether the text's model version wrote any training text:", "",
              "| held-out | seen versions: texts, 3-way | unseen versions: texts, 3-way |", "|---|---:|---:|"]
    for g, f in [*folds.items(), ("topic hold-out", t)]:
        v = f["four_by_version"]
        lines.append(f"| {g} | " + " | ".join("0, —" if v[k] is None else f"{v[k]['n']:,}, {v[k]['accuracy_3way']:.3f}"
                                             for k in ("seen", "unseen")) + " |")
    lines += ["", "Decision:", ""]
    for h in ("three", "blend"):
        d = res["decision"][h]
        lines.append(f"- `{h}`: LOGO 3-way mean {d['gain_3way_mean']:+.3f} vs four, worst genre "
                     f"{d['worst_genre_change']:+.3f}, topic hold-out {d['topic_change_3way']:+.3f}; checks "
                     f"{d['checks']} -> **{'adopt' if d['adopt'] else 'reject'}**")
    return "\n".join(lines)


def main() -> None:
    if (inputs := trial_inputs(__doc__, CACHE, table)) is None:
        return
    args, log, corpus, genres, fkey, X, Xa, yi = inputs
    g_of = corpus["genre"].to_numpy(object)
    every = np.ones(len(corpus), dtype=bool)
    folds: dict[str, Any] = {}
    for G in genres:
        folds[G] = contenders(tuple(g for g in genres if g != G), every, np.flatnonzero(g_of == G), "", X, Xa, yi,
                              corpus, args, log)
        log(f"{G}: 3-way " + ", ".join(f"{h} {folds[G][h]['accuracy_3way']:.3f}" for h in HEADS))
    split = topic_holdout_split(corpus.assign(row_idx=np.arange(len(corpus))), seed=args.seed, balance=False)
    topic_train = np.zeros(len(corpus), dtype=bool)
    topic_train[split["train"]["row_idx"].to_numpy()] = True
    va = np.sort(split["val"]["row_idx"].to_numpy())
    topic = contenders(tuple(genres), topic_train, va, "topic-", X, Xa, yi, corpus, args, log)
    log("topic hold-out: 3-way " + ", ".join(f"{h} {topic[h]['accuracy_3way']:.3f}" for h in HEADS))
    res = {"command": "benchmarks/three_way_logo.py", "seed": args.seed, "n_texts": len(corpus), "genres": genres,
           "features_key": fkey, "outer": folds, "topic_holdout": topic, "decision": decide(folds, topic)}
    write_trial(args, log, res, table, ("three", "blend"))


if __name__ == "__main__":
    main()
