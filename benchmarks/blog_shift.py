"""Why Claude's blog posts turn CHATGPT once chat answers are in training (issue 17, session 38).

A diagnostic that decides nothing. Trained with Arena-Hard's half-A answers, the bundled recipe's
leave-one-genre-out blog accuracy fell from 0.796 to 0.630: Claude's posts (all by Claude Opus 4.8)
are called CHATGPT. The arena_cap trial showed the fall does not depend on how many answers there
are. This reads the corpus's blog posts with two saved models fitted without the blog genre, one
without the answers (``--base``) and one with them (``--with``). For each model it reports:

- the 3-way verdicts of each provider's posts;
- per cue (the tells' unit: :data:`whowrote.style.explain.CUES` groups features), the mean support
  for CLAUDE over CHATGPT on Claude's posts. The support is
  :func:`whowrote.style.decision.decision_support`, the quantity the tells rank: linear terms plus
  exact tree credits, in logit units.

The cues whose support moved most toward CHATGPT between the two models show where the answers
changed the reading::

    C="--corpus ../shared/corpus/debates.jsonl --corpus ../shared/corpus/fiction.jsonl
       --corpus ../shared/corpus/longform.jsonl --corpus ../shared/corpus/chat.jsonl"
    whowrote train-probe --no-check --out /tmp/logo_blog/noarena $C   # 6 and 11 min on one core
    whowrote train-probe --no-check --out /tmp/logo_blog/arena $C --corpus runs/arena/arena-hard.jsonl
    python benchmarks/blog_shift.py --blogs ../shared/corpus/blogs.jsonl \\
        --base /tmp/logo_blog/noarena --with /tmp/logo_blog/arena --out results/blog_shift.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from whowrote.data import load_corpus
from whowrote.data.generate.store import atomic_write
from whowrote.style.decision import decision_support
from whowrote.style.explain import cue_table
from whowrote.style.io import load_model
from whowrote.style.textcheck import inspect_text
from whowrote.types import PROVIDERS

TOP = 12


def read_model(model_dir: Path, texts: list[str], gold: np.ndarray) -> dict:
    """Verdicts per provider, and each cue's mean CLAUDE-over-CHATGPT support on Claude's texts."""
    model = load_model(model_dir)
    X = model.features([inspect_text(t).text for t in texts])  # as attribute() reads a text
    P = model.predict_proba(X)
    classes = list(model.classes_)
    three = np.array(PROVIDERS)[P[:, [classes.index(p) for p in PROVIDERS]].argmax(axis=1)]
    verdicts = {g: {p: int(((gold == g) & (three == p)).sum()) for p in PROVIDERS} for g in sorted(set(gold))}
    claude = gold == "CLAUDE"
    n = int(claude.sum())
    S = decision_support(model, X[claude], np.full(n, classes.index("CLAUDE")), np.full(n, classes.index("CHATGPT")))
    cue_id, cue_names, _ = cue_table(tuple(model.feature_names_))
    per_cue = np.bincount(np.repeat(cue_id[None, :], n, axis=0).ravel(), weights=S.ravel(),
                          minlength=len(cue_names)) / n
    return {"verdicts_3way": verdicts, "claude_support_total": float(S.sum(axis=1).mean()),
            "claude_support_by_cue": {c: float(v) for c, v in zip(cue_names, per_cue, strict=True)}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--blogs", type=Path, required=True, help="the corpus's blog file (any reader-stack source)")
    ap.add_argument("--base", type=Path, required=True, help="a model fitted without the blogs or the answers")
    ap.add_argument("--with", dest="with_", type=Path, required=True, help="the same with the answers")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    corpus = load_corpus([a.blogs])
    texts, gold = corpus["text"].astype(str).tolist(), corpus["provider"].to_numpy(object)
    res = {"blogs": str(a.blogs), "n": len(texts), "base": read_model(a.base, texts, gold),
           "with": read_model(a.with_, texts, gold)}
    base, wth = res["base"]["claude_support_by_cue"], res["with"]["claude_support_by_cue"]
    shift = {c: wth.get(c, 0.0) - base.get(c, 0.0) for c in set(base) | set(wth)}
    res["shift_toward_chatgpt"] = dict(sorted(shift.items(), key=lambda kv: kv[1])[:TOP])
    res["shift_toward_claude"] = dict(sorted(shift.items(), key=lambda kv: -kv[1])[:TOP])
    atomic_write(a.out, json.dumps(res, indent=1) + "\n")
    for name in ("base", "with"):
        r = res[name]
        print(f"{name}: verdicts {r['verdicts_3way']}; mean CLAUDE-over-CHATGPT support on Claude's posts "
              f"{r['claude_support_total']:+.2f}")
    print("cues moved toward CHATGPT (support with - base): " +
          "; ".join(f"{c} {v:+.2f} ({base.get(c, 0):+.2f} -> {wth.get(c, 0):+.2f})"
                    for c, v in res["shift_toward_chatgpt"].items()))
    print("cues moved toward CLAUDE: " + "; ".join(f"{c} {v:+.2f}" for c, v in res["shift_toward_claude"].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
