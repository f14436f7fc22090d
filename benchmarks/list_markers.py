"""How many verdicts a list-marker edit flips: every corpus text with "- " / "+ " bullets rewritten with
"* " (``whowrote.style.edits.star_bullets``), and every text with "* " bullets rewritten with "- "
(``whowrote.style.edits.same_list_markers``), scored by a model before and after.

The texts are the corpus's own, which the bundled model was trained on, so accuracy here is not a
held-out number; the flips are what matters: a Markdown formatter's choice of marker should not
change a verdict. Held-out accuracy under ``star_bullets`` is in ``benchmarks/robustness.py``.

    OMP_NUM_THREADS=1 python benchmarks/list_markers.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --out results/list_markers/flips_bundled.json [--model DIR]
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np

from whowrote.data import load_corpus
from whowrote.data.generate.store import atomic_write
from whowrote.style import load_model
from whowrote.style.edits import same_list_markers, star_bullets
from whowrote.types import WhowroteError

# a bullet with text after it, at a line's start (the same lines the two edits rewrite)
DASH_BULLET = re.compile(r"(?m)^[ \t]*[-+][ \t]+\S")
STAR_BULLET = re.compile(r"(?m)^[ \t]*\*[ \t]+\S")
EDITS = (("dash_to_star", DASH_BULLET, star_bullets), ("star_to_dash", STAR_BULLET, same_list_markers))


def flips(model, frame) -> dict[str, dict[str, float]]:
    """Per genre and direction: texts with such bullets, verdicts flipped, accuracy before / after."""
    out: dict[str, dict[str, float]] = {}
    classes = list(model.classes_)
    for genre, sub in frame.groupby("genre"):
        for name, pattern, edit in EDITS:
            sel = sub[sub["text"].str.contains(pattern)]
            if sel.empty:
                continue
            texts = sel["text"].tolist()
            before = model.predict_proba(texts).argmax(1)
            after = model.predict_proba([edit(t) for t in texts]).argmax(1)
            gold = np.array([classes.index(p) for p in sel["provider"]])
            out[f"{genre} {name}"] = {"n": len(sel), "flips": int((before != after).sum()),
                                      "accuracy_before": round(float((before == gold).mean()), 4),
                                      "accuracy_after": round(float((after == gold).mean()), 4)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", nargs="+", required=True)
    ap.add_argument("--model", default=None, help="a train-probe model folder (default: the bundled model)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    try:
        model = load_model(args.model)
        table = flips(model, load_corpus(args.corpus))
    except (WhowroteError, OSError, ValueError) as e:  # a missing corpus or model folder: one line, exit 1
        raise SystemExit(f"error: {e}") from None
    for key, r in table.items():
        print(f"{key:24s} n={r['n']:5d} flips={r['flips']:4d} accuracy {r['accuracy_before']:.3f} -> {r['accuracy_after']:.3f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out, json.dumps({"model": args.model or "bundled", "flips": table}, indent=1) + "\n")


if __name__ == "__main__":
    main()
