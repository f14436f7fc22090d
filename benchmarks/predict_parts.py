"""Where ``attribute()`` spends its time per text: CPU milliseconds of each step, in batches of 256.

    PYTHONPATH=/tmp/base/src taskset -c 1 python benchmarks/predict_parts.py --corpus ../shared/corpus/chat.jsonl --n 2048
    PYTHONPATH=src taskset -c 1 python benchmarks/predict_parts.py --corpus ../shared/corpus/chat.jsonl --n 2048
    PYTHONPATH=src taskset -c 1 python benchmarks/predict_parts.py --corpus ../shared/corpus/chat.jsonl --model models/blend300

Runs the steps of ``whowrote.style.verdict.attribute`` one by one on the bundled model (or ``--model``'s; input
checks, features, probabilities, distance, the decision attributions the tells need, the tells,
``to_dict`` + ``json.dumps``) and the whole ``attribute`` call, twice, and prints the second pass.
Where the model has ``proba_distance`` (one tree step gives the probabilities and either the trees'
credits, "proba + credits", or since session 33 their leaves, "proba + leaves"), that is one step,
and "attributions" picks the two compared classes' credits (summed there from the leaves).
``time.process_time`` (CPU time) is used so that other jobs on a shared machine disturb it less;
run it under each source tree's ``PYTHONPATH`` to compare (the older ``decision_attributions`` +
``make_tells`` path is used where ``decision_support`` does not exist).
"""

from __future__ import annotations

import argparse
import inspect
import json
import time
from pathlib import Path

import numpy as np

from whowrote.style import decision, explain
from whowrote.style.io import load_model
from whowrote.style.textcheck import inspect_text


def texts_of(path: Path, n: int) -> list[str]:
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    texts = [t for t in (r.get("text") or r.get("content") or "" for r in rows) if t.strip()]
    return [texts[i % len(texts)] for i in range(n)]


def parts(model, texts: list[str], n_tells: int) -> dict[str, float]:
    spent: dict[str, float] = {}

    def timed(name, fn):
        t0 = time.process_time()
        out = fn()
        spent[name] = spent.get(name, 0.0) + time.process_time() - t0
        return out

    for a in range(0, len(texts), 256):
        batch = texts[a:a + 256]
        checks = timed("inspect_text", lambda b=batch: [inspect_text(t) for t in b])
        X = timed("features", lambda c=checks: model.features([k.text for k in c]))
        if hasattr(model, "proba_distance"):  # one tree step: probabilities, distance and the trees' credits or leaves
            if "leaves" in inspect.signature(model.proba_distance).parameters:  # the leaves; credits of two classes later
                P, far, C = timed("proba + leaves", lambda x=X: model.proba_distance(x, leaves=n_tells > 0))
            else:
                P, far, C = timed("proba + credits", lambda x=X: model.proba_distance(x, credits=n_tells > 0))
            order = np.argsort(-P, axis=1)
            S = timed("attributions", lambda x=X, o=order, c=C: decision.decision_support(model, x, o[:, 0], o[:, 1], c))
            timed("tells", lambda x=X, s=S, o=order: explain.tells_of_rows(model, x, s, o[:, 0], o[:, 1], n_tells))
            found = timed("attribute (whole)", lambda b=batch: model.attribute(b, n_tells=n_tells))
            timed("to_dict + json", lambda f=found: [json.dumps(r.to_dict(), ensure_ascii=False) for r in f])
            continue
        P = timed("predict_proba", lambda x=X: model.predict_proba(x))
        timed("distance", lambda x=X, p=P: (model.distance(x), model.uncertain(p, x)))
        order = np.argsort(-P, axis=1)
        if hasattr(decision, "decision_support"):
            S = timed("attributions", lambda x=X, o=order: decision.decision_support(model, x, o[:, 0], o[:, 1]).tolist())
            timed("tells", lambda x=X, s=S, o=order: [explain.tells_from_support(model, x[i], s[i], int(o[i, 0]), int(o[i, 1]),
                                                                              n_tells) for i in range(len(x))])
        else:
            D = timed("attributions", lambda x=X: decision.decision_attributions(model, x))
            timed("tells", lambda x=X, d=D, o=order: [explain.make_tells(model, x[i], d[i], int(o[i, 0]), int(o[i, 1]), n_tells)
                                                      for i in range(len(x))])
        found = timed("attribute (whole)", lambda b=batch: model.attribute(b, n_tells=n_tells))
        timed("to_dict + json", lambda f=found: [json.dumps(r.to_dict(), ensure_ascii=False) for r in f])
    return spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--n", type=int, default=2048, help="texts (the corpus is cycled)")
    ap.add_argument("--tells", type=int, default=3)
    ap.add_argument("--model", type=Path, help="a model folder (default: the bundled model)")
    args = ap.parse_args()
    model = load_model(args.model) if args.model else load_model()
    texts = texts_of(args.corpus, args.n)
    parts(model, texts[:256], args.tells)  # warm-up
    spent = parts(model, texts, args.tells)
    print(f"{args.corpus.name}: {len(texts)} texts, CPU ms per text")
    for name, sec in spent.items():
        print(f"  {name:18s} {1000 * sec / len(texts):7.3f}")


if __name__ == "__main__":
    main()
