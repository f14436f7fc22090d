"""The style model on exactly the texts the answer-only LM is scored on (session 11; issue 17 beside 14).

Two side-by-sides, 3-way accuracy (the most probable of CLAUDE / CHATGPT / GEMINI) and recall:

- **the edits**: the ladder's 240-text val (``.gguf/data/val.jsonl.gz``) raw and under every edit of
  ``.gguf/edits`` (``edit_splits.py``), scored by the bundled recipe fitted here on every corpus text
  (five genres) whose topic is not one of the val's topics;
- **the unseen genre**: ``.gguf/edits/chat.jsonl.gz`` scored by the recipe fitted on blogs, debates,
  fiction and longform only (the genre-jackknife cache's 4-genre fit: the LM's train genres).

Features and the 4-genre fit come from ``benchmarks/genre_jackknife.py``'s cache (computed there if
missing, ~15 min); the topic fit takes ~3 min on one core.

    OMP_NUM_THREADS=1 python scripts/gpu/style_side_by_side.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --out results/session11/style_side_by_side.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from genre_jackknife import CACHE, PARAMS, features, fit_subset  # noqa: E402
from robustness import timed_log  # noqa: E402

from whowrote.data.generate.store import atomic_write  # noqa: E402
from whowrote.style.train import fit_augmented, training_corpus  # noqa: E402
from whowrote.types import LABELS, PROVIDERS  # noqa: E402

PI = [LABELS.index(p) for p in PROVIDERS]


def read_rows(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def three_way(P: np.ndarray, gold: list[str]) -> dict:
    """3-way accuracy and per-provider recall of probabilities ``P`` (columns ``LABELS``)."""
    pred = np.array(PROVIDERS)[P[:, PI].argmax(axis=1)]
    g = np.array(gold)
    return {"n": len(g), "accuracy": float((pred == g).mean()),
            "recall": {p: float((pred[g == p] == p).mean()) for p in PROVIDERS if (g == p).any()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", nargs="+", required=True)
    ap.add_argument("--val", type=Path, default=Path(".gguf/data/val.jsonl.gz"))
    ap.add_argument("--edits", type=Path, default=Path(".gguf/edits"))
    ap.add_argument("--cache", type=Path, default=Path(CACHE))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    log = timed_log()
    a.cache.mkdir(parents=True, exist_ok=True)
    corpus = training_corpus(a.corpus)
    X, Xa = features(corpus["text"].tolist(), a.seed, a.cache, log)
    out: dict = {"command": "scripts/gpu/style_side_by_side.py", "seed": a.seed}

    # the edits: fit on every text whose topic the val does not hold
    val = read_rows(a.val)
    topics = {r["topic"] for r in val}
    keep = ~corpus["topic"].astype(str).isin(topics).to_numpy()
    tr = corpus[keep]
    log(f"topic fit on {int(keep.sum())} of {len(corpus)} texts ({len(topics)} val topics held out)")
    model = fit_augmented(X[keep], Xa[keep], tr["provider"], tr["genre"], seed=a.seed, **PARAMS)
    gold = [r["provider"] for r in val]

    def probs(texts: list[str]) -> np.ndarray:
        p = np.exp(model.logits(model.features(texts)))
        P = np.zeros((len(texts), len(LABELS)))
        for j, c in enumerate(model.classes_):
            P[:, LABELS.index(c)] = p[:, j]
        return P

    edits = {"raw": three_way(probs([r["text"] for r in val]), gold)}
    for f in sorted(a.edits.glob("val.*.jsonl.gz")):
        rows = read_rows(f)
        assert [r["id"] for r in rows] == [r["id"] for r in val], f"{f}: not the val's rows in order"
        edits[f.name.split(".")[1]] = three_way(probs([r["text"] for r in rows]), gold)
    out["edits"] = {k: {**v, "drop_points": 100 * (v["accuracy"] - edits["raw"]["accuracy"])} for k, v in edits.items()}

    # the unseen genre: the 4-genre fit (no chat), on the same 240 chat answers as the LM
    chat = read_rows(a.edits / "chat.jsonl.gz")
    P4, _ = fit_subset(("blog", "debate", "fiction", "longform"), corpus, X, Xa, a.seed, a.cache, log)
    row_of = {i: n for n, i in enumerate(corpus["id"].astype(str))}
    idx = [row_of[str(r["id"])] for r in chat]
    out["chat_logo"] = three_way(P4[idx], [r["provider"] for r in chat])
    a.out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(a.out, json.dumps(out, indent=1) + "\n")
    for k, v in out["edits"].items():
        log(f"{k:18s} 3-way {v['accuracy']:.3f} ({v['drop_points']:+.1f})")
    log(f"chat (4-genre fit) 3-way {out['chat_logo']['accuracy']:.3f} recall {out['chat_logo']['recall']}")


if __name__ == "__main__":
    main()
