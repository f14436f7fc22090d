"""Invariance-based feature selection (issue 17): drop features whose provider association changes
from genre to genre, the rule chosen by a nested leave-one-genre-out.

For every feature, two stability scores, each computed on the *training* genres only:

- ``effect``: per genre, each label's standardised mean difference (its mean of the log-transformed
  feature minus the mean of the genre's label means, over the genre's pooled within-label std);
  the score is the share of that effect which keeps its sign across genres,
  ``sum_k |mean_g d_gk| / sum_k mean_g |d_gk|`` (1: every genre agrees, 0: they cancel out);
- ``coef``: the same agreement of the coefficients of a per-genre multinomial logistic regression
  (features standardised within the genre, ``C = 0.1``): the association given the other features.

A candidate rule keeps the top ``frac`` of the features by one score (``all`` keeps every one).
Dropped features are removed from both members (trees and LR) and from the distance.

Nesting. For each held-out (outer) genre the rule is chosen by an inner leave-one-genre-out over
the four training genres: the scores are recomputed on the three inner training genres, a cheap
proxy of the model is fitted on the kept features and scored (3-way accuracy) on the inner
held-out genre. The full model (both members, 300 rounds, the training copies) takes 1-4 min per
fit on this machine, too slow for 5 x 4 x 7 fits, so two proxies (``--scorer``):

- ``lr``: the model's cheap member, its standardised logistic regression (unedited rows);
- ``trees``: both members with 50 boosting rounds, on at most 200 texts per (genre, label) cell.

Rule fixed before the run: the candidate with the highest mean inner 3-way accuracy, if it beats
``all`` by at least 0.5 points, else ``all``; ties go to the larger ``frac``. The held-out genre
is never used to choose. The topic hold-out model's rule is chosen the same way by a
leave-one-genre-out over the topic-train rows (five genres).

``--stage confirm`` fits each chosen rule once with the full model (the bundled recipe: both
members, the training copies at weight 0.5, seed 0) on each outer fold and on the topic hold-out's
train (uncalibrated: calibration cannot move a verdict), and ``--stage report`` scores them as
train-probe's check does (``heldout.logo_report``; the topic hold-out's val predictions join each
genre's calibration fit). The bundled model's numbers come from its own ``model.json`` metrics (the
same rows and splits; the ``all`` fits here reproduce its accuracies exactly). ``--rule R`` puts
one rule on every fold instead: a diagnostic, an oracle once read on the outer LOGO, never a result.

    C=(../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl); R=results/invariant_features
    for s in lr trees; do
      OMP_NUM_THREADS=1 python benchmarks/invariant_features.py --stage select --scorer $s --corpus ${C[@]} --out $R
      OMP_NUM_THREADS=1 python benchmarks/invariant_features.py --stage confirm --scorer $s --corpus ${C[@]} --out $R
      OMP_NUM_THREADS=1 python benchmarks/invariant_features.py --stage report --scorer $s --corpus ${C[@]} --out $R
    done
    # diagnostic: one rule on every fold
    OMP_NUM_THREADS=1 python benchmarks/invariant_features.py --stage confirm --rule coef:0.75 --corpus ${C[@]} --out $R
    OMP_NUM_THREADS=1 python benchmarks/invariant_features.py --stage report --rule coef:0.75 --corpus ${C[@]} --out $R

Feature matrices are cached by ``benchmarks/robustness.py``'s ``Features`` (``--cache``); fitted
folds' predictions go to ``OUT/folds/*.npz`` (a fit shared by two selections is made once).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from robustness import Features, corpus_args  # noqa: E402

from whowrote.data import load_corpus  # noqa: E402
from whowrote.data.splits import leave_one_genre_out, topic_holdout_split  # noqa: E402
from whowrote.style import StyleModel  # noqa: E402
from whowrote.style.heldout import evaluate_proba, logo_report, three_way  # noqa: E402
from whowrote.style.model import balanced_weights  # noqa: E402
from whowrote.style.train import AUG_WEIGHT  # noqa: E402
from whowrote.style.trees import log_transform  # noqa: E402
from whowrote.types import LABELS, OTHER  # noqa: E402

FRACS = (0.75, 0.5, 0.3)
# The tree proxy skips frac 0.3 (in the LR proxy's inner means it lost to 0.75 in every outer fold)
# and bins its features with an approximate weighted quantile (``fast_binning``): scikit-learn
# 1.9's weighted binning loops over 254 percentiles per feature in Python, ~100 s per fit here
# whatever the number of rows.
TREE_ITER, TREE_CAP, TREE_FRACS = 50, 200, (0.75, 0.5)
MIN_GAIN = 0.005


def candidates(scorer: str) -> list[str]:
    fracs = TREE_FRACS if scorer == "trees" else FRACS
    return ["all"] + [f"{s}:{f}" for s in ("effect", "coef") for f in fracs]
DEFAULT_MODEL = Path(__file__).parents[1] / "src/whowrote/style/default_model/model.json"


class SubsetModel(StyleModel):
    """:class:`StyleModel` on a column subset: takes feature matrices of any width."""

    def features(self, texts_or_X):
        return np.asarray(texts_or_X, dtype=np.float64)


def effect_score(Z: np.ndarray, y: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Sign agreement of the per-genre standardised label effects (module docstring)."""
    d = {}
    for genre in sorted(set(g.tolist())):
        m = g == genre
        labels = [k for k in LABELS if (y[m] == k).sum() >= 5]
        mu = np.array([Z[m & (y == k)].mean(axis=0) for k in labels])
        var = sum(((y[m] == k).sum() - 1) * Z[m & (y == k)].var(axis=0, ddof=1) for k in labels)
        sd = np.sqrt(var / max(m.sum() - len(labels), 1)) + 1e-6
        for k, row in zip(labels, (mu - mu.mean(axis=0)) / sd, strict=True):
            d.setdefault(k, []).append(row)
    return _agreement(d)


def coef_score(Z: np.ndarray, y: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Sign agreement of per-genre logistic-regression coefficients (module docstring)."""
    from sklearn.linear_model import LogisticRegression

    d = {}
    for genre in sorted(set(g.tolist())):
        m = g == genre
        labels = [k for k in LABELS if (y[m] == k).sum() >= 5]
        keep = m & np.isin(y, labels)
        Zg = Z[keep]
        sd = Zg.std(axis=0)
        Zs = (Zg - Zg.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
        yi = np.array([labels.index(v) for v in y[keep]])
        lr = LogisticRegression(C=0.1, max_iter=2000).fit(Zs, yi, sample_weight=balanced_weights(yi, None))
        coef = lr.coef_ if len(labels) > 2 else np.vstack([-lr.coef_ / 2, lr.coef_ / 2])
        for k, row in zip(labels, coef, strict=True):
            d.setdefault(k, []).append(row)
    return _agreement(d)


def _agreement(d: dict[str, list[np.ndarray]]) -> np.ndarray:
    """``sum_k |mean_g d_gk| / sum_k mean_g |d_gk|`` over the labels seen in two genres or more."""
    rows = [np.array(v) for v in d.values() if len(v) >= 2]
    num = sum(np.abs(r.mean(axis=0)) for r in rows)
    den = sum(np.abs(r).mean(axis=0) for r in rows)
    return num / (den + 1e-12)


SCORES = {"effect": effect_score, "coef": coef_score}


def kept(candidate: str, scores: dict[str, np.ndarray], n: int) -> np.ndarray:
    """Column indices a candidate rule keeps (sorted)."""
    if candidate == "all":
        return np.arange(n)
    name, frac = candidate.split(":")
    k = max(1, int(round(float(frac) * n)))
    return np.sort(np.argsort(-scores[name], kind="stable")[:k])


def all_scores(Z: np.ndarray, y: np.ndarray, g: np.ndarray) -> dict[str, np.ndarray]:
    return {name: fn(Z, y, g) for name, fn in SCORES.items()}


@contextmanager
def fast_binning():
    """Weighted bin thresholds by one ``searchsorted`` on the cumulative weights (the inverted CDF;
    scikit-learn averages at exact ties) instead of 254 ``_weighted_percentile`` calls per feature.
    For the inner proxy only: the full-model fits keep scikit-learn's binning."""
    from sklearn.ensemble._hist_gradient_boosting import binning

    original = binning._find_binning_thresholds

    def thresholds(col_data, max_bins, sample_weight=None):
        if sample_weight is None:
            return original(col_data, max_bins)
        ok = ~np.isnan(col_data) & (sample_weight != 0)
        order = np.argsort(col_data[ok])
        x, w = col_data[ok][order], sample_weight[ok][order]
        distinct = np.unique(x).astype(binning.X_DTYPE)
        if len(distinct) <= 1:
            return np.asarray([])
        if len(distinct) <= max_bins:
            return np.lib.stride_tricks.sliding_window_view(distinct, 2).mean(axis=1)
        cw = np.cumsum(w)
        q = np.linspace(0, 1, max_bins + 1)[1:-1] * cw[-1]
        t = np.unique(x[np.minimum(np.searchsorted(cw, q), len(x) - 1)]).astype(binning.X_DTYPE)
        return np.clip(t, None, binning.ALMOST_INF)

    binning._find_binning_thresholds = thresholds
    try:
        yield
    finally:
        binning._find_binning_thresholds = original


def trees_proxy(X: np.ndarray, y: np.ndarray, g: np.ndarray) -> SubsetModel:
    """Both members with ``TREE_ITER`` boosting rounds on at most ``TREE_CAP`` texts per (genre,
    label) cell (seeded): the ``trees`` proxy (also benchmarks/lexical_features.py's)."""
    rng = np.random.default_rng(0)
    idx = np.concatenate([rng.permutation(np.flatnonzero((g == a) & (y == b)))[:TREE_CAP]
                          for a, b in sorted(set(zip(g.tolist(), y.tolist(), strict=True)))])
    with fast_binning():
        return SubsetModel(tree_iter=TREE_ITER, calibrate=False).fit(X[idx], y[idx], genres=g[idx])


def proxy_3way(X: np.ndarray, y: np.ndarray, g: np.ndarray, Xt: np.ndarray, yt: np.ndarray, scorer: str) -> float:
    """The inner scorer fitted and scored 3-way: ``lr``, the cheap member (StyleModel's standardised
    LR, its row weights); ``trees``, both members with ``TREE_ITER`` boosting rounds, fitted on at
    most ``TREE_CAP`` texts per (genre, label) cell (seeded)."""
    m = trees_proxy(X, y, g) if scorer == "trees" else SubsetModel(use_trees=False, calibrate=False).fit(X, y, genres=g)
    three = yt != OTHER
    return float((three_way(m, m.predict_proba(Xt[three])) == yt[three]).mean())


def logo_scores(X: np.ndarray, y: np.ndarray, g: np.ndarray, log, tag: str, scorer: str = "lr") -> dict[str, dict[str, float]]:
    """``{candidate: {held-out genre: LR 3-way accuracy}}`` by leave-one-genre-out over ``g``,
    every score recomputed on each fold's training genres."""
    Z = log_transform(X)
    cands = candidates(scorer)
    out: dict[str, dict[str, float]] = {c: {} for c in cands}
    for genre in sorted(set(g.tolist())):
        tr, te = g != genre, g == genre
        if not (y[te] != OTHER).any():
            continue
        sc = all_scores(Z[tr], y[tr], g[tr])
        for c in cands:
            cols = kept(c, sc, X.shape[1])
            out[c][genre] = proxy_3way(X[tr][:, cols], y[tr], g[tr], X[te][:, cols], y[te], scorer)
        log(f"  {tag} held out {genre}: " + ", ".join(f"{c} {out[c][genre]:.3f}" for c in cands))
    return out


def choose(inner: dict[str, dict[str, float]]) -> tuple[str, dict[str, float]]:
    """The rule fixed before the run (module docstring)."""
    means = {c: float(np.mean(list(v.values()))) for c, v in inner.items()}
    order = sorted(inner, key=lambda c: (-means[c], -(1.0 if c == "all" else float(c.split(":")[1]))))
    best = order[0]
    return (best if means[best] >= means["all"] + MIN_GAIN else "all"), means


def stage_select(corpus, X, args, log) -> None:
    y, g = corpus["provider"].to_numpy(object), corpus["genre"].to_numpy(object)
    res: dict = {"scorer": args.scorer, "candidates": candidates(args.scorer), "min_gain": MIN_GAIN, "outer": {}}
    for genre in sorted(set(g.tolist())):
        tr = g != genre
        inner = logo_scores(X[tr], y[tr], g[tr], log, f"outer {genre}, inner", args.scorer)
        picked, means = choose(inner)
        res["outer"][genre] = {"inner": inner, "inner_mean": means, "picked": picked}
        log(f"outer {genre}: picked {picked} (inner means " + ", ".join(f"{c} {v:.3f}" for c, v in means.items()) + ")")
    split = topic_holdout_split(corpus, seed=args.seed, balance=False)
    r = split["train"]["row_idx"].to_numpy()
    inner = logo_scores(X[r], y[r], g[r], log, "topic-train LOGO", args.scorer)
    picked, means = choose(inner)
    res["topic"] = {"inner": inner, "inner_mean": means, "picked": picked}
    log(f"topic hold-out model: picked {picked}")
    # diagnostic only (never used to choose): every candidate's LR member on the outer LOGO itself
    if args.scorer == "lr":
        res["outer_lr_diagnostic"] = logo_scores(X, y, g, log, "outer LOGO (diagnostic)")
    _write(args.out / f"select-{args.scorer}.json", res)


def fit_full(X: np.ndarray, Xa: np.ndarray, y, genres, seed: int) -> SubsetModel:
    """The bundled recipe (``train.fit_augmented``) on the given columns."""
    k = Xa.shape[1]
    w = np.r_[np.ones(len(X)), np.full(k * len(X), AUG_WEIGHT)]
    stacked = np.vstack([X, *(Xa[:, j] for j in range(k))])
    return SubsetModel(seed=seed, calibrate=False).fit(stacked, np.tile(np.asarray(y, dtype=object), k + 1),
                                                         genres=np.tile(np.asarray(genres, dtype=object), k + 1),
                                                         sample_weight=w)


def stage_confirm(corpus, X, Xa, args, log) -> None:
    sel = json.loads((args.out / f"select-{args.scorer}.json").read_text())
    y, g = corpus["provider"].to_numpy(object), corpus["genre"].to_numpy(object)
    Z = log_transform(X)
    folds = {genre: (tr["row_idx"].to_numpy(), te["row_idx"].to_numpy()) for genre, tr, te in leave_one_genre_out(corpus)}
    split = topic_holdout_split(corpus, seed=args.seed, balance=False)
    folds["topic"] = (split["train"]["row_idx"].to_numpy(), split["val"]["row_idx"].to_numpy())
    (args.out / "folds").mkdir(parents=True, exist_ok=True)
    for name in args.folds:
        r, t = folds[name]
        rule = args.rule or (sel["topic"]["picked"] if name == "topic" else sel["outer"][name]["picked"])
        path = args.out / "folds" / f"{name}-{rule.replace(':', '_')}.npz"
        if path.exists():  # a fit shared by the two selections
            log(f"confirm {name}: rule {rule} already fitted ({path.name})")
            continue
        cols = kept(rule, all_scores(Z[r], y[r], g[r]), X.shape[1])
        t0 = time.perf_counter()
        m = fit_full(X[r][:, cols], Xa[r][:, :, cols], y[r], g[r], args.seed)
        Xt = X[t][:, cols]
        np.savez(path, logits=m.logits(Xt), distance=m.distance(Xt),
                 proba=m.predict_proba(Xt), rows=t, cols=cols, classes=np.array(m.classes_, dtype=str))
        log(f"confirm {name}: rule {rule} ({len(cols)} features), fitted on {len(r)} texts in {time.perf_counter() - t0:.0f}s")


class _Fold:
    """What ``logo_report`` reads of a fitted model."""

    def __init__(self, classes) -> None:
        self.classes_ = np.array(classes.tolist(), dtype=object)
        self.ood_quantile, self.target_accuracy = StyleModel().ood_quantile, StyleModel().target_accuracy


def stage_report(corpus, args, log) -> None:
    sel = json.loads((args.out / f"select-{args.scorer}.json").read_text())
    y, g = corpus["provider"].to_numpy(object), corpus["genre"].to_numpy(object)
    d = args.out / "folds"
    rules = {k: args.rule or v["picked"] for k, v in sel["outer"].items()} | {"topic": args.rule or sel["topic"]["picked"]}
    npz = {k: np.load(d / f"{k}-{r.replace(':', '_')}.npz") for k, r in rules.items()}
    tp = npz["topic"]
    topic_model = _Fold(tp["classes"])
    topic = evaluate_rows(topic_model, tp, y, g)
    in_genre = (tp["logits"], tp["distance"], y[tp["rows"]], g[tp["rows"]])
    folds = []
    for genre in sorted(set(g.tolist())):
        f = npz[genre]
        folds.append((genre, _Fold(f["classes"]), f["logits"], y[f["rows"]], f["distance"]))
    logo = logo_report(folds, in_genre)
    base = json.loads(DEFAULT_MODEL.read_text())["metrics"]
    res = {"scorer": args.scorer, "fixed_rule": args.rule, "rules": rules, "n_features_kept": {k: int(len(f["cols"])) for k, f in npz.items()},
           "invariant": {"logo": logo, "topic_holdout_val": topic},
           "bundled": {"logo": base["leave_one_genre_out"], "topic_holdout_val": base["topic_holdout_val"]}}
    _write(args.out / (f"fixed-{args.rule.replace(':', '_')}.json" if args.rule else f"invariant_features-{args.scorer}.json"), res)
    print(table(res))


def evaluate_rows(model, f, y, g) -> dict:
    """The topic hold-out's val scored as train-probe's check does (its own probabilities)."""
    return evaluate_proba(model.classes_, f["proba"], y[f["rows"]], g[f["rows"]])


def table(res: dict) -> str:
    inv, bun = res["invariant"]["logo"], res["bundled"]["logo"]
    lines = ["| held-out genre | rule (features kept) | 3-way bundled | 3-way invariant | 4-way bundled | 4-way invariant "
             "| OTHER AUROC bundled | OTHER AUROC invariant | ECE bundled | ECE invariant |", "|---|---|" + "---:|" * 8]
    fmt = lambda v: "—" if v is None else f"{v:.3f}"  # noqa: E731
    for genre in res["rules"]:
        if genre == "topic":
            continue
        a, b = inv[genre], bun[genre]
        lines.append(f"| {genre} | {res['rules'][genre]} ({res['n_features_kept'][genre]}) | {fmt(b['accuracy_3way'])} | "
                     f"{fmt(a['accuracy_3way'])} | {fmt(b['accuracy'])} | {fmt(a['accuracy'])} | {fmt(b.get('other_auroc'))} | "
                     f"{fmt(a.get('other_auroc'))} | {fmt(b['ece'])} | {fmt(a['ece'])} |")
    lines.append(f"| **mean** | | {fmt(bun['mean_accuracy_3way'])} | {fmt(inv['mean_accuracy_3way'])} | {fmt(bun['mean_accuracy'])} | "
                 f"{fmt(inv['mean_accuracy'])} | {fmt(bun.get('mean_other_auroc'))} | {fmt(inv.get('mean_other_auroc'))} | "
                 f"{fmt(bun['mean_ece'])} | {fmt(inv['mean_ece'])} |")
    ti, tb = res["invariant"]["topic_holdout_val"], res["bundled"]["topic_holdout_val"]
    lines += ["", f"topic hold-out val, rule {res['rules']['topic']} ({res['n_features_kept']['topic']} features):",
              "| genre | bundled | invariant |", "|---|---:|---:|"]
    lines += [f"| {k} (n={v['n']}) | {tb['per_genre'][k]['accuracy']:.3f} | {v['accuracy']:.3f} |" for k, v in ti["per_genre"].items()]
    lines.append(f"| all (n={ti['n']}) | {tb['accuracy']:.3f} | {ti['accuracy']:.3f} |")
    return "\n".join(lines)


def _write(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(obj, indent=1) + "\n")
    tmp.replace(path)


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]))
    ap.add_argument("--stage", choices=["select", "confirm", "report"], required=True)
    ap.add_argument("--folds", nargs="+", default=["topic", "blog", "chat", "debate", "fiction", "longform"])
    ap.add_argument("--scorer", choices=["lr", "trees"], default="lr", help="the inner scorer (select) / the selection used")
    ap.add_argument("--rule", help="diagnostic: this rule on every fold instead of the nested choice (an oracle when "
                    "read on the outer LOGO, never a result)")
    args = ap.parse_args()
    t_start = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t_start:6.0f}s] {msg}", flush=True)

    corpus = load_corpus(args.corpus).reset_index(drop=True)
    corpus["row_idx"] = np.arange(len(corpus))
    feats = Features(corpus, args.cache, log)
    rows = np.arange(len(corpus))
    if args.stage == "select":
        stage_select(corpus, feats.get("default", rows, "raw"), args, log)
    elif args.stage == "confirm":
        stage_confirm(corpus, feats.get("default", rows, "raw"), feats.get("default", rows, "train_copy", args.seed), args, log)
    else:
        stage_report(corpus, args, log)
    log("done")


if __name__ == "__main__":
    main()
