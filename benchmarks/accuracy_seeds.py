"""In-genre accuracy of the default recipe over several topic hold-out seeds (the val splits are
small: one seed's blog val has 24 texts).

    python benchmarks/accuracy_seeds.py --corpus ../shared/corpus/*.jsonl --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse

import numpy as np

from whowrote.data import load_corpus
from whowrote.data.splits import topic_holdout_split, topic_keys
from whowrote.style import StyleModel
from whowrote.style.train import copy_features, fit_augmented


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", nargs="+", required=True)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    args = ap.parse_args()
    corpus = load_corpus(args.corpus).reset_index(drop=True)
    corpus["row_idx"] = np.arange(len(corpus))
    featurise = StyleModel().features  # the default recipe reads the canonical form of each text
    X = featurise(corpus["text"].tolist())
    per: dict[str, list[tuple[int, int]]] = {}
    for seed in args.seeds:
        Xa = copy_features(featurise, corpus["text"].tolist(), seed)
        s = topic_holdout_split(corpus, seed=seed, balance=False)
        tr, va = s["train"], s["val"]
        r = tr["row_idx"].to_numpy()
        m = fit_augmented(X[r], Xa[r], tr["provider"], tr["genre"], topic_keys(tr), seed=seed, calibrate=False)
        pred = m.predict(X[va["row_idx"].to_numpy()])
        ok = pred == va["provider"].to_numpy()
        line = []
        for g in sorted(va["genre"].unique()):
            sel = (va["genre"] == g).to_numpy()
            per.setdefault(g, []).append((int(ok[sel].sum()), int(sel.sum())))
            line.append(f"{g} {ok[sel].mean():.3f} (n={sel.sum()})")
        print(f"seed {seed}: all {ok.mean():.3f}; " + ", ".join(line), flush=True)
    print("\n| genre | correct / texts (pooled over seeds) | accuracy | per-seed range |\n|---|---:|---:|---:|")
    for g, v in per.items():
        c, n = sum(a for a, _ in v), sum(b for _, b in v)
        accs = [a / b for a, b in v]
        print(f"| {g} | {c} / {n} | {c / n:.3f} | {min(accs):.3f}–{max(accs):.3f} |")


if __name__ == "__main__":
    main()
