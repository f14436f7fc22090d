"""Transductive per-source normalisation (issue 17): does standardising each genre's features by that
genre's own unlabelled statistics close the leave-one-genre-out gap, and is it safe on batches?

Hypothesis: much of the LOGO gap (3-way 0.741 mean against ~0.95 in-genre) is a genre-level shift
of feature means and scales (debates have no Markdown, fiction has dialogue quotes...), which
normalising each source by its own statistics removes. As a product feature this would be a batch
mode ("a folder of texts from one source"), so the failure mode is measured too: a provider-skewed
batch's own statistics carry provider signal, and normalising removes it.

Outer leave-one-genre-out over the five genres. For held-out genre G every contender fits the
bundled recipe (``fit_augmented``: ``StyleModel(feature_set="full", calibrate=False, seed=0)`` on
the canonical texts' features plus one edited copy per text at weight 0.5, sqrt cell weights, LR +
300 rounds of 15-leaf trees, tree weight 0.85) on the other four genres' *transformed* feature
matrices, and scores G's transformed rows. Normalisers (``Z = signed log1p(X)``, what the model
reads; every genre is normalised by its own statistics: training genres by theirs, G by G's):

- ``none``: the features as they are (the baseline);
- ``zscore``: ``(Z - mean) / std`` over all the genre's texts, no labels (std floor 1e-6);
- ``robust``: ``(Z - median) / (IQR / 1.349)``; where a feature's IQR is 0 (sparse marks: most
  texts have none) its std is the scale instead (floor 1e-6);
- ``centre`` (added after the first run, outside the rule): subtract the genre's mean, no scaling
  (is it the scaling that hurts, or the shift itself?);
- ``balanced``: mean and std of the genre with each label's texts weighing the same in total (uses
  G's labels: an upper bound, NOT a product candidate).

StyleModel applies signed log1p itself, so the normalised ``Zn`` is passed through the inverse,
``sign(Zn) * expm1(|Zn|)``: the model's own transform gives ``Zn`` back (exact to rounding), its
standardisation and trees then see ``Zn``. ``Zn`` is clipped to +-100 first (expm1 overflows past
~709; a z-score over n texts cannot pass sqrt(n - 1) <= 100 here, so only edited copies and robust
scales can be clipped; the clipped share is logged). The edited copies of a genre's texts are
normalised with the statistics of that genre's unedited texts (they stay edits *of* the genre).

Reported per genre and mean: 3-way accuracy (argmax of CLAUDE / CHATGPT / GEMINI on those
providers' texts), 4-way accuracy, OTHER-vs-rest AUROC (genres with OTHER texts).

In-genre sanity: train-probe's topic hold-out (seed 0), ``none``, ``zscore`` and ``robust``: train
rows normalised per genre by the train rows' statistics, val rows per genre by the val rows' own.

Batch stress test (``zscore`` and ``robust``, models from the LOGO fold of G): batches of G's texts
normalised by *the batch's* statistics only, 20 random batches per kind, accuracies pooled over the
batches' texts, next to ``none`` on the same texts (and the contender with whole-G statistics on
the same texts): 80 %-skewed batches of 200 texts, one per provider (80 % that provider, the rest
split evenly over G's other labels, OTHER included; where that provider has fewer than 160 texts
the batch shrinks to ``floor(n_provider / 0.8)`` texts, still 80 %; no batch for a provider with
fewer than 40 texts in G, i.e. blog has no GEMINI batch), and batches of 20, 50 and 200 texts drawn
with G's natural mix.

Decision rule, written here before any result: a normaliser (``zscore`` or ``robust``; ``balanced``
is never a candidate) is worth building into ``predict`` as a batch mode only if all hold:

1. its LOGO 3-way mean beats ``none``'s by >= 3 points;
2. no genre's LOGO 3-way accuracy is more than 2 points below ``none``'s;
3. on the topic hold-out val rows, neither its 3-way nor its 4-way accuracy is more than 1 point
   below ``none``'s;
4. on the 80 %-skewed batches, for each of the three skew directions (the batches' 3-way accuracy
   averaged over the genres that have that direction), it is within 5 points of ``none``'s on the
   same texts.

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/genre_normalise.py \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/genre_normalise
    python benchmarks/genre_normalise.py --table results/genre_normalise/genre_normalise.json

Features come from genre_jackknife's cache (``--features-cache``); fitted models are kept under
``--cache`` (default /tmp/whowrote-genre-normalise), so a re-run only scores.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from genre_jackknife import PARAMS, auroc, cpu_seconds, label_probs, trial_inputs, write_trial

from whowrote.style import StyleModel
from whowrote.style.io import load_model, save_model
from whowrote.style.train import fit_augmented
from whowrote.style.trees import log_transform
from whowrote.types import LABELS, OTHER, PROVIDERS

CACHE = "/tmp/whowrote-genre-normalise"
NORMS = ("none", "zscore", "robust", "centre", "balanced")
CANDIDATES = ("zscore", "robust")
TOPIC_NORMS = ("none", "zscore", "robust")
FLOOR, CLIP, IQR_SD = 1e-6, 100.0, 1.349
BATCH, SKEW, REPS, MIN_MAJOR = 200, 0.8, 20, 40
NATURAL = (20, 50, 200)
GAIN, SLACK, TOPIC_SLACK, SKEW_SLACK = 0.03, 0.02, 0.01, 0.05
OTHER_I = LABELS.index(OTHER)
Log = Callable[[str], None]


def unlog(Z: np.ndarray) -> np.ndarray:
    """The inverse of ``log_transform`` (after clipping to +-CLIP)."""
    Z = np.clip(Z, -CLIP, CLIP)
    return np.sign(Z) * np.expm1(np.abs(Z))


def stats(Z: np.ndarray, how: str, y: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(location, scale)`` per feature of the rows ``Z`` (signed-log1p features)."""
    if how == "zscore":
        loc, scale = Z.mean(axis=0), Z.std(axis=0)
    elif how == "robust":
        q1, loc, q3 = np.quantile(Z, [0.25, 0.5, 0.75], axis=0)
        scale = np.where(q3 > q1, (q3 - q1) / IQR_SD, Z.std(axis=0))
    elif how == "centre":
        loc, scale = Z.mean(axis=0), np.ones(Z.shape[1])
    elif how == "balanced":
        assert y is not None
        labels, inv, counts = np.unique(y, return_inverse=True, return_counts=True)
        w = 1.0 / (len(labels) * counts[inv])
        loc = w @ Z
        scale = np.sqrt(w @ (Z - loc) ** 2)
    else:
        raise ValueError(how)
    return loc, np.maximum(scale, FLOOR)


def normalise(X: np.ndarray, Xa: np.ndarray | None, parts: list[np.ndarray], how: str,
              yi: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, float]:
    """``(X', Xa', clipped share)``: each part of rows (indices) standardised by its own statistics
    (from its unedited rows; the copies ``Xa[part]`` get the same), returned in raw-feature space."""
    if how == "none":
        return X, Xa, 0.0
    Zn = log_transform(X)
    Zan = None if Xa is None else log_transform(Xa)
    for r in parts:
        loc, scale = stats(Zn[r], how, yi[r])
        Zn[r] = (Zn[r] - loc) / scale
        if Zan is not None:
            Zan[r] = (Zan[r] - loc) / scale
    clipped = float(np.mean(np.abs(Zn) > CLIP)) if Zan is None else \
        float((np.sum(np.abs(Zn) > CLIP) + np.sum(np.abs(Zan) > CLIP)) / (Zn.size + Zan.size))
    return unlog(Zn), None if Zan is None else unlog(Zan), clipped


def metrics(P: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    three = y != OTHER_I
    return {"n": int(len(y)), "n_3way": int(three.sum()),
            "accuracy_3way": float((P[three, :OTHER_I].argmax(axis=1) == y[three]).mean()),
            "accuracy": float((P.argmax(axis=1) == y).mean()),
            "other_auroc": auroc(y == OTHER_I, P[:, OTHER_I])}


def fit(name: str, rows: np.ndarray, X: np.ndarray, Xa: np.ndarray, corpus, fkey: str, seed: int,
        cache: Path, log: Log) -> StyleModel:
    """The recipe fitted on ``rows`` of the (transformed) matrices; saved under ``cache`` in the
    model's own JSON + npz format (no pickle: /tmp is shared)."""
    f = cache / f"model-{name}-{fkey}-clip{CLIP:g}-seed{seed}"
    if (f / "model.json").exists():
        return load_model(f)
    t0, c0 = time.perf_counter(), cpu_seconds()
    tr = corpus.iloc[rows]
    m = fit_augmented(X[rows], Xa[rows], tr["provider"], tr["genre"], seed=seed, **PARAMS)
    save_model(m, f)
    log(f"fitted {name} ({len(rows)} texts) in {time.perf_counter() - t0:.0f}s wall, {cpu_seconds() - c0:.0f}s CPU")
    return m


def draws(y: np.ndarray, seed: int, g_index: int) -> dict[str, list[np.ndarray]]:
    """Per batch kind, REPS batches of row indices into G's rows (labels ``y``)."""
    out: dict[str, list[np.ndarray]] = {}
    present = [k for k in range(len(LABELS)) if (y == k).any()]
    for k_i, p in enumerate(PROVIDERS):
        major = LABELS.index(p)
        n_major_avail = int((y == major).sum())
        if n_major_avail < MIN_MAJOR:
            continue
        n = min(BATCH, int(n_major_avail / SKEW))
        n_major = round(SKEW * n)
        rest = [k for k in present if k != major]
        split = [len(a) for a in np.array_split(np.arange(n - n_major), len(rest))]
        rng = np.random.default_rng([seed, g_index, k_i])
        out[f"skew {p}"] = [np.concatenate([rng.choice(np.flatnonzero(y == k), c, replace=False)
                                            for k, c in zip([major, *rest], [n_major, *split], strict=True)])
                            for _ in range(REPS)]
    for size in NATURAL:
        rng = np.random.default_rng([seed, g_index, 100 + size])
        out[f"natural {size}"] = [rng.choice(len(y), min(size, len(y)), replace=False) for _ in range(REPS)]
    return out


def batch_test(m: StyleModel, how: str, XG: np.ndarray, y: np.ndarray, P_none: np.ndarray, P_whole: np.ndarray,
               batches: dict[str, list[np.ndarray]]) -> dict[str, Any]:
    """3-way accuracy (pooled over each kind's batches) with the batch's own statistics, with none
    and with whole-G statistics on the same texts."""
    out = {}
    for kind, idx in batches.items():
        hits = {"batch": 0, "none": 0, "whole_genre": 0}
        n3 = 0
        for b in idx:
            Xb = normalise(XG[b], None, [np.arange(len(b))], how, y[b])[0]
            Pb, yb = label_probs(m, Xb), y[b]
            three = yb != OTHER_I
            n3 += int(three.sum())
            for name, P in (("batch", Pb), ("none", P_none[b]), ("whole_genre", P_whole[b])):
                hits[name] += int((P[three, :OTHER_I].argmax(axis=1) == yb[three]).sum())
        out[kind] = {"batch_size": int(len(idx[0])), "n_3way": n3, **{k: v / n3 for k, v in hits.items()}}
    return out


def logo(corpus, X: np.ndarray, Xa: np.ndarray, yi: np.ndarray, genres: list[str], fkey: str, seed: int,
         cache: Path, log: Log) -> tuple[dict[str, Any], dict[str, float]]:
    g_of = corpus["genre"].to_numpy(object)
    parts = [np.flatnonzero(g_of == g) for g in genres]
    mats, clipped = {}, {}
    for how in NORMS:  # every genre by its own statistics: the same matrices serve every fold
        Xn, Xan, clipped[how] = normalise(X, Xa, parts, how, yi)
        mats[how] = (Xn, Xan)
        log(f"{how}: {clipped[how]:.2e} of the values clipped")
    folds: dict[str, Any] = {}
    for gi, G in enumerate(genres):
        tr, te = np.flatnonzero(g_of != G), np.flatnonzero(g_of == G)
        y = yi[te]
        fold: dict[str, Any] = {"n": len(te), "norms": {}, "batches": {}}
        P: dict[str, np.ndarray] = {}
        models = {}
        for how in NORMS:
            models[how] = fit(f"{how}-logo-{G}", tr, *mats[how], corpus, fkey, seed, cache, log)
            P[how] = label_probs(models[how], mats[how][0][te])
            fold["norms"][how] = metrics(P[how], y)
        batches = draws(y, seed, gi)
        for how in CANDIDATES:
            fold["batches"][how] = batch_test(models[how], how, X[te], y, P["none"], P[how], batches)
        folds[G] = fold
        log(f"{G}: 3-way " + ", ".join(f"{h} {fold['norms'][h]['accuracy_3way']:.3f}" for h in NORMS))
    return folds, clipped


def topic_sanity(corpus, X: np.ndarray, Xa: np.ndarray, yi: np.ndarray, genres: list[str], fkey: str, seed: int,
                 cache: Path, log: Log) -> dict[str, Any]:
    """Train-probe's topic hold-out: train rows normalised per genre by their own statistics, val
    rows per genre by the val rows' own."""
    from whowrote.data.splits import topic_holdout_split

    split = topic_holdout_split(corpus.assign(row_idx=np.arange(len(corpus))), seed=seed, balance=False)
    tr, va = (np.sort(split[k]["row_idx"].to_numpy()) for k in ("train", "val"))
    g_of = corpus["genre"].to_numpy(object)
    parts = [r[g_of[r] == g] for r in (tr, va) for g in genres]
    out: dict[str, Any] = {}
    for how in TOPIC_NORMS:
        Xn, Xan, _ = normalise(X, Xa, parts, how, yi)
        P = label_probs(fit(f"{how}-topic", tr, Xn, Xan, corpus, fkey, seed, cache, log), Xn[va])
        out[how] = {**metrics(P, yi[va]),
                    "per_genre_3way": {g: metrics(P[g_of[va] == g], yi[va][g_of[va] == g])["accuracy_3way"]
                                       for g in genres}}
        log(f"topic hold-out {how}: 3-way {out[how]['accuracy_3way']:.3f}, 4-way {out[how]['accuracy']:.3f}")
    return out


def skew_means(folds: dict[str, Any], how: str) -> dict[str, dict[str, float]]:
    """Per skew direction, batch and none 3-way accuracy averaged over the genres that have it."""
    out = {}
    for p in PROVIDERS:
        rs = [f["batches"][how][f"skew {p}"] for f in folds.values() if f"skew {p}" in f["batches"][how]]
        out[p] = {k: float(np.mean([r[k] for r in rs])) for k in ("batch", "none", "whole_genre")} | {"genres": len(rs)}
    return out


def decide(folds: dict[str, Any], topic: dict[str, Any]) -> dict[str, Any]:
    acc3 = {h: np.array([f["norms"][h]["accuracy_3way"] for f in folds.values()]) for h in NORMS}
    out: dict[str, Any] = {"mean_3way": {h: float(v.mean()) for h, v in acc3.items()}}
    for h in CANDIDATES:
        gain, worst = float(acc3[h].mean() - acc3["none"].mean()), float((acc3[h] - acc3["none"]).min())
        t3 = topic[h]["accuracy_3way"] - topic["none"]["accuracy_3way"]
        t4 = topic[h]["accuracy"] - topic["none"]["accuracy"]
        skew = {p: v["batch"] - v["none"] for p, v in skew_means(folds, h).items()}
        checks = {"gain": gain >= GAIN, "worst_genre": worst >= -SLACK,
                  "topic": t3 >= -TOPIC_SLACK and t4 >= -TOPIC_SLACK, "skew": min(skew.values()) >= -SKEW_SLACK}
        out[h] = {"gain_3way_mean": gain, "worst_genre_change": worst, "topic_change_3way": t3,
                  "topic_change_4way": t4, "skew_change": skew, "checks": checks, "adopt": all(checks.values())}
    return out


def table(res: dict[str, Any]) -> str:
    """Markdown tables of a results file."""
    folds, gs = res["outer"], list(res["outer"])

    def f3(v: float | None) -> str:
        return "—" if v is None else f"{v:.3f}"

    lines = ["| held-out genre (texts) | " + " | ".join(f"{h}: 3-way / 4-way / OTHER AUROC" for h in NORMS) + " |",
             "|---|" + "---:|" * len(NORMS)]
    for g in gs:
        n = folds[g]["norms"]
        lines.append(f"| {g} ({folds[g]['n']:,}) | " + " | ".join(
            f"{n[h]['accuracy_3way']:.3f} / {n[h]['accuracy']:.3f} / {f3(n[h]['other_auroc'])}" for h in NORMS) + " |")

    def mean(h: str, k: str) -> str:
        return f3(float(np.mean([v for g in gs if (v := folds[g]["norms"][h][k]) is not None])))

    lines.append("| **mean** | " + " | ".join(
        f"**{mean(h, 'accuracy_3way')}** / {mean(h, 'accuracy')} / {mean(h, 'other_auroc')}" for h in NORMS) + " |")
    top = res["topic_holdout"]
    lines += ["", f"Topic hold-out val ({top['none']['n']:,} texts):", "",
              "| normaliser | 3-way | 4-way | OTHER AUROC | " + " | ".join(f"{g} 3-way" for g in gs) + " |",
              "|---|---:|---:|---:|" + "---:|" * len(gs)]
    for h, r in top.items():
        lines.append(f"| {h} | {r['accuracy_3way']:.3f} | {r['accuracy']:.3f} | {f3(r['other_auroc'])} | "
                     + " | ".join(f3(r["per_genre_3way"][g]) for g in gs) + " |")
    for h in CANDIDATES:
        kinds = list(dict.fromkeys(k for g in gs for k in folds[g]["batches"][h]))
        lines += ["", f"Batches normalised by their own statistics, `{h}`: 3-way accuracy, batch stats / none / "
                  f"whole-genre stats on the same texts ({REPS} batches each; batch size in brackets):", "",
                  "| held-out genre | " + " | ".join(kinds) + " |", "|---|" + "---:|" * len(kinds)]
        for g in gs:
            b = folds[g]["batches"][h]
            lines.append(f"| {g} | " + " | ".join(
                f"{b[k]['batch']:.3f} / {b[k]['none']:.3f} / {b[k]['whole_genre']:.3f} ({b[k]['batch_size']})"
                if k in b else "—" for k in kinds) + " |")
        lines.append("| **mean** | " + " | ".join(
            " / ".join(f"{np.mean([folds[g]['batches'][h][k][c] for g in gs if k in folds[g]['batches'][h]]):.3f}"
                       for c in ("batch", "none", "whole_genre")) for k in kinds) + " |")
    lines += ["", "Decision:", ""]
    for h in CANDIDATES:
        d = res["decision"][h]
        lines.append(f"- `{h}`: 3-way mean {d['gain_3way_mean']:+.3f} vs none, worst genre {d['worst_genre_change']:+.3f}, "
                     f"topic 3-way {d['topic_change_3way']:+.3f} / 4-way {d['topic_change_4way']:+.3f}, skewed batches "
                     + ", ".join(f"{p} {v:+.3f}" for p, v in d["skew_change"].items())
                     + f"; checks {d['checks']} -> **{'adopt' if d['adopt'] else 'reject'}**")
    return "\n".join(lines)


def main() -> None:
    if (inputs := trial_inputs(__doc__, CACHE, table)) is None:
        return
    args, log, corpus, genres, fkey, X, Xa, yi = inputs
    folds, clipped = logo(corpus, X, Xa, yi, genres, fkey, args.seed, args.cache, log)
    topic = topic_sanity(corpus, X, Xa, yi, genres, fkey, args.seed, args.cache, log)
    res = {"command": "benchmarks/genre_normalise.py", "seed": args.seed, "n_texts": len(corpus), "genres": genres,
           "features_key": fkey, "clip": CLIP, "clipped_share": clipped, "reps": REPS, "outer": folds,
           "topic_holdout": topic, "decision": decide(folds, topic),
           "skew_means": {h: skew_means(folds, h) for h in CANDIDATES}}
    write_trial(args, log, res, table, CANDIDATES)

if __name__ == "__main__":
    main()
