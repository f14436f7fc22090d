"""Genre-jackknife ensemble (issue 17): do sub-models trained without one training genre flag, or fix,
the verdicts that depend on which genres were seen?

Outer leave-one-genre-out over the five genres. For outer genre G with training genres T (the
other four):

- ``full``: the bundled recipe fitted on T (exactly train-probe's LOGO member: the same features of
  the canonical text, the same one edited copy per text at weight 0.5, sqrt cell weights, LR + 300
  rounds of 15-leaf trees, tree weight 0.85, seed 0);
- four *jackknife members*: the same recipe fitted on T minus one genre h, for each h in T.

Every model is fitted once per genre subset and cached (a 3-genre subset serves two outer genres),
so the whole trial is 5 four-genre, 10 three-genre and 10 two-genre fits.

**Nothing is chosen on the outer genre.** Every temperature and threshold is fitted on the *inner
analogue* of the outer situation, one level down, on the training genres only: for each inner
genre g in T, "full" is the model fitted on T minus g (it never saw g) and the jackknife members are
the models fitted on T minus {g, h} for the three other h (the two-genre fits). Their predictions
on g are pooled over the four inner genres (rows unweighted, as ``logo_report`` pools).

Candidates (fixed in this file before any outer result was looked at):

- mixtures (averages of the members' uncalibrated averaged probabilities ``exp(logits)``, columns
  CLAUDE / CHATGPT / GEMINI / OTHER; a model without an OTHER row gives OTHER probability 0):
  ``full`` alone; ``jack``: the mean of the four jackknife members; ``full+jack``: the mean of all
  five models (full weighs 1/5). Each mixture's log-probabilities get one temperature, fitted by
  likelihood on the same mixture's inner analogue (``calibration.fit_temperature``).
- uncertainty scores (higher = less sure), ranked against the errors of ``full``'s 4-way verdict:
  ``1-top``: 1 - top calibrated probability of full; ``tv``: the mean total-variation distance of
  each jackknife member's probabilities from the members' mean; ``flip``: the share of jackknife
  members whose argmax differs from full's; ``distance``: full's distance to its training cells
  (``whowrote.style.ood``), the known reference. (In the inner analogue ``tv`` and ``flip`` come
  from three members, not four.)

Reported per outer genre: 3-way and 4-way accuracy, OTHER AUROC (chat, debate, fiction), ECE of
each mixture; the AUROC of each score for "full's 4-way verdict is wrong"; selective 4-way
accuracy of full at coverage 0.6 of the outer genre for each score (the most certain 60 %,
ties shared out at random, i.e. their mean accuracy pro rata) and at the *fitted* threshold (the
smallest score value that keeps >= 60 % of the pooled inner-analogue rows), with the coverage it
gives. Each mixture's own 1-top score is reported against its own errors too.

Decision rule, written here before the first outer result:

- adopt a mixture (``jack`` or ``full+jack``) only if its outer LOGO 3-way mean beats ``full``'s by
  >= 1 point and no genre's 3-way accuracy is more than 2 points below full's (both qualifying:
  the higher mean);
- adopt a disagreement score (``tv`` or ``flip``) only if its error-ranking AUROC beats ``1-top``'s
  on >= 4 of the 5 outer genres **and** full's selective accuracy at coverage 0.6, averaged over
  the five genres, is higher with it than with ``1-top``.

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/genre_jackknife.py \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/genre_jackknife [--topic]

(``--fit-only`` fits and caches the 25 models and scores nothing. Added after the first report,
outside the rule: each member's own 3-way accuracy per outer genre, and ``--topic``, an in-genre
sanity check on train-probe's topic hold-out. Results: docs/predict-trials.md, "Genre-jackknife ensemble".)
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import resource
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from robustness import code_key, corpus_args, timed_log

from whowrote.data.generate.store import atomic_write
from whowrote.style import StyleModel
from whowrote.style.calibration import expected_calibration_error, fit_temperature, softmax
from whowrote.style.train import augmented_features, fit_augmented, training_corpus
from whowrote.types import LABELS, OTHER, WhowroteError

CACHE = "/tmp/whowrote-jackknife"  # the fits and features, kept between runs (genre_novelty and other_distance read them)
PARAMS: dict[str, Any] = {"feature_set": "full", "calibrate": False}
MIXTURES = ("full", "jack", "full+jack")
SCORES = ("1-top", "tv", "flip", "distance")
COVERAGE = 0.6
MIX_GAIN, MIX_SLACK = 0.01, 0.02
OTHER_I = LABELS.index(OTHER)
Log = Callable[[str], None]


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and its finished children."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def texts_key(texts: Sequence[str]) -> str:
    """The cache key of a list of texts (16 hex digits of their sha256) under the current feature and
    model code (``robustness.code_key``: a cache of other code is never read)."""
    return hashlib.sha256(code_key().encode() + "\0".join(texts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def label_probs(model: StyleModel, X: np.ndarray) -> np.ndarray:
    """The model's uncalibrated averaged member probabilities on feature rows ``X``, columns in
    ``LABELS`` order (a class the model never saw gets 0)."""
    p = np.exp(model.logits(X))
    P = np.zeros((len(X), len(LABELS)))
    for j, c in enumerate(model.classes_):
        P[:, LABELS.index(c)] = p[:, j]
    return P


def features(texts: list[str], seed: int, cache: Path, log: Log) -> tuple[np.ndarray, np.ndarray]:
    """``augmented_features`` of the texts (train-probe's X and Xa), cached under ``cache``."""
    f = features_cache(cache, texts_key(texts), seed)
    if f.exists():
        d = np.load(f)
        return d["X"], d["Xa"]
    X, Xa = augmented_features(StyleModel(**PARAMS, seed=seed), texts, seed, log)
    np.savez(f, X=X, Xa=Xa)
    return X, Xa


def trial_inputs(doc: str, cache: str, table: Callable[[dict[str, Any]], str],
                 options: Callable[[argparse.ArgumentParser], None] | None = None):
    """The shared front of a LOGO trial on cached features: ``None`` after printing ``table`` of a
    results file (``--table JSON``: no corpus needed), else ``(args, log, corpus, genres, fkey, X, Xa, yi)``
    with train-probe's feature matrices of the corpus (cached under ``--features-cache``); ``args.t0``
    is the start time. ``options`` adds a trial's own arguments to the parser."""
    t0 = time.perf_counter()
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--table", type=Path)
    known, _ = pre.parse_known_args()
    if known.table:
        try:
            res = json.loads(known.table.read_text())
        except (OSError, ValueError) as e:  # one line, no traceback
            raise SystemExit(f"error: {known.table}: {e}") from None
        print(table(res))
        return None
    ap = corpus_args(argparse.ArgumentParser(description=doc.split("\n\n")[0]), cache)
    ap.add_argument("--table", type=Path, metavar="JSON", help="print the Markdown tables of a results file and exit")
    ap.add_argument("--features-cache", type=Path, default=Path(CACHE))
    if options is not None:
        options(ap)
    args = ap.parse_args()
    args.t0 = t0
    log = timed_log()
    args.cache.mkdir(parents=True, exist_ok=True)
    args.features_cache.mkdir(parents=True, exist_ok=True)
    try:
        corpus = training_corpus(args.corpus)
    except WhowroteError as e:
        raise SystemExit(f"error: {e}") from None
    genres = sorted(corpus["genre"].unique())
    texts = corpus["text"].tolist()
    fkey = texts_key(texts)
    cached = features_cache(args.features_cache, fkey, args.seed).exists()
    log(f"loaded {len(corpus)} texts; genres {genres}; features key {fkey} ({'cached' if cached else 'computing'})")
    X, Xa = features(texts, args.seed, args.features_cache, log)
    yi = np.array([LABELS.index(v) for v in corpus["provider"]])
    return args, log, corpus, genres, fkey, X, Xa, yi


def write_trial(args, log: Log, res: dict[str, Any], table: Callable[[dict[str, Any]], str],
                candidates: Sequence[str], stem: str | None = None) -> None:
    """The shared end of a trial: CPU and wall time into ``res``, ``res`` written atomically to
    ``--out``/<stem, default the script's name>.json, its tables printed, and each candidate's verdict logged."""
    res |= {"cpu_seconds": cpu_seconds(), "wall_seconds": time.perf_counter() - args.t0}
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / f"{stem or Path(res['command'].split()[0]).stem}.json", json.dumps(res, indent=1, default=float) + "\n")
    print(table(res))
    log(f"decision: {json.dumps({h: res['decision'][h]['adopt'] for h in candidates})}; "
        f"CPU {res['cpu_seconds']:.0f}s, wall {res['wall_seconds']:.0f}s")


def features_cache(cache: Path, key: str, seed: int) -> Path:
    """Where :func:`features` keeps the matrices of the texts whose :func:`texts_key` is ``key``."""
    return cache / f"features-{key}-seed{seed}.npz"


def fit_cache(cache: Path, key: str, subset: tuple[str, ...], seed: int, tag: str = "") -> Path:
    """Where the fit on ``subset`` of the corpus whose texts have :func:`texts_key` ``key`` is cached.
    The key is of the corpus texts in their order, so a cache built from other files, or the same
    files given in another order, is never read as this corpus's rows."""
    return cache / f"fit-{key}-{tag}{'+'.join(subset)}-seed{seed}.npz"


def fit_subset(subset: tuple[str, ...], corpus, X: np.ndarray, Xa: np.ndarray, seed: int, cache: Path,
               log: Log, among: np.ndarray | None = None, tag: str = "") -> tuple[np.ndarray, np.ndarray]:
    """``(P, d)`` of the recipe fitted on the genres in ``subset`` (of the rows ``among``, default
    all), for every corpus row: P the uncalibrated averaged member probabilities in ``LABELS``
    order (absent classes 0), d the distance to the training cells. Cached per corpus and subset."""
    f = fit_cache(cache, texts_key(corpus["text"].tolist()), subset, seed, tag)
    if f.exists():
        d = np.load(f)
        return d["P"], d["d"]
    t0, c0 = time.perf_counter(), cpu_seconds()
    mask = corpus["genre"].isin(subset).to_numpy()
    r = np.flatnonzero(mask if among is None else mask & among)
    tr = corpus.iloc[r]
    m = fit_augmented(X[r], Xa[r], tr["provider"], tr["genre"], seed=seed, **PARAMS)
    P = label_probs(m, X)
    dist = m.distance(X)
    np.savez(f, P=P, d=dist)
    log(f"fitted on {tag}{'+'.join(subset)} ({len(r)} texts, classes {'/'.join(m.classes_)}) in "
        f"{time.perf_counter() - t0:.0f}s wall, {cpu_seconds() - c0:.0f}s CPU")
    return P, dist


def disagreement(members: list[np.ndarray], P_full: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(tv, flip): mean total-variation distance of each member from the members' mean; share of
    members whose argmax differs from full's."""
    mean = np.mean(members, axis=0)
    tv = np.mean([0.5 * np.abs(m - mean).sum(axis=1) for m in members], axis=0)
    flip = np.mean([m.argmax(axis=1) != P_full.argmax(axis=1) for m in members], axis=0)
    return tv, flip


def mixtures(P_full: np.ndarray, members: list[np.ndarray]) -> dict[str, np.ndarray]:
    jack = np.mean(members, axis=0)
    return {"full": P_full, "jack": jack, "full+jack": (P_full + np.sum(members, axis=0)) / (1 + len(members))}


def log_p(P: np.ndarray) -> np.ndarray:
    return np.log(np.clip(P, 1e-12, None))


def selective_at(score: np.ndarray, correct: np.ndarray, coverage: float) -> float:
    """Accuracy on the ``coverage`` share of rows with the lowest score, ties at the boundary
    shared out pro rata (the expectation under random tie-breaking)."""
    n = len(score)
    k = coverage * n
    if k <= 0:
        return float("nan")
    order = np.argsort(score, kind="stable")
    s, c = score[order], correct[order].astype(float)
    cut = s[min(int(np.ceil(k)) - 1, n - 1)]
    below = s < cut
    tie = s == cut
    n_below = below.sum()
    take = k - n_below
    hits = c[below].sum() + take * c[tie].mean()
    return float(hits / k)


def auroc(err: np.ndarray, score: np.ndarray) -> float | None:
    from sklearn.metrics import roc_auc_score

    if err.all() or not err.any():
        return None
    return float(roc_auc_score(err, score))


def outer_fold(G: str, genres: list[str], fits: dict, corpus, yi: np.ndarray) -> dict[str, Any]:
    """Everything measured for outer genre ``G`` (temperatures and thresholds from its inner analogue)."""
    g_of = corpus["genre"].to_numpy(object)
    T = [g for g in genres if g != G]

    def key(excl: Sequence[str]) -> tuple[str, ...]:
        return tuple(g for g in genres if g not in excl)

    # inner analogue: for each inner genre g, "full" = fit on T - g, members = fits on T - {g, h}
    inner: dict[str, list[np.ndarray]] = {m: [] for m in MIXTURES}
    inner_scores: dict[str, list[np.ndarray]] = {"tv": [], "flip": [], "distance": []}
    inner_y, inner_full = [], []
    for g in T:
        rows = g_of == g
        Pf, df = fits[key((G, g))]
        mem = [fits[key((G, g, h))][0][rows] for h in T if h != g]
        for name, Pm in mixtures(Pf[rows], mem).items():
            inner[name].append(Pm)
        tv, flip = disagreement(mem, Pf[rows])
        inner_scores["tv"].append(tv)
        inner_scores["flip"].append(flip)
        inner_scores["distance"].append(df[rows])
        inner_full.append(Pf[rows])
        inner_y.append(yi[rows])
    y_in = np.concatenate(inner_y)
    temps = {name: fit_temperature(log_p(np.vstack(v)), y_in) for name, v in inner.items()}
    s_in = {k: np.concatenate(v) for k, v in inner_scores.items()}
    s_in["1-top"] = 1 - softmax(log_p(np.vstack(inner["full"])), temps["full"]).max(axis=1)
    thresholds = {}
    for k, s in s_in.items():  # smallest value keeping >= 60 % of the inner rows
        srt = np.sort(s)
        thresholds[k] = float(srt[int(np.ceil(COVERAGE * len(s))) - 1])

    # outer
    rows = g_of == G
    y = yi[rows]
    Pf, df = fits[key((G,))]
    mem = [fits[key((G, h))][0][rows] for h in T]
    mix = mixtures(Pf[rows], mem)
    out: dict[str, Any] = {"n": int(rows.sum()), "temperatures": temps, "thresholds": thresholds, "mixtures": {}}
    three = y != OTHER_I
    for name, Pm in mix.items():
        Pc = softmax(log_p(Pm), temps[name])
        pred = Pc.argmax(axis=1)
        r = {"accuracy": float((pred == y).mean()),
             "accuracy_3way": float((Pc[three][:, :OTHER_I].argmax(axis=1) == y[three]).mean()),
             "ece": expected_calibration_error(Pc, y),
             "other_auroc": auroc(y == OTHER_I, Pc[:, OTHER_I]),
             "own_1-top_auroc": auroc(pred != y, 1 - Pc.max(axis=1)),
             "own_1-top_selective_at_0.6": selective_at(1 - Pc.max(axis=1), pred == y, COVERAGE)}
        out["mixtures"][name] = r
    Pfc = softmax(log_p(mix["full"]), temps["full"])
    correct = Pfc.argmax(axis=1) == y
    tv, flip = disagreement(mem, mix["full"])
    scores = {"1-top": 1 - Pfc.max(axis=1), "tv": tv, "flip": flip, "distance": df[rows]}
    out["scores"] = {}
    for k, s in scores.items():
        kept = s <= thresholds[k]
        out["scores"][k] = {"error_auroc": auroc(~correct, s),
                            "selective_at_0.6": selective_at(s, correct, COVERAGE),
                            "fitted_coverage": float(kept.mean()),
                            "fitted_selective": float(correct[kept].mean()) if kept.any() else None}
    # diagnostic (added after the first report, not part of the rule): each member alone
    out["members_3way"] = {f"without {h}": float((m[three][:, :OTHER_I].argmax(axis=1) == y[three]).mean())
                           for h, m in zip(T, mem, strict=True)}
    out["_curve"] = {"correct": correct, "scores": scores,
                     "mix": {n: (softmax(log_p(P), temps[n]), y) for n, P in mix.items()}}
    return out


def topic_sanity(corpus, X: np.ndarray, Xa: np.ndarray, genres: list[str], seed: int, cache: Path,
                 log: Log) -> dict[str, Any]:
    """In-genre sanity check (added after the first report; not part of the rule): train-probe's
    topic hold-out (seed 0). ``full`` = the recipe on the topic-train rows of all five genres,
    members = the same without one genre each (five); mixtures as above, uncalibrated (accuracy and
    the error ranking of 1-top / tv / flip need no temperature), scored on the val rows."""
    from whowrote.data.splits import topic_holdout_split

    frame = corpus.assign(row_idx=np.arange(len(corpus)))
    split = topic_holdout_split(frame, seed=seed, balance=False)
    among = np.zeros(len(corpus), dtype=bool)
    among[split["train"]["row_idx"].to_numpy()] = True
    va = split["val"]["row_idx"].to_numpy()
    Pf = fit_subset(tuple(genres), corpus, X, Xa, seed, cache, log, among, "topic-")[0][va]
    mem = [fit_subset(tuple(g for g in genres if g != h), corpus, X, Xa, seed, cache, log, among, "topic-")[0][va]
           for h in genres]
    y = np.array([LABELS.index(v) for v in corpus["provider"].to_numpy(object)[va]])
    gv = corpus["genre"].to_numpy(object)[va]
    out: dict[str, Any] = {"n": int(len(va)), "mixtures": {}}
    for name, P in mixtures(Pf, mem).items():
        pred = P.argmax(axis=1)
        out["mixtures"][name] = {"accuracy": float((pred == y).mean()),
                                 "per_genre": {g: float((pred[gv == g] == y[gv == g]).mean()) for g in genres}}
    correct = Pf.argmax(axis=1) == y
    tv, flip = disagreement(mem, Pf)
    out["scores"] = {k: {"error_auroc": auroc(~correct, s), "selective_at_0.6": selective_at(s, correct, COVERAGE)}
                     for k, s in {"1-top": 1 - Pf.max(axis=1), "tv": tv, "flip": flip}.items()}
    return out


def decide(folds: dict[str, dict]) -> dict[str, Any]:
    genres = list(folds)
    acc3 = {m: [folds[g]["mixtures"][m]["accuracy_3way"] for g in genres] for m in MIXTURES}
    mean3 = {m: float(np.mean(v)) for m, v in acc3.items()}
    mix = {}
    for m in ("jack", "full+jack"):
        worst = min(a - b for a, b in zip(acc3[m], acc3["full"], strict=True))
        gain = mean3[m] - mean3["full"]
        mix[m] = {"gain_3way_mean": gain, "worst_genre_change": worst,
                  "adopt": bool(gain >= MIX_GAIN and worst >= -MIX_SLACK)}
    sig = {}
    sel = {k: float(np.mean([folds[g]["scores"][k]["selective_at_0.6"] for g in genres])) for k in SCORES}
    for k in ("tv", "flip"):
        wins = sum(folds[g]["scores"][k]["error_auroc"] > folds[g]["scores"]["1-top"]["error_auroc"] for g in genres)
        sig[k] = {"auroc_wins_over_1-top": int(wins), "mean_selective_at_0.6": sel[k],
                  "1-top_mean_selective_at_0.6": sel["1-top"],
                  "adopt": bool(wins >= 4 and sel[k] > sel["1-top"])}
    return {"mean_3way": mean3, "mixtures": mix, "scores": sig}


def pooled_curves(folds: dict[str, dict]) -> dict[str, Any]:
    grid = np.round(np.arange(0.1, 1.0001, 0.05), 3)
    correct = np.concatenate([f["_curve"]["correct"] for f in folds.values()])
    out = {"coverage": grid.tolist()}
    for k in SCORES:
        s = np.concatenate([f["_curve"]["scores"][k] for f in folds.values()])
        out[f"full, {k}"] = [selective_at(s, correct, c) for c in grid]
    for m in ("jack", "full+jack"):
        P = np.vstack([f["_curve"]["mix"][m][0] for f in folds.values()])
        y = np.concatenate([f["_curve"]["mix"][m][1] for f in folds.values()])
        out[f"{m}, own 1-top"] = [selective_at(1 - P.max(axis=1), P.argmax(axis=1) == y, c) for c in grid]
    return out


def figure(curves: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for k, v in curves.items():
        if k != "coverage":
            ax.plot(curves["coverage"], v, marker=".", label=k, ls="--" if k.startswith(("jack", "full+jack")) else "-")
    ax.axhline(0.9, color="grey", lw=0.6)
    ax.axvline(COVERAGE, color="grey", lw=0.6)
    ax.set_xlabel("coverage (share of texts given a verdict)")
    ax.set_ylabel("4-way accuracy on the covered texts")
    ax.set_title("Leave-one-genre-out, five genres pooled")
    ax.legend(fontsize=8)
    fig.tight_layout()
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp, dpi=110)
    tmp.replace(path)


def table(res: dict[str, Any]) -> str:
    """The Markdown tables of docs/predict-trials.md."""
    folds = res["outer"]
    gs = list(folds)
    lines = ["| outer genre (texts) | " + " | ".join(f"{m}: 3-way / 4-way" for m in MIXTURES)
             + " | OTHER AUROC (full / jack / full+jack) | ECE (full / jack / full+jack) |",
             "|---|" + "---:|" * (len(MIXTURES) + 2)]

    def f3(v: float | None) -> str:
        return "—" if v is None else f"{v:.3f}"

    for g in gs:
        mx = folds[g]["mixtures"]
        lines.append(f"| {g} ({folds[g]['n']:,}) | "
                     + " | ".join(f"{mx[m]['accuracy_3way']:.3f} / {mx[m]['accuracy']:.3f}" for m in MIXTURES)
                     + " | " + " / ".join(f3(mx[m]["other_auroc"]) for m in MIXTURES)
                     + " | " + " / ".join(f3(mx[m]["ece"]) for m in MIXTURES) + " |")

    def mean(m: str, k: str) -> str:
        v = [folds[g]["mixtures"][m][k] for g in gs if folds[g]["mixtures"][m][k] is not None]
        return f"{np.mean(v):.3f}"

    lines.append("| **mean** | " + " | ".join(f"**{mean(m, 'accuracy_3way')}** / {mean(m, 'accuracy')}" for m in MIXTURES)
                 + " | " + " / ".join(mean(m, "other_auroc") for m in MIXTURES)
                 + " | " + " / ".join(mean(m, "ece") for m in MIXTURES) + " |")
    lines += ["", "| outer genre | " + " | ".join(f"{k}: error AUROC" for k in SCORES) + " | "
              + " | ".join(f"{k}: sel. acc. at 0.6" for k in SCORES) + " | "
              + " | ".join(f"{k}: fitted coverage / sel. acc." for k in SCORES) + " |",
              "|---|" + "---:|" * (3 * len(SCORES))]
    for g in gs:
        s = folds[g]["scores"]
        lines.append(f"| {g} | " + " | ".join(f3(s[k]["error_auroc"]) for k in SCORES) + " | "
                     + " | ".join(f3(s[k]["selective_at_0.6"]) for k in SCORES) + " | "
                     + " | ".join(f"{s[k]['fitted_coverage']:.3f} / {f3(s[k]['fitted_selective'])}" for k in SCORES) + " |")

    def smean(k: str, f: str) -> str:
        v = [folds[g]["scores"][k][f] for g in gs if folds[g]["scores"][k][f] is not None]
        return f"{np.mean(v):.3f}"

    lines.append("| **mean** | " + " | ".join(smean(k, "error_auroc") for k in SCORES) + " | "
                 + " | ".join(smean(k, "selective_at_0.6") for k in SCORES) + " | "
                 + " | ".join(f"{smean(k, 'fitted_coverage')} / {smean(k, 'fitted_selective')}" for k in SCORES) + " |")
    lines += ["", "| outer genre | " + " | ".join(f"{m}: own 1-top AUROC / sel. acc. at 0.6" for m in MIXTURES) + " |",
              "|---|" + "---:|" * len(MIXTURES)]
    for g in gs:
        mx = folds[g]["mixtures"]
        lines.append(f"| {g} | " + " | ".join(f"{f3(mx[m]['own_1-top_auroc'])} / {f3(mx[m]['own_1-top_selective_at_0.6'])}"
                                              for m in MIXTURES) + " |")
    lines += ["", "Each jackknife member alone, 3-way (diagnostic):", ""]
    for g in gs:
        lines.append(f"- {g}: " + ", ".join(f"{k} {v:.3f}" for k, v in folds[g]["members_3way"].items()))
    top = res.get("topic_holdout")
    if top:
        lines += ["", f"Topic hold-out val ({top['n']:,} texts), 4-way, uncalibrated:", "",
                  "| mixture | all | " + " | ".join(top["mixtures"]["full"]["per_genre"]) + " |",
                  "|---|---:|" + "---:|" * len(top["mixtures"]["full"]["per_genre"])]
        for m, r in top["mixtures"].items():
            lines.append(f"| {m} | {r['accuracy']:.3f} | " + " | ".join(f"{v:.3f}" for v in r["per_genre"].values()) + " |")
        lines += ["", "In-genre error AUROC / selective accuracy at 0.6 of full: "
                  + ", ".join(f"{k} {f3(v['error_auroc'])} / {f3(v['selective_at_0.6'])}" for k, v in top["scores"].items())]
    return "\n".join(lines)


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]), CACHE)
    ap.add_argument("--fit-only", action="store_true", help="fit (and cache) every model, report nothing")
    ap.add_argument("--topic", action="store_true", help="also the in-genre sanity check on the topic hold-out (6 fits)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    log = timed_log()
    args.cache.mkdir(parents=True, exist_ok=True)
    corpus = training_corpus(args.corpus)
    genres = sorted(corpus["genre"].unique())
    log(f"loaded {len(corpus)} texts; genres {genres}")
    X, Xa = features(corpus["text"].tolist(), args.seed, args.cache, log)
    log(f"features {X.shape}, copies {Xa.shape}")
    subsets = [s for k in (4, 3, 2) for s in itertools.combinations(genres, k)]
    fits = {}
    for i, s in enumerate(subsets, 1):
        fits[s] = fit_subset(s, corpus, X, Xa, args.seed, args.cache, log)
        log(f"model {i}/{len(subsets)} ready ({'+'.join(s)}); CPU so far {cpu_seconds():.0f}s")
    if args.fit_only:
        return
    yi = np.array([LABELS.index(v) for v in corpus["provider"]])
    folds = {}
    for G in genres:
        folds[G] = outer_fold(G, genres, fits, corpus, yi)
        log(f"outer {G} scored")
    topic = topic_sanity(corpus, X, Xa, genres, args.seed, args.cache, log) if args.topic else None
    curves = pooled_curves(folds)
    for f in folds.values():
        f.pop("_curve")
    res = {"command": "benchmarks/genre_jackknife.py", "seed": args.seed, "n_texts": len(corpus),
           "genres": genres, "coverage": COVERAGE, "outer": folds, "decision": decide(folds),
           "pooled_curves": curves, "topic_holdout": topic, "cpu_seconds": cpu_seconds(), "wall_seconds": time.perf_counter() - t0}
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / "genre_jackknife.json", json.dumps(res, indent=1, default=float) + "\n")
    figure(curves, args.out / "selective.png")
    print(table(res))
    log(f"decision: {json.dumps(res['decision'], default=float)}")
    log(f"CPU {res['cpu_seconds']:.0f}s in all")


if __name__ == "__main__":
    main()
