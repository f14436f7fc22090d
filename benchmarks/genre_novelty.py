"""Content novelty as a second shift signal for calibration (issue 17): does a text's word-content
distance from the training genres fix the leave-one-genre-out ECE that the feature distance cannot?

Why: the bundled model's temperature grows with the style-feature distance ``d``
(``whowrote.style.ood``). Under leave-one-genre-out that distance separates out-of-genre texts
from in-genre ones well for blog, chat and debate (AUROC 0.92-0.98) but not for fiction (0.63) or
longform (0.55), so fiction gets in-genre sharpness while 72 % of its verdicts are wrong (ECE
0.468), and blog posts, far in style yet mostly right, get too flat (ECE 0.276). Genres differ
most in *content* (narrative fiction vs essays vs chat answers), which the style features leave
out on purpose. So: a bag-of-words novelty, ``1 - max cosine`` of a text's tf-idf vector (hashed
words, idf from the fit's training rows) to each training genre's centroid.

Predictions come from the genre-jackknife trial's cache (``benchmarks/genre_jackknife.py
--fit-only --topic`` fits the same recipe as train-probe's LOGO members and its topic probe, and
stores every row's probabilities and distance), so this script fits no style model.

Per held-out genre G (as ``whowrote.style.heldout.logo_report`` does): the calibrator is fitted on
the other genres' out-of-genre rows and on the in-genre topic-hold-out val rows of the other
genres (weight 0.75 in all), then scored on G's rows. Candidates, fixed before any result:

- ``distance``: T = t0 (1 + d)^a, the shipped calibrator (reproduces logo_report);
- ``distance+novelty``: log T = p0 + a log(1 + d) + b novelty, a, b >= 0 (one more parameter).

Also reported: the AUROC of each signal for "out-of-genre vs in-genre" rows per held-out genre.

``--novelty genre`` (added in session 12, before its first run, under the same rule): the novelty
is ``1 - max P(genre)`` of a genre classifier (a class-balanced logistic regression on the
standardised signed-log1p style features, fitted on the training rows' genres). A text of a genre
the classifier never saw should fit none of its genres well, even where its style is near
theirs on average.

Decision rule (written before the first result): adopt ``distance+novelty`` only if its LOGO
mean ECE is at least 0.02 lower than ``distance``'s, no genre's ECE rises by more than 0.02, and
the in-genre ECE of the topic hold-out (val rows, calibrator fitted on all genres' rows) rises by
at most 0.01.

    OMP_NUM_THREADS=1 python benchmarks/genre_novelty.py \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/genre_novelty
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np
from genre_jackknife import CACHE, fit_cache, texts_key
from robustness import corpus_args

from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import topic_holdout_split
from whowrote.style.calibration import IN_GENRE_WEIGHT, expected_calibration_error, softmax
from whowrote.style.train import training_corpus
from whowrote.types import LABELS

N_HASH = 1 << 18


def word_counts(texts: list[str]):
    """Lower-cased word counts, hashed into ``N_HASH`` columns (sparse)."""
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(n_features=N_HASH, alternate_sign=False, norm=None, lowercase=True).transform(texts)


def novelty(C, train: np.ndarray, genres: np.ndarray, kind: str = "centroid") -> np.ndarray:
    """How unlike the training rows ``train`` each row's words are (idf, centroids, LSA basis and
    neighbours from ``train`` only). ``centroid``: ``1 - max cosine`` of the tf-idf vector to the
    training genres' centroids; ``knn``: ``1 -`` the mean cosine to the :data:`K` nearest training
    texts in a :data:`LSA_DIM`-dimensional LSA space (a text is never its own neighbour)."""
    from sklearn.preprocessing import normalize

    df = np.asarray((C[train] > 0).sum(axis=0)).ravel()
    idf = np.log((1 + train.sum()) / (1 + df)) + 1.0
    V = normalize(C.multiply(idf).tocsr().astype(np.float64))
    if kind == "knn":
        from sklearn.decomposition import TruncatedSVD

        svd = TruncatedSVD(LSA_DIM, random_state=0).fit(V[train])
        E = normalize(svd.transform(V))
        tr = np.flatnonzero(train)
        out = np.empty(len(E))
        for a in range(0, len(E), 1024):  # bounded memory
            S = E[a:a + 1024] @ E[tr].T
            own = np.isin(tr, np.arange(a, min(a + 1024, len(E))))
            if own.any():  # a training row is not its own neighbour
                rows = tr[own] - a
                S[rows, np.flatnonzero(own)] = -np.inf
            out[a:a + 1024] = 1.0 - np.sort(S, axis=1)[:, -K:].mean(axis=1)
        return out
    sims = []
    for g in sorted(set(genres[train].tolist())):
        c = np.asarray(V[train & (genres == g)].mean(axis=0)).ravel()
        c /= np.linalg.norm(c) or 1.0
        sims.append(V @ c)
    return 1.0 - np.max(np.vstack(sims), axis=0)


K = 10
LSA_DIM = 200


def genre_uncertainty(X: np.ndarray, train: np.ndarray, genres: np.ndarray) -> np.ndarray:
    """``1 - max P(genre)`` of the genre classifier (``genre_route.fit_router``) fitted on the rows ``train``."""
    from genre_route import fit_router

    return 1.0 - fit_router(X[train], genres[train]).predict_proba(X).max(axis=1)


def fit_log_temperature(logits: np.ndarray, signals: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``p`` of log T = p0 + signals @ p[1:] (p[1:] >= 0) minimising the weighted NLL."""
    from scipy.optimize import minimize

    rows = np.arange(len(y))
    w = w / w.sum()

    def nll(p: np.ndarray) -> float:
        P = softmax(logits * np.exp(-(p[0] + signals @ p[1:]))[:, None])
        return float(-np.sum(w * np.log(np.clip(P[rows, y], 1e-12, None))))

    k = signals.shape[1]
    res = minimize(nll, np.zeros(k + 1), method="L-BFGS-B", bounds=[(np.log(0.05), np.log(20.0))] + [(0.0, 10.0)] * k)
    return res.x


def auroc(pos: np.ndarray, score: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(pos, score))


def shift_predictions(args: argparse.Namespace, corpus, novelty_of=None) -> tuple[list[str], dict, dict]:
    """The cached LOGO and topic-hold-out predictions of ``corpus`` (``training_corpus(args.corpus)``:
    the rows, in the order, of the cache's fits) that the calibration trials start from:
    ``(genres, oog, ing)``. ``oog[g]``: genre g's rows predicted by the fit that never saw g
    (``L`` log-probabilities, ``d`` distances, ``y`` labels, ``nov`` = ``novelty_of(rows the fit
    trained on)`` when given); ``ing``: the topic hold-out's val rows predicted by the fit on every
    genre's topic-train rows (plus ``g``, their genres)."""
    genres = corpus["genre"].to_numpy(object)
    names = sorted(set(genres.tolist()))
    y = np.array([LABELS.index(v) for v in corpus["provider"].to_numpy(object)])
    split = topic_holdout_split(corpus.assign(row_idx=np.arange(len(corpus))), seed=args.seed, balance=False)
    topic_train = np.zeros(len(corpus), dtype=bool)
    topic_train[split["train"]["row_idx"].to_numpy()] = True
    val = split["val"]["row_idx"].to_numpy()

    key = texts_key(corpus["text"].tolist())

    def cached(subset: tuple[str, ...], tag: str = "") -> tuple[np.ndarray, np.ndarray]:
        f = fit_cache(args.cache, key, subset, args.seed, tag)
        if not f.exists():
            raise SystemExit(f"error: {f} missing: run benchmarks/genre_jackknife.py --fit-only --topic first")
        d = np.load(f)
        return np.log(np.clip(d["P"], 1e-300, None)), d["d"]

    nothing = np.zeros(len(corpus))
    oog: dict[str, dict[str, np.ndarray]] = {}
    for g in names:
        L, d = cached(tuple(h for h in names if h != g))
        rows = np.flatnonzero(genres == g)
        nov = novelty_of(genres != g) if novelty_of else nothing
        oog[g] = {"L": L[rows], "d": d[rows], "nov": nov[rows], "y": y[rows]}
    L, d = cached(tuple(names), "topic-")
    nov = novelty_of(topic_train) if novelty_of else nothing
    ing = {"L": L[val], "d": d[val], "nov": nov[val], "y": y[val], "g": genres[val]}
    return names, oog, ing


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]), CACHE)
    ap.add_argument("--novelty", choices=("centroid", "knn", "genre"), default="centroid")
    args = ap.parse_args()
    t0 = time.perf_counter()
    corpus = training_corpus(args.corpus)
    genres = corpus["genre"].to_numpy(object)
    if args.novelty == "genre":  # the style features of the genre-jackknife cache
        from genre_jackknife import features

        X = features(corpus["text"].tolist(), args.seed, args.cache, lambda m: print(m, flush=True))[0]

        def novelty_of(train: np.ndarray) -> np.ndarray:
            return genre_uncertainty(X, train, genres)
    else:
        C = word_counts(corpus["text"].tolist())

        def novelty_of(train: np.ndarray) -> np.ndarray:
            return novelty(C, train, genres, args.novelty)
    print(f"novelty inputs of {len(corpus)} texts in {time.perf_counter() - t0:.0f}s", flush=True)
    # out-of-genre rows (each genre predicted by the fit that never saw it) and in-genre rows
    names, oog, ing = shift_predictions(args, corpus, novelty_of)

    def signals(part: dict[str, np.ndarray], cand: str) -> np.ndarray:
        cols = [np.log1p(np.maximum(part["d"], 0.0))]
        if cand == "distance+novelty":
            cols.append(part["nov"])
        return np.column_stack(cols)

    result: dict[str, Any] = {"candidates": {}, "separation_auroc": {}}
    for g in names:
        ig = ing["g"] == g
        lab = np.r_[np.ones(len(oog[g]["y"])), np.zeros(ig.sum())]
        result["separation_auroc"][g] = {
            "distance": auroc(lab, np.r_[oog[g]["d"], ing["d"][ig]]),
            "novelty": auroc(lab, np.r_[oog[g]["nov"], ing["nov"][ig]])}
    for cand in ("distance", "distance+novelty"):
        per = {}
        for g in names:
            others = [h for h in names if h != g]
            keep = ing["g"] != g
            Lf = np.vstack([*(oog[h]["L"] for h in others), ing["L"][keep]])
            Sf = np.vstack([*(signals(oog[h], cand) for h in others), signals({k: v[keep] for k, v in ing.items()}, cand)])
            yf = np.concatenate([*(oog[h]["y"] for h in others), ing["y"][keep]])
            n_out, n_in = sum(len(oog[h]["y"]) for h in others), int(keep.sum())
            w = np.r_[np.full(n_out, (1 - IN_GENRE_WEIGHT) / n_out), np.full(n_in, IN_GENRE_WEIGHT / n_in)]
            p = fit_log_temperature(Lf, Sf, yf, w)
            P = softmax(oog[g]["L"] * np.exp(-(p[0] + signals(oog[g], cand) @ p[1:]))[:, None])
            per[g] = {"n": int(len(P)), "ece": expected_calibration_error(P, oog[g]["y"]),
                      "accuracy": float((P.argmax(axis=1) == oog[g]["y"]).mean()),
                      "mean_confidence": float(P.max(axis=1).mean()), "params": p.tolist()}
        # in-genre: the calibrator fitted on every genre's out-of-genre and in-genre rows, scored on val
        Lf = np.vstack([*(oog[h]["L"] for h in names), ing["L"]])
        Sf = np.vstack([*(signals(oog[h], cand) for h in names), signals(ing, cand)])
        yf = np.concatenate([*(oog[h]["y"] for h in names), ing["y"]])
        n_out = sum(len(oog[h]["y"]) for h in names)
        w = np.r_[np.full(n_out, (1 - IN_GENRE_WEIGHT) / n_out), np.full(len(ing["y"]), IN_GENRE_WEIGHT / len(ing["y"]))]
        p = fit_log_temperature(Lf, Sf, yf, w)
        P = softmax(ing["L"] * np.exp(-(p[0] + signals(ing, cand) @ p[1:]))[:, None])
        result["candidates"][cand] = {"logo": per, "mean_ece": float(np.mean([v["ece"] for v in per.values()])),
                                      "topic_holdout_ece": expected_calibration_error(P, ing["y"]),
                                      "topic_holdout_params": p.tolist()}
    base, new = result["candidates"]["distance"], result["candidates"]["distance+novelty"]
    worst = max(new["logo"][g]["ece"] - base["logo"][g]["ece"] for g in names)
    result["decision"] = {
        "mean_ece_gain": base["mean_ece"] - new["mean_ece"], "worst_genre_rise": worst,
        "topic_holdout_rise": new["topic_holdout_ece"] - base["topic_holdout_ece"],
        "adopt": bool(base["mean_ece"] - new["mean_ece"] >= 0.02 and worst <= 0.02
                      and new["topic_holdout_ece"] - base["topic_holdout_ece"] <= 0.01)}
    result["wall_seconds"] = time.perf_counter() - t0
    args.out.mkdir(parents=True, exist_ok=True)
    result["novelty"] = args.novelty
    atomic_write(args.out / f"genre_novelty_{args.novelty}.json", json.dumps(result, indent=1) + "\n")
    for g in names:
        s = result["separation_auroc"][g]
        print(f"{g:9s} separation AUROC distance {s['distance']:.3f} novelty {s['novelty']:.3f} | ECE "
              + " | ".join(f"{c} {result['candidates'][c]['logo'][g]['ece']:.3f} "
                           f"(conf {result['candidates'][c]['logo'][g]['mean_confidence']:.3f}, "
                           f"acc {result['candidates'][c]['logo'][g]['accuracy']:.3f})" for c in result["candidates"]))
    for c, v in result["candidates"].items():
        print(f"{c}: LOGO mean ECE {v['mean_ece']:.3f}, topic hold-out ECE {v['topic_holdout_ece']:.3f}")
    print("decision:", result["decision"])


if __name__ == "__main__":
    main()
