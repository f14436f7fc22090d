"""Lexical features (issue 17): function-word and frequent word/pair rates, chosen by a nested
leave-one-genre-out.

The block (``benchmarks/lexical_terms.py``): on the model's canonical text (ASCII typography, lower
case), the rate per 1,000 words of each term of a vocabulary of unigrams and adjacent pairs,
punctuation included (``of the``, ``, and``, ``. however``). The vocabulary comes from the
training genres of the fold only: terms in >= 5 % of the texts of >= 3 training genres (all of
them when only three), ranked by their third-highest per-genre mean rate; the top ``V`` are kept.
The model's signed ``log1p`` is the transform (it is what ``StyleModel`` applies to every column).

Candidates (``V`` in ``SIZES``):

- ``base``: the 197 existing features (the bundled recipe);
- ``alone:V``: the model's LR member on the lexical block alone (its own distance);
- ``concat:V``: the block appended to the existing features, in both members (and the distance);
- ``third:V``: a third member, ``alone:V``'s LR, averaged in: ``(1 - w) p_model + w p_lex``,
  ``w = THIRD_WEIGHT``.

Nesting (as ``benchmarks/invariant_features.py``). For each held-out (outer) genre, an inner
leave-one-genre-out over the four training genres: the vocabulary is re-chosen on the three inner
training genres, a cheap proxy is fitted and scored 3-way on the inner held-out genre. Proxies
(``--scorer``): ``lr``, the model's LR member; ``trees``, both members at 50 rounds on <= 200 texts
per (genre, label) cell (``invariant_features.proxy_3way``'s settings, approximate binning).

Rule fixed before the run: the candidate with the highest mean inner 3-way accuracy if it beats
``base`` by >= 0.5 points, else ``base``; ties go to the smaller ``V``. The topic hold-out model's
candidate is chosen the same way by a LOGO over the topic-train rows. ``--stage confirm`` fits
each chosen candidate once with the full model (both members, the training copies at weight 0.5,
seed 0; for ``concat`` the copies get their own lexical block) on each outer fold and the topic
hold-out's train; ``--stage report`` scores them as ``invariant_features`` does, beside the
bundled model's ``model.json`` metrics. ``--stage speed`` times the block per text against the
existing feature extraction, interleaved, on one core.

    C=(../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl); R=results/lexical_features
    K="--cache /tmp/h5lex/cache"   # seeded with benchmarks/robustness.py's raw and train_copy matrices
    OMP_NUM_THREADS=1 python benchmarks/lexical_features.py --stage lexicon --corpus ${C[@]} --out $R $K
    for s in lr trees; do for st in select confirm report; do
      OMP_NUM_THREADS=1 python benchmarks/lexical_features.py --stage $st --scorer $s --corpus ${C[@]} --out $R $K
    done; done
    # diagnostics (oracles when read on the outer LOGO, never results): one candidate on every fold
    for r in base third:1000 third:300 alone:1000; do for st in confirm report; do
      OMP_NUM_THREADS=1 python benchmarks/lexical_features.py --stage $st --rule $r --corpus ${C[@]} --out $R $K
    done; done
    OMP_NUM_THREADS=1 python benchmarks/lexical_features.py --stage edits --scorer trees --corpus ${C[@]} --out $R $K
    taskset -c 1 python benchmarks/lexical_features.py --stage speed --repeats 15 --corpus ${C[@]} --out $R $K
    python benchmarks/lexical_features.py --stage figure --corpus x --out $R

The ``edits``, ``speed`` and ``figure`` stages live in ``benchmarks/lexical_checks.py``. Writes
``select-*.json``, ``lexical_features-*.json``, ``fixed-*.json``, ``edits-*.json``, ``speed.json``
and ``lexical_features.png`` under ``--out``; the term counts (``lexicon.npz``), the fitted
members (``folds/*.pkl``) and the folds' predictions (``folds/*.npz``) go to ``--cache``.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from scipy import sparse

sys.path.insert(0, str(Path(__file__).parent))
from invariant_features import DEFAULT_MODEL, SubsetModel, _Fold, _write, fit_full, trees_proxy  # noqa: E402
from lexical_terms import choose_vocabulary, term_counts, term_name, tokens  # noqa: E402
from robustness import Features, corpus_args  # noqa: E402

from whowrote.data import load_corpus  # noqa: E402
from whowrote.data.splits import leave_one_genre_out, topic_holdout_split  # noqa: E402
from whowrote.style.heldout import evaluate_proba, logo_report, three_way  # noqa: E402
from whowrote.style.train import edited_copies  # noqa: E402
from whowrote.types import OTHER  # noqa: E402

SIZES = (100, 300, 1000)
MIN_DF, MIN_GENRES = 0.05, 3
THIRD_WEIGHT = 1 / 3
MIN_GAIN = 0.005
MEMBERS = ("alone", "concat", "third")


def candidates() -> list[str]:
    return ["base"] + [f"{m}:{v}" for m in MEMBERS for v in SIZES]


# ---- the term counts of every text and its training copy ------------------------------------
def pruned_terms(texts, g: np.ndarray) -> list:
    """Every term (``term_counts`` key) in >= MIN_DF of the texts of >= MIN_GENRES genres: a
    superset of every fold's candidates, so pruning chooses nothing."""
    keep: Counter = Counter()
    for genre in sorted(set(g.tolist())):
        df: Counter = Counter()
        rows = np.flatnonzero(g == genre)
        for i in rows:
            df.update(term_counts(tokens(texts[i]))[0].keys())
        keep.update(k for k, v in df.items() if v >= MIN_DF * len(rows))
    return sorted((k for k, v in keep.items() if v >= MIN_GENRES), key=term_name)


def count_arrays(texts, terms: list, name: str) -> dict[str, np.ndarray]:
    """The texts' counts of ``terms`` as CSR arrays ``{name}_data/_indices/_indptr`` plus their
    word counts ``{name}_words``."""
    col = {k: j for j, k in enumerate(terms)}
    ind, ptr, val, nw = [], [0], [], []
    for t in texts:
        c, n = term_counts(tokens(t))
        hit = [(col[k], v) for k, v in c.items() if k in col]
        ind += [j for j, _ in hit]
        val += [v for _, v in hit]
        ptr.append(len(ind))
        nw.append(n)
    return {f"{name}_data": np.array(val, np.float64), f"{name}_indices": np.array(ind, np.int64),
            f"{name}_indptr": np.array(ptr, np.int64), f"{name}_words": np.array(nw, np.int64)}


def stage_lexicon(corpus, feats, args, log) -> None:
    texts, g = corpus["text"].tolist(), corpus["genre"].to_numpy(object)
    terms = pruned_terms(texts, g)
    log(f"{len(terms)} terms in >= {MIN_DF:.0%} of the texts of >= {MIN_GENRES} genres")
    copies = edited_copies(texts, args.seed)[0]
    Xa = feats.get("default", np.arange(len(texts)), "train_copy", args.seed)
    check = np.random.default_rng(0).choice(len(texts), 20, replace=False)
    from whowrote.style import StyleModel
    if not np.array_equal(StyleModel().features([copies[i] for i in check]), Xa[check, 0]):
        raise SystemExit("the cached training copies do not match edited_copies()")
    out = {"terms": np.array([term_name(k) for k in terms])}
    for name, tx in (("raw", texts), ("copy", copies)):
        t0 = time.perf_counter()
        out |= count_arrays(tx, terms, name)
        log(f"  counts of the {name} texts in {time.perf_counter() - t0:.0f}s")
    np.savez(args.cache / "lexicon.npz", **out)


class Lexicon:
    """The stored counts (``lexicon.npz``'s arrays): per-fold vocabularies and lexical blocks."""

    def __init__(self, z) -> None:
        self.terms = [str(t) for t in z["terms"]]
        self.rate = {k: self._rates(z, k) for k in ("raw", "copy")}

    def _rates(self, z, k: str) -> sparse.csr_matrix:
        M = sparse.csr_matrix((z[f"{k}_data"], z[f"{k}_indices"], z[f"{k}_indptr"]), shape=(len(z[f"{k}_words"]), len(self.terms)))
        return sparse.csr_matrix(sparse.diags(1000.0 / np.maximum(z[f"{k}_words"], 1)) @ M)

    def vocabulary(self, rows: np.ndarray, g: np.ndarray, size: int) -> np.ndarray:
        """Column indices of the vocabulary chosen on ``rows`` alone (their genres ``g[rows]``)."""
        df, mr = {}, {}
        for genre in sorted(set(g[rows].tolist())):
            R = self.rate["raw"][rows[g[rows] == genre]]
            df[genre] = np.asarray((R > 0).mean(axis=0)).ravel()
            mr[genre] = np.asarray(R.mean(axis=0)).ravel()
        chosen = choose_vocabulary(df, mr, self.terms, size, MIN_DF, MIN_GENRES)
        idx = {t: j for j, t in enumerate(self.terms)}
        return np.array([idx[t] for t in chosen], dtype=np.int64)

    def block(self, rows: np.ndarray, cols: np.ndarray, which: str = "raw") -> np.ndarray:
        return self.rate[which][rows][:, cols].toarray()


# ---- the inner LOGO ------------------------------------------------------------------------
def proxy_proba(X, y, g, Xt, scorer: str) -> tuple[np.ndarray, np.ndarray]:
    """``(classes, probabilities on Xt)`` of the inner proxy (module docstring)."""
    m = trees_proxy(X, y, g) if scorer == "trees" else lr_member(X, y, g)
    return m.classes_, m.predict_proba(Xt)


def lr_member(X, y, g) -> SubsetModel:
    return SubsetModel(use_trees=False, calibrate=False).fit(X, y, genres=g)


def scores(classes, P, yt) -> dict[str, float]:
    from sklearn.metrics import roc_auc_score

    three = yt != OTHER
    m = _Fold(classes)
    out = {"acc3": float((three_way(m, P)[three] == yt[three]).mean()), "acc4": float((m.classes_[P.argmax(axis=1)] == yt).mean())}
    if OTHER in m.classes_ and 0 < (yt == OTHER).sum() < len(yt):
        out["other_auroc"] = float(roc_auc_score(yt == OTHER, P[:, list(m.classes_).index(OTHER)]))
    return out


def logo_scores(X, rows, y, g, lex: Lexicon, scorer: str, log, tag: str) -> dict[str, dict[str, dict[str, float]]]:
    """``{candidate: {held-out genre: scores}}`` by leave-one-genre-out over ``rows``."""
    out: dict = {c: {} for c in candidates()}
    for genre in sorted(set(g[rows].tolist())):
        tr, te = rows[g[rows] != genre], rows[g[rows] == genre]
        if not (y[te] != OTHER).any():
            continue
        cls, Pb = proxy_proba(X[tr], y[tr], g[tr], X[te], scorer)
        out["base"][genre] = scores(cls, Pb, y[te])
        big = lex.vocabulary(tr, g, max(SIZES))  # ranked: a smaller V is its prefix
        for v in SIZES:
            cols = big[:v]
            L, Lt = lex.block(tr, cols), lex.block(te, cols)
            lm = lr_member(L, y[tr], g[tr])
            Pl = lm.predict_proba(Lt)
            assert list(lm.classes_) == list(cls)
            out[f"alone:{v}"][genre] = scores(cls, Pl, y[te])
            out[f"third:{v}"][genre] = scores(cls, (1 - THIRD_WEIGHT) * Pb + THIRD_WEIGHT * Pl, y[te])
            c2, Pc = proxy_proba(np.hstack([X[tr], lex.block(tr, cols)]), y[tr], g[tr], np.hstack([X[te], lex.block(te, cols)]), scorer)
            out[f"concat:{v}"][genre] = scores(c2, Pc, y[te])
        log(f"  {tag} held out {genre}: " + ", ".join(f"{c} {out[c][genre]['acc3']:.3f}" for c in out))
    return out


def choose(inner: dict) -> tuple[str, dict[str, float]]:
    """The rule fixed before the run (module docstring)."""
    means = {c: float(np.mean([s["acc3"] for s in v.values()])) for c, v in inner.items()}
    size = lambda c: 0 if c == "base" else int(c.split(":")[1])  # noqa: E731
    best = sorted(inner, key=lambda c: (-means[c], size(c)))[0]
    return (best if means[best] >= means["base"] + MIN_GAIN else "base"), means


def folds_of(corpus, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    folds = {genre: (tr["row_idx"].to_numpy(), te["row_idx"].to_numpy()) for genre, tr, te in leave_one_genre_out(corpus)}
    split = topic_holdout_split(corpus, seed=seed, balance=False)
    folds["topic"] = (split["train"]["row_idx"].to_numpy(), split["val"]["row_idx"].to_numpy())
    return folds


def stage_select(corpus, X, lex, args, log) -> None:
    y, g = corpus["provider"].to_numpy(object), corpus["genre"].to_numpy(object)
    res: dict = {"scorer": args.scorer, "candidates": candidates(), "min_gain": MIN_GAIN, "third_weight": THIRD_WEIGHT,
                 "min_df": MIN_DF, "min_genres": MIN_GENRES, "n_terms_pruned": len(lex.terms), "outer": {}, "topic_fold": {}}
    for name, (tr, _) in folds_of(corpus, args.seed).items():
        inner = logo_scores(X, tr, y, g, lex, args.scorer, log, f"{name}: inner")
        picked, means = choose(inner)
        res["outer" if name != "topic" else "topic_fold"][name] = {"inner": inner, "inner_mean": means, "picked": picked}
        log(f"{name}: picked {picked} (inner means " + ", ".join(f"{c} {v:.3f}" for c, v in means.items()) + ")")
        _write(args.out / f"select-{args.scorer}.json", res)
    if args.scorer == "lr":  # diagnostic only (never used to choose): the proxy on the outer LOGO itself
        res["outer_diagnostic"] = logo_scores(X, np.arange(len(y)), y, g, lex, "lr", log, "outer LOGO (diagnostic)")
    _write(args.out / f"select-{args.scorer}.json", res)


# ---- the full model, once per fold ----------------------------------------------------------
def picked(sel: dict, name: str, rule: str | None) -> str:
    return rule or (sel["topic_fold"]["topic"]["picked"] if name == "topic" else sel["outer"][name]["picked"])


def stage_confirm(corpus, X, Xa, lex, args, log) -> None:
    sel = json.loads((args.out / f"select-{args.scorer}.json").read_text())
    y, g = corpus["provider"].to_numpy(object), corpus["genre"].to_numpy(object)
    d = args.cache / "folds"
    d.mkdir(parents=True, exist_ok=True)
    for name, (r, t) in folds_of(corpus, args.seed).items():
        if name not in args.folds:
            continue
        cand = picked(sel, name, args.rule)
        member, v = (cand.split(":") + ["0"])[:2]
        path = d / f"{name}-{cand.replace(':', '_')}.npz"
        if path.exists():
            log(f"confirm {name}: {cand} already fitted")
            continue
        t0 = time.perf_counter()
        cols = lex.vocabulary(r, g, int(v)) if member != "base" else np.array([], dtype=int)
        Xt = X[t]
        if member == "concat":
            Xt = np.hstack([X[t], lex.block(t, cols)])
            m = fit_full(np.hstack([X[r], lex.block(r, cols)]),
                         np.concatenate([Xa[r], lex.block(r, cols, "copy")[:, None, :]], axis=2), y[r], g[r], args.seed)
        elif member == "alone":
            m, Xt = fitted(d / f"{name}-lex{v}.pkl", log, fit_lex, lex, r, cols, y, g), lex.block(t, cols)
        else:
            m = fitted(d / f"{name}-base.pkl", log, fit_full, X[r], Xa[r], y[r], g[r], args.seed)
        logits, dist, P = m.logits(Xt), m.distance(Xt), m.predict_proba(Xt)
        if member == "third":
            lm = fitted(d / f"{name}-lex{v}.pkl", log, fit_lex, lex, r, cols, y, g)
            P = (1 - THIRD_WEIGHT) * np.exp(logits) + THIRD_WEIGHT * lm.predict_proba(lex.block(t, cols))
            logits = np.log(np.clip(P, 1e-300, None))
        np.savez(path, logits=logits, distance=dist, proba=P, rows=t, cols=cols, classes=np.array(m.classes_, dtype=str))
        log(f"confirm {name}: {cand} on {len(r)} texts in {time.perf_counter() - t0:.0f}s")


def fitted(path: Path, log, fit, *fit_args):
    """A fitted member, pickled under ``--cache`` (a base fit shared by two picks is made once).

    Only this experiment's own cache is unpickled (files it wrote under ``--cache``); never point
    ``--cache`` at a folder from elsewhere: a pickle can run code when loaded."""
    if path.exists():
        return pickle.loads(path.read_bytes())
    t0 = time.perf_counter()
    m = fit(*fit_args)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(pickle.dumps(m))
    tmp.replace(path)
    log(f"  fitted {path.name} in {time.perf_counter() - t0:.0f}s")
    return m


def fit_lex(lex: Lexicon, r, cols, y, g) -> SubsetModel:
    """The lexical LR member with the training copies at the bundled weight."""
    L = np.vstack([lex.block(r, cols), lex.block(r, cols, "copy")])
    w = np.r_[np.ones(len(r)), np.full(len(r), 0.5)]
    return SubsetModel(use_trees=False, calibrate=False).fit(L, np.tile(y[r], 2), genres=np.tile(g[r], 2), sample_weight=w)


def stage_report(corpus, args, log) -> None:
    sel = json.loads((args.out / f"select-{args.scorer}.json").read_text())
    y, g = corpus["provider"].to_numpy(object), corpus["genre"].to_numpy(object)
    names = sorted(sel["outer"]) + ["topic"]
    rules = {k: picked(sel, k, args.rule) for k in names}
    npz = {k: np.load(args.cache / "folds" / f"{k}-{r.replace(':', '_')}.npz") for k, r in rules.items()}
    tp = npz["topic"]
    topic = evaluate_proba(_Fold(tp["classes"]).classes_, tp["proba"], y[tp["rows"]], g[tp["rows"]])
    in_genre = (tp["logits"], tp["distance"], y[tp["rows"]], g[tp["rows"]])
    folds = [(k, _Fold(npz[k]["classes"]), npz[k]["logits"], y[npz[k]["rows"]], npz[k]["distance"]) for k in names[:-1]]
    base = json.loads(DEFAULT_MODEL.read_text())["metrics"]
    res = {"scorer": args.scorer, "fixed_rule": args.rule, "rules": rules,
           "lexical": {"logo": logo_report(folds, in_genre), "topic_holdout_val": topic},
           "bundled": {"logo": base["leave_one_genre_out"], "topic_holdout_val": base["topic_holdout_val"]}}
    tag = f"fixed-{args.rule.replace(':', '_')}" if args.rule else f"lexical_features-{args.scorer}"
    _write(args.out / f"{tag}.json", res)
    print(table(res))


def table(res: dict) -> str:
    a, b = res["lexical"]["logo"], res["bundled"]["logo"]
    f = lambda v: "—" if v is None else f"{v:.3f}"  # noqa: E731
    lines = ["| held-out genre | pick | 3-way bundled | 3-way lexical | 4-way bundled | 4-way lexical | OTHER AUROC bundled "
             "| OTHER AUROC lexical |", "|---|---|" + "---:|" * 6]
    for k in sorted(res["rules"]):
        if k != "topic":
            lines.append(f"| {k} | {res['rules'][k]} | {f(b[k]['accuracy_3way'])} | {f(a[k]['accuracy_3way'])} | {f(b[k]['accuracy'])} | "
                         f"{f(a[k]['accuracy'])} | {f(b[k].get('other_auroc'))} | {f(a[k].get('other_auroc'))} |")
    lines.append(f"| **mean** | | {f(b['mean_accuracy_3way'])} | {f(a['mean_accuracy_3way'])} | {f(b['mean_accuracy'])} | "
                 f"{f(a['mean_accuracy'])} | {f(b.get('mean_other_auroc'))} | {f(a.get('mean_other_auroc'))} |")
    ti, tb = res["lexical"]["topic_holdout_val"], res["bundled"]["topic_holdout_val"]
    lines += ["", f"topic hold-out val ({res['rules']['topic']}): | genre | bundled | lexical |"]
    lines += [f"| {k} (n={v['n']}) | {tb['per_genre'][k]['accuracy']:.3f} | {v['accuracy']:.3f} |" for k, v in ti["per_genre"].items()]
    return "\n".join(lines + [f"| all (n={ti['n']}) | {tb['accuracy']:.3f} | {ti['accuracy']:.3f} |"])


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]))
    ap.add_argument("--stage", choices=["lexicon", "select", "confirm", "report", "edits", "speed", "figure"], required=True)
    ap.add_argument("--scorer", choices=["lr", "trees"], default="lr")
    ap.add_argument("--folds", nargs="+", default=["topic", "blog", "chat", "debate", "fiction", "longform"])
    ap.add_argument("--rule", help="diagnostic: this candidate on every fold (an oracle when read on the outer LOGO)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cap", type=int, default=600, help="edits: val texts scored under the edits (robustness.py's default)")
    args = ap.parse_args()
    t_start = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t_start:6.0f}s] {msg}", flush=True)

    args.out.mkdir(parents=True, exist_ok=True)
    from lexical_checks import figure, stage_edits, stage_speed

    if args.stage == "figure":
        figure(args.out)
        return
    corpus = load_corpus(args.corpus).reset_index(drop=True)
    corpus["row_idx"] = np.arange(len(corpus))
    feats = Features(corpus, args.cache, log)
    rows = np.arange(len(corpus))
    if args.stage == "lexicon":
        stage_lexicon(corpus, feats, args, log)
    elif args.stage == "report":
        stage_report(corpus, args, log)
    else:
        lex = Lexicon(np.load(args.cache / "lexicon.npz"))
        if args.stage == "select":
            stage_select(corpus, feats.get("default", rows, "raw"), lex, args, log)
        elif args.stage == "edits":
            stage_edits(corpus, feats, lex, args, log)
        elif args.stage == "confirm":
            stage_confirm(corpus, feats.get("default", rows, "raw"), feats.get("default", rows, "train_copy", args.seed), lex, args, log)
        else:
            stage_speed(corpus, lex, args, log)
    log("done")


if __name__ == "__main__":
    main()
