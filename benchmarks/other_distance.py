""""None of the three" as distance from the three assistants (issue 17): does it transfer across genres?

Why: under leave-one-genre-out the model's P(OTHER) ranks OTHER texts above the three assistants'
at AUROC 0.549 (chat 0.607, debate 0.439, fiction 0.602): OTHER is a class learned from each genre's
own open models, which differ from genre to genre. A text that is *unlike all three assistants*
might be a better sign of OTHER than one *like the OTHER texts seen*: an open-set score. Here, the
distance of a text (standardised features, as ``whowrote.style.ood``) to the nearest training
(genre, provider) cell of CLAUDE, CHATGPT and GEMINI only, and the same minus the distance to the
nearest OTHER cell (unlike the assistants *and* like the open models).

Features come from the genre-jackknife trial's cache (``benchmarks/genre_jackknife.py``: the
canonical features of every corpus row, ``X``); the model's probabilities for the P(OTHER) reference
from its cached leave-one-genre-out fits. For each held-out genre with OTHER texts (chat, debate,
fiction), the cells and the standardisation come from the other four genres' rows only.

Rule (written before the first result): the open-set score is worth building into the model only if
its LOGO mean AUROC beats P(OTHER)'s by >= 0.05 and it is not below P(OTHER) on any of the three
genres.

    OMP_NUM_THREADS=1 python benchmarks/other_distance.py \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/other_distance
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from genre_jackknife import CACHE, features_cache, fit_cache, texts_key
from robustness import corpus_args

from whowrote.data.generate.store import atomic_write
from whowrote.style.ood import FeatureDensity
from whowrote.style.train import training_corpus
from whowrote.style.trees import log_transform
from whowrote.types import LABELS, OTHER, PROVIDERS


def main() -> None:
    from sklearn.metrics import roc_auc_score

    ap = corpus_args(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]), CACHE)
    args = ap.parse_args()
    corpus = training_corpus(args.corpus)  # the rows, in the order, of the cache's fits
    key = texts_key(corpus["text"].tolist())
    feats = features_cache(args.cache, key, args.seed)
    if not feats.exists():
        raise SystemExit(f"error: {feats} missing (run benchmarks/genre_jackknife.py --fit-only with the same --corpus first)")
    X = np.load(feats)["X"]
    Z_all = log_transform(X)
    genres = corpus["genre"].to_numpy(object)
    prov = corpus["provider"].to_numpy(object)
    names = sorted(set(genres.tolist()))
    result: dict = {"genres": {}}
    for g in names:
        te = genres == g
        if not (prov[te] == OTHER).any():
            continue
        tr = ~te
        mu, sd = Z_all[tr].mean(axis=0), Z_all[tr].std(axis=0)
        Z = (Z_all - mu) / np.where(sd > 0, sd, 1.0)
        yi = np.array([LABELS.index(p) for p in prov])
        is_prov = np.isin(prov, PROVIDERS)
        d_prov = FeatureDensity.fit(Z[tr & is_prov], yi[tr & is_prov], genres[tr & is_prov]).distance(Z[te])
        d_other = FeatureDensity.fit(Z[tr & ~is_prov], yi[tr & ~is_prov], genres[tr & ~is_prov]).distance(Z[te])
        fit = fit_cache(args.cache, key, tuple(h for h in names if h != g), args.seed)
        if not fit.exists():
            raise SystemExit(f"error: {fit} missing (run benchmarks/genre_jackknife.py --fit-only with the same --corpus first)")
        P = np.load(fit)["P"][te]
        p_other = P[:, LABELS.index(OTHER)] / P.sum(axis=1)
        pos = prov[te] == OTHER
        result["genres"][g] = {
            "n": int(te.sum()), "n_other": int(pos.sum()),
            "p_other": float(roc_auc_score(pos, p_other)),
            "dist_to_assistants": float(roc_auc_score(pos, d_prov)),
            "dist_to_assistants_minus_to_other": float(roc_auc_score(pos, d_prov - d_other)),
        }
    keys = ("p_other", "dist_to_assistants", "dist_to_assistants_minus_to_other")
    result["mean"] = {k: float(np.mean([v[k] for v in result["genres"].values()])) for k in keys}
    best = max(keys[1:], key=lambda k: result["mean"][k])
    result["decision"] = {"best_open_set_score": best, "gain": result["mean"][best] - result["mean"]["p_other"],
                          "adopt": bool(result["mean"][best] - result["mean"]["p_other"] >= 0.05 and all(
                              v[best] >= v["p_other"] for v in result["genres"].values()))}
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / "other_distance.json", json.dumps(result, indent=1) + "\n")
    for g, v in result["genres"].items():
        print(f"{g:8s} n {v['n']:5d} (OTHER {v['n_other']:5d}) AUROC " + ", ".join(f"{k} {v[k]:.3f}" for k in keys))
    print("mean " + ", ".join(f"{k} {result['mean'][k]:.3f}" for k in keys))
    print("decision:", result["decision"])


if __name__ == "__main__":
    main()
