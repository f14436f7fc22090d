"""Honest accuracy comparison of attribution models on the shared corpus.

Splits (from ``whowrote.data.splits``): the topic hold-out (train / val, topics never shared,
every genre in both) and leave-one-genre-out (train on three genres, test on the fourth).
Models: the research probe (41 features, StandardScaler + LogisticRegression(C=1)), the ``full``
feature set with logistic regression only, full features with LR + boosted trees
(``StyleModel``, temperature-scaled), the default recipe (that model trained on each text plus a
truncated copy, as ``whowrote train-probe`` does), a character n-gram model (hashed char 1-4-grams, sublinear
TF-IDF, LR) and a combination (default + char n-grams, probabilities averaged).

    python benchmarks/accuracy.py --corpus ../shared/corpus/*.jsonl --out /tmp/whowrote-bench

Writes ``accuracy.json`` and ``calibration.png`` / ``length.png`` under ``--out``; prints Markdown
tables. Nothing is tuned on a test split: every hyper-parameter is fixed in this file.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from whowrote.data import load_corpus
from whowrote.data.splits import leave_one_genre_out, topic_holdout_split, topic_keys
from whowrote.style import StyleModel
from whowrote.style.calibration import brier, expected_calibration_error, reliability
from whowrote.style.edits import first_words as truncate_words
from whowrote.style.train import copy_features, fit_augmented
from whowrote.types import LABELS, OTHER, PROVIDERS

LENGTHS = (25, 50, 100, 150, 250, 500, 1000)


def char_matrix(texts, cache: Path):
    import scipy.sparse as sp
    from genre_jackknife import texts_key  # the same folder
    from sklearn.feature_extraction.text import HashingVectorizer

    f = cache / f"char14-{texts_key(list(texts))}.npz"  # keyed: another corpus (or order) never reads it
    if f.exists():
        return sp.load_npz(f)
    hv = HashingVectorizer(analyzer="char", ngram_range=(1, 4), n_features=2**18, alternate_sign=False,
                           norm=None, lowercase=False)
    M = hv.transform(texts).tocsr()
    sp.save_npz(f, M)
    return M


class Research41:
    """The research probe exactly: StandardScaler + LogisticRegression(max_iter=2000, C=1.0)."""

    def fit(self, X, y, **_):
        from sklearn.linear_model import LogisticRegression
        from sklearn.preprocessing import StandardScaler

        self.sc = StandardScaler().fit(X[:, :41])
        self.lr = LogisticRegression(max_iter=2000, C=1.0).fit(self.sc.transform(X[:, :41]), y)
        self.classes_ = self.lr.classes_
        return self

    def predict_proba(self, X):
        return self.lr.predict_proba(self.sc.transform(X[:, :41]))


class CharNgrams:
    def __init__(self, M):
        self.M = M

    def fit(self, rows, y, **_):
        from sklearn.feature_extraction.text import TfidfTransformer
        from sklearn.linear_model import LogisticRegression

        self.tf = TfidfTransformer(sublinear_tf=True).fit(self.M[rows])
        self.lr = LogisticRegression(max_iter=300, C=10.0).fit(self.tf.transform(self.M[rows]), y)
        self.classes_ = self.lr.classes_
        return self

    def predict_proba(self, rows):
        return self.lr.predict_proba(self.tf.transform(self.M[rows]))


def aligned(proba, classes):
    """Probabilities re-ordered onto LABELS (absent labels get 0)."""
    out = np.zeros((len(proba), len(LABELS)))
    for j, c in enumerate(classes):
        out[:, LABELS.index(str(c))] = proba[:, j]
    return out


def score(P, y, genres):
    from sklearn.metrics import f1_score, roc_auc_score

    y = np.asarray(y)
    pred = np.array(LABELS)[P.argmax(1)]
    yi = np.array([LABELS.index(v) for v in y])
    three = np.isin(y, PROVIDERS)
    res = {"n": int(len(y)), "accuracy": float((pred == y).mean()),
           "accuracy_3providers": float((pred[three] == y[three]).mean()) if three.any() else None,
           "macro_f1": float(f1_score(y, pred, average="macro")),
           "ece": expected_calibration_error(P, yi), "brier": brier(P, yi),
           "per_genre": {g: float((pred[genres == g] == y[genres == g]).mean()) for g in sorted(set(genres))}}
    if 0 < (y == OTHER).sum() < len(y):
        res["other_auroc"] = float(roc_auc_score(y == OTHER, P[:, LABELS.index(OTHER)]))
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", nargs="+", required=True)
    ap.add_argument("--out", default="/tmp/whowrote-bench")
    ap.add_argument("--models", default="research41_lr,full_lr,full_lr_trees,default,char_ngram,combo")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    models = args.models.split(",")
    corpus = load_corpus(args.corpus).reset_index(drop=True)
    corpus["row_idx"] = np.arange(len(corpus))
    texts = corpus["text"].tolist()
    t0 = time.time()
    X = StyleModel().features(texts)  # canonical form, as the default recipe reads it
    Xa = copy_features(StyleModel().features, texts, args.seed)
    print(f"features: {time.time() - t0:.1f}s", flush=True)
    M = char_matrix(texts, out) if {"char_ngram", "combo"} & set(models) else None

    split = topic_holdout_split(corpus, seed=args.seed, balance=False)
    folds = [("topic_holdout", split["train"], split["val"])]
    folds += [(f"logo_{g}", tr, te) for g, tr, te in leave_one_genre_out(corpus)]
    results: dict = {}
    saved: dict = {}
    for name, tr, te in folds:
        rtr, rte = tr["row_idx"].to_numpy(), te["row_idx"].to_numpy()
        ytr, yte, gte = tr["provider"].to_numpy(), te["provider"].to_numpy(), te["genre"].to_numpy()
        probs = {}
        for m in models:
            t1 = time.time()
            if m == "research41_lr":
                est = Research41().fit(X[rtr], ytr)
                probs[m] = aligned(est.predict_proba(X[rte]), est.classes_)
            elif m in ("full_lr", "full_lr_trees"):
                est = StyleModel(use_trees=(m == "full_lr_trees"), seed=args.seed)
                est.fit(X[rtr], ytr, genres=tr["genre"].to_numpy(), groups=topic_keys(tr).to_numpy())
                probs[m] = aligned(est.predict_proba(X[rte]), est.classes_)
            elif m == "default":  # full_lr_trees + edited training copies: what train-probe ships
                est = fit_augmented(X[rtr], Xa[rtr], ytr, tr["genre"], topic_keys(tr), seed=args.seed)
                probs[m] = aligned(est.predict_proba(X[rte]), est.classes_)
                if name == "topic_holdout":
                    saved["model"] = est
            elif m == "char_ngram":
                est = CharNgrams(M).fit(rtr, ytr)
                probs[m] = aligned(est.predict_proba(rte), est.classes_)
            elif m == "combo":
                probs[m] = (probs["default"] + probs["char_ngram"]) / 2
            results.setdefault(m, {})[name] = score(probs[m], yte, gte)
            r = results[m][name]
            print(f"{name:16s} {m:14s} acc {r['accuracy']:.3f} 3prov {r['accuracy_3providers'] or 0:.3f} "
                  f"ece {r['ece']:.3f} auroc {r.get('other_auroc', float('nan')):.3f} ({time.time() - t1:.0f}s)", flush=True)
        if "default" in probs:
            saved.setdefault("calib", {})[name] = (probs["default"], np.array([LABELS.index(v) for v in yte]))
    if "model" in saved:
        results["length_falloff"] = length_falloff(saved["model"], split["val"])
    cal = {k: reliability(P, y) for k, (P, y) in saved.get("calib", {}).items()}
    results["reliability_default"] = cal
    (out / "accuracy.json").write_text(json.dumps(results, indent=1))
    plot(saved.get("calib", {}), results.get("length_falloff"), out)
    print(markdown(results, models))


def length_falloff(model: StyleModel, val) -> dict:
    """Accuracy of the topic-hold-out model on val texts cut to their first N words."""
    res = {}
    y, genres = val["provider"].to_numpy(), val["genre"].to_numpy()
    for n in (*LENGTHS, None):
        cut = [truncate_words(t, n) if n else t for t in val["text"]]
        P = model.predict_proba(cut)
        pred = model.classes_[P.argmax(1)]
        res[str(n or "full")] = {"accuracy": float((pred == y).mean()),
                                 "per_genre": {g: float((pred[genres == g] == y[genres == g]).mean())
                                               for g in sorted(val["genre"].unique())}}
        print(f"length {n or 'full'}: {res[str(n or 'full')]['accuracy']:.3f}", flush=True)
    return res


def plot(calib: dict, falloff: dict | None, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    ax = axes[0]
    ax.plot([0, 1], [0, 1], "k--", lw=1, label="perfect")
    for name, (P, y) in calib.items():
        bins = reliability(P, y, n_bins=10)
        ece = expected_calibration_error(P, y)
        ax.plot([b["confidence"] for b in bins], [b["accuracy"] for b in bins], "o-", label=f"{name} (ECE {ece:.3f})")
    ax.set(xlabel="confidence (top probability)", ylabel="accuracy", title="Default model: reliability")
    ax.legend(fontsize=7)
    if falloff:
        ax = axes[1]
        keys = [k for k in falloff if k != "full"]
        ax.plot([int(k) for k in keys], [falloff[k]["accuracy"] for k in keys], "o-", label="all genres")
        ax.axhline(falloff["full"]["accuracy"], color="grey", ls=":", label="full text")
        ax.set(xscale="log", xlabel="words kept (first N)", ylabel="accuracy", title="Accuracy vs text length (topic hold-out val)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "calibration.png", dpi=110)


def markdown(results: dict, models: list[str]) -> str:
    names = list(results[models[0]])
    lines = ["| model | " + " | ".join(names) + " | LOGO mean |", "|---" * (len(names) + 2) + "|"]
    for m in models:
        r = results[m]
        logo = [r[k]["accuracy"] for k in names if k.startswith("logo_")]
        lines.append(f"| {m} | " + " | ".join(f"{r[k]['accuracy']:.3f}" for k in names) + f" | {np.mean(logo):.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
