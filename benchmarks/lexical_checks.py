"""The lexical-features experiment's checks (``benchmarks/lexical_features.py`` runs them as its
``edits``, ``speed`` and ``figure`` stages; commands there): the edit suite on the topic hold-out,
the block's cost per text against the existing features, and the figure.
"""

from __future__ import annotations

import json
import pickle
import time
from pathlib import Path

import numpy as np
from invariant_features import _write
from lexical_features import MIN_GAIN, SIZES, THIRD_WEIGHT, folds_of, picked, scores

from whowrote.data.splits import topic_holdout_split


# ---- the edit suite -----------------------------------------------------------------------------
def stage_edits(corpus, feats, lex, args, log) -> None:
    """The topic hold-out's val (capped as ``benchmarks/robustness.py`` caps it) under every edit of
    the suite: the base fit against the topic pick (``--rule`` to name another ``third``/``alone``)."""
    from lexical_terms import rates

    from whowrote.style.edits import edits
    from whowrote.style.heldout import capped

    sel = json.loads((args.out / f"select-{args.scorer}.json").read_text())
    cand = picked(sel, "topic", args.rule)
    member, v = (cand.split(":") + ["0"])[:2]
    if member not in ("third", "alone"):
        raise SystemExit(f"edits: the topic pick is {cand}; only third/alone reuse the stored fits")
    y, g = corpus["provider"].to_numpy(object), corpus["genre"].to_numpy(object)
    r, _ = folds_of(corpus, args.seed)["topic"]
    split = topic_holdout_split(corpus, seed=args.seed, balance=False)
    sub = capped(split["val"], args.cap, args.seed)
    rows, yt = sub["row_idx"].to_numpy(), y[sub["row_idx"].to_numpy()]
    d = args.cache / "folds"
    base = pickle.loads((d / "topic-base.pkl").read_bytes())
    lm = pickle.loads((d / f"topic-lex{v}.pkl").read_bytes())
    vocab = [lex.terms[j] for j in lex.vocabulary(r, g, int(v))]
    res: dict = {"candidate": cand, "n": len(rows), "cap": args.cap, "edits": {}}
    for name, fn in edits(args.seed).items():
        Xe = feats.get("default", rows, name, args.seed)
        Le = rates([fn(t) for t in corpus["text"].to_numpy()[rows]], vocab)
        Pb, Pl = base.predict_proba(Xe), lm.predict_proba(Le)
        P = Pl if member == "alone" else (1 - THIRD_WEIGHT) * Pb + THIRD_WEIGHT * Pl
        res["edits"][name] = {"base": scores(base.classes_, Pb, yt), cand: scores(base.classes_, P, yt)}
        log(f"  {name}: base {res['edits'][name]['base']['acc4']:.3f}, {cand} {res['edits'][name][cand]['acc4']:.3f}")
    _write(args.out / f"edits-{cand.replace(':', '_')}.json", res)


# ---- predict cost ----------------------------------------------------------------------------
def stage_speed(corpus, lex, args, log) -> None:
    """µs per text of the block (V = max(SIZES), vocabulary of all genres) and of the existing
    features, interleaved in rounds on the same texts."""
    from lexical_terms import rates

    from whowrote.style import StyleModel

    rng = np.random.default_rng(args.seed)
    texts = corpus["text"].to_numpy()[rng.choice(len(corpus), 500, replace=False)].tolist()
    g = corpus["genre"].to_numpy(object)
    res: dict = {"n_texts": len(texts), "words_mean": float(np.mean([len(t.split()) for t in texts]))}
    model = StyleModel()
    model.features(texts[:20])  # warm
    for v in SIZES:
        vocab = [lex.terms[j] for j in lex.vocabulary(np.arange(len(corpus)), g, v)]
        times = {"features": [], "lexical": []}
        for _ in range(args.repeats):
            for key in ("features", "lexical"):
                t0 = time.perf_counter()
                model.features(texts) if key == "features" else rates(texts, vocab)
                times[key].append((time.perf_counter() - t0) / len(texts) * 1e6)
        res[f"V={v}"] = {k: {"us_per_text_median": float(np.median(x)), "runs": x} for k, x in times.items()}
        res[f"V={v}"]["ratio_lexical_to_features"] = res[f"V={v}"]["lexical"]["us_per_text_median"] / res[f"V={v}"]["features"]["us_per_text_median"]
        log(f"V={v}: features {res[f'V={v}']['features']['us_per_text_median']:.0f} µs/text, "
            f"lexical {res[f'V={v}']['lexical']['us_per_text_median']:.0f} µs/text")
    _write(args.out / "speed.json", res)


def figure(out: Path) -> None:
    """Inner-LOGO means per candidate (both proxies, mean over outer folds) and the outer LOGO per genre."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    for s, mk in (("lr", "o"), ("trees", "s")):
        f = out / f"select-{s}.json"
        if f.exists():
            sel = json.loads(f.read_text())
            cands = sel["candidates"]
            vals = [np.mean([o["inner_mean"][c] - o["inner_mean"]["base"] for o in sel["outer"].values()]) for c in cands]
            axes[0].plot(range(len(cands)), vals, mk + "-", label=f"{s} proxy")
            axes[0].set_xticks(range(len(cands)), cands, rotation=60, fontsize=8)
    axes[0].axhline(MIN_GAIN, ls=":", c="grey", label="rule's margin (+0.5 pt)")
    axes[0].set_ylabel("inner LOGO 3-way minus base\n(mean over the 5 outer folds)")
    axes[0].legend(fontsize=8)
    for s, off in (("lr", 0.0), ("trees", 0.27)):
        f = out / f"lexical_features-{s}.json"
        if f.exists():
            r = json.loads(f.read_text())
            gs = sorted(k for k in r["rules"] if k != "topic")
            x = np.arange(len(gs))
            if off == 0:
                axes[1].bar(x - 0.27, [r["bundled"]["logo"][k]["accuracy_3way"] for k in gs], 0.27, label="bundled", color="grey")
            axes[1].bar(x + off, [r["lexical"]["logo"][k]["accuracy_3way"] for k in gs], 0.27, label=f"{s}-picked")
            axes[1].set_xticks(x, gs)
    axes[1].axhline(0.8, ls=":", c="k")
    axes[1].set_ylabel("outer LOGO 3-way (full model)")
    axes[1].set_ylim(0.3, 1.0)
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "lexical_features.png", dpi=110)


