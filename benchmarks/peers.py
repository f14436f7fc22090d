"""whowrote next to peer stylometry libraries: speed on the same texts, and attribution accuracy
for faststylometry's Burrows' Delta on the same splits as ``benchmarks/accuracy.py``.

    pip install -e '.[bench]'
    python benchmarks/peers.py --corpus ../shared/corpus/*.jsonl

- speed (one core, blog posts): ``textstat`` (five count/readability functions per text that
  need no NLTK download: lexicon, sentence and character counts, Coleman-Liau, ARI),
  ``pystylometry.analyze`` (its default lexical metrics), faststylometry's tokeniser, and
  whowrote's research41 / full feature extraction;
- accuracy: Burrows' Delta (faststylometry, 50 most frequent words, pronouns removed; each label
  one "author", nearest author wins) on the topic hold-out and leave-one-genre-out splits.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from whowrote.data import load_corpus
from whowrote.data.splits import leave_one_genre_out, topic_holdout_split
from whowrote.style import extract


def rate(fn, texts) -> float:
    t0 = time.perf_counter()
    for t in texts:
        fn(t)
    return len(texts) / (time.perf_counter() - t0)


def speed(texts: list[str]) -> None:
    import pystylometry
    import textstat
    from faststylometry.en import tokenise_remove_pronouns_en

    # Syllable-based scores (Flesch, Gunning fog) need NLTK's cmudict download, which this
    # offline machine cannot fetch; these five need no extra data.
    def ts(t):
        return (textstat.lexicon_count(t), textstat.sentence_count(t), textstat.char_count(t),
                textstat.coleman_liau_index(t), textstat.automated_readability_index(t))

    mb = sum(len(t.encode()) for t in texts) / 1e6 / len(texts)
    rows = [
        ("textstat 0.7 (5 functions)", rate(ts, texts)),
        ("pystylometry.analyze (lexical)", rate(pystylometry.analyze, texts[:40])),
        ("faststylometry tokenise", rate(tokenise_remove_pronouns_en, texts)),
        ("whowrote research41", len(texts) / _t(lambda: extract(texts, "research41"))),
        ("whowrote full", len(texts) / _t(lambda: extract(texts, "full"))),
    ]
    print("| library | docs/s | MB/s |\n|---|---:|---:|")
    for name, r in rows:
        print(f"| {name} | {r:,.1f} | {r * mb:.2f} |", flush=True)


def _t(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def burrows(train, test) -> tuple[float, float]:
    from faststylometry import Corpus, calculate_burrows_delta
    from faststylometry.en import tokenise_remove_pronouns_en

    t0 = time.perf_counter()
    tr, te = Corpus(), Corpus()
    for r in train.itertuples():
        tr.add_book(r.provider, str(r.id), r.text)
    for r in test.itertuples():
        te.add_book("unknown", str(r.id), r.text)
    tr.tokenise(tokenise_remove_pronouns_en)
    te.tokenise(tokenise_remove_pronouns_en)
    delta = calculate_burrows_delta(tr, te, vocab_size=50)
    pred = delta.idxmin(axis=0)  # nearest author per test text
    gold = dict(zip("unknown - " + test["id"].astype(str), test["provider"], strict=True))
    acc = float(np.mean([pred[c] == gold[c] for c in delta.columns]))
    return acc, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", nargs="+", required=True)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    corpus = load_corpus(args.corpus).reset_index(drop=True)
    blogs = corpus.loc[corpus["genre"] == "blog", "text"].tolist()[:200]
    if blogs:
        speed(blogs)
    split = topic_holdout_split(corpus, seed=args.seed, balance=False)
    folds = [("topic_holdout", split["train"], split["val"])]
    folds += [(f"logo_{g}", tr, te) for g, tr, te in leave_one_genre_out(corpus)]
    print("\n| split | Burrows' Delta accuracy | seconds |\n|---|---:|---:|")
    for name, tr, te in folds:
        acc, dt = burrows(tr, te)
        print(f"| {name} | {acc:.3f} | {dt:.1f} |", flush=True)


if __name__ == "__main__":
    main()
