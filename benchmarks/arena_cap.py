"""Trial (issue 17, session 38): fewer Arena-Hard answers in training, the same gain outside the corpus?
(And two later challengers of all the answers, ``--arm plain`` and ``--arm both``, below.)

The bundled model trains on 13,159 half-A answers. It gained 12 points 3-way on half B, but lost
16.6 points of leave-one-genre-out blog accuracy, and 1.3 more points under all edits combined.
Session 38's curve (docs/predict.md, "How many answers from a new source does it take?") showed the
gain on half B levelling off after about a thousand answers. So: does a capped share of the answers
keep the gain at a smaller cost? Everything below was fixed before the first run (2026-12-05,
20:25 UTC). It is decided on inner splits only: no half-B answer and no text of the corpus's
reported topic hold-out val is read.

- Corpus: the outer train part of the topic hold-out (``topic_holdout_split(seed=0, balance=False)``,
  as ``external_training.py``), split again by topic (``seed=1``) into an inner train and an inner val (T3).
- Answers: half A's prompts split again by the parity of ``sha256(question)``'s *second* byte. Answers
  to A1 prompts may be trained on; answers to A2 prompts are tested. Held-out versions are never
  trained on (``external_answers.HELD_OUT``).
- Arms, each the bundled recipe (``robustness.fit_recipe``, ``default``) on the inner train plus:
  ``all``, every A1 answer by a version not held out (the bundled model's data at this scale); ``cap``,
  at most ``CAP`` = 400 of them per label (CLAUDE, CHATGPT, GEMINI, OTHER), seeded.
- Tests: T1, A2 answers by trained versions; T2, A2 answers by held-out versions (mean 3-way recall);
  T3, the inner val (4-way), and its drop under all edits combined; LOGO over the outer train's five
  genres (3-way; each arm fitted on the other genres plus its answers).
- Rule: ``cap`` is the better recipe if (a) its LOGO 3-way mean is at least 1.0 point above ``all``'s,
  or its T3 combined-edit drop is at least 1.0 point smaller; and (b) its mean 3-way recall on T1 and
  on T2 is each at most 2 points under ``all``'s; and (c) its T3 4-way accuracy is at most 0.5 points
  under ``all``'s. Otherwise the bundled data stays.

::

    OMP_NUM_THREADS=2 python benchmarks/arena_cap.py --answers /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/arena_cap \\
        --figure docs/figures/arena_cap.png   # 473 s with the features cached

Result (session 38): the rule's (a) failed, so **the bundled data stays** (docs/predict.md, "Fewer
answers, the same costs").

Second challenger, ``--arm plain`` (added 2026-12-05, 20:40 UTC, before its run). ``blog_shift.py``
found that the answers cost leave-one-genre-out blog accuracy through layout cues (Markdown headings,
italics, paragraphing). The ``plain`` arm trains on every ``all`` answer with its Markdown stripped
(``whowrote.style.edits.strip_markdown``; the recipe then makes its copies of the stripped text).
The tests, T1 and T2 included, read the answers as written. Same splits, same tests and the same
rule, with ``plain`` in the place of ``cap``::

    OMP_NUM_THREADS=1 python benchmarks/arena_cap.py --arm plain --answers /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/arena_plain \\
        --figure docs/figures/arena_plain.png

Third challenger, ``--arm both`` (added 2026-12-05, 20:43 UTC, before its run). It was added after
``plain``'s first numbers: inner LOGO blog went from 0.516 to 0.822, but mean recall on answers as
written fell 8–10 points. ``both`` trains on every ``all`` answer as written *and* on its stripped
copy. Same splits, tests and rule, with ``both`` in the place of ``cap``::

    OMP_NUM_THREADS=1 python benchmarks/arena_cap.py --arm both --answers /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/arena_both \\
        --figure docs/figures/arena_both.png

Fourth challenger, ``--arm route`` (added 2026-12-05, 22:20 UTC, session 39, before its run). The
answers teach chat-answer cues that the blog posts then pay for (``blog_shift.py``): so let the kind
of text choose the weights. ``route`` fits the recipe twice, with every ``all`` answer (as ``all``)
and without any, and a kind detector (standardised features, logistic regression) that tells a chat
answer (the corpus's ``chat`` genre and the added answers) from any other text. Each text is read
by the two fits in proportion to the detector's probability that it is a chat answer
(:class:`Routed`). Nothing is set by hand: no threshold, the detector's default settings. Same
splits, tests and rule, with ``route`` in the place of ``cap``; the detector's kind accuracy on each
test and each LOGO genre is reported beside it, not part of the rule::

    OMP_NUM_THREADS=1 python benchmarks/arena_cap.py --arm route --answers /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/arena_route \\
        --figure docs/figures/arena_route.png

Result (session 39): the rule's (a) failed (LOGO mean 0.716 -> 0.710; the detector gives an unseen
genre's texts the right kind 62-87 % of the time), so **the bundled data stays**.

Fifth challenger, ``--arm balance`` (added 2026-12-06, session 49, before its run). ``plain`` showed
the answers' layout is both their gain on answers and their blog cost; removing it removed both.
In half A the layout is also unevenly spread over the labels (Markdown headings in 45 % of CHATGPT's
answers, 41 % of GEMINI's, 30 % of OTHER's, 17 % of CLAUDE's), and the corpus's blog posts all have
headings, Claude's and ChatGPT's alike. ``balance`` keeps every ``all`` answer as written but
weights it so that, among the added answers, each label has the same layout profile: a text's
profile is three flags (a Markdown heading line, a list line, ``**`` bold; :func:`layout_profile`),
eight strata; an answer of label ``c`` in stratum ``s`` weighs ``P(s) / P(s | c)`` (``P(s)`` over all
the added answers), clipped to [0.25, 4] (:func:`balance_weights`); its training copies weigh the
same times the recipe's copy weight; corpus rows weigh 1. So "has headings" no longer tells the
labels apart among the answers, while how each label writes its headings, lists and prose stays.
Same splits, tests and rule, with ``balance`` in the place of ``cap``::

    OMP_NUM_THREADS=1 python benchmarks/arena_cap.py --arm balance --answers /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/arena_balance \\
        --figure docs/figures/arena_balance.png

Result (session 49): the rule's (a), (b) and (c) all failed (LOGO mean 0.716 -> 0.708, blog 0.516 ->
0.510; T1 / T2 mean recall -3.1 / -4.1; T3 -0.7), so **the bundled data stays**.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from external_training import GENRE, TEST_KEYS, arena_rows, logo_block, paired_test
from robustness import Features, corpus_args, drop_intervals, fit_recipe, indexed_corpus, timed_log
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import leave_one_genre_out, topic_holdout_split, topic_keys
from whowrote.style import StyleModel
from whowrote.style.edits import strip_markdown

CAP = 400
GAIN, RECALL_SLACK, ACC_SLACK = 1.0, 2.0, 0.5  # points


def in_a1(question: str) -> bool:
    """Half A's inner split: an A1 prompt (trained on) by the parity of its sha256's second byte."""
    return hashlib.sha256(question.encode()).digest()[1] % 2 == 0


def capped(rows: pd.DataFrame, cap: int, seed: int) -> pd.DataFrame:
    """At most ``cap`` rows per label, drawn at random (seeded)."""
    return pd.concat([g.sample(min(len(g), cap), random_state=seed) for _, g in rows.groupby("provider", sort=True)])


CHAT_KINDS = ("chat", GENRE)  # the genres the kind detector calls chat answers
WEIGHT_CLIP = (0.25, 4.0)
_HEADING = r"(?m)^#{1,6} "
_LIST = r"(?m)^ {0,3}(?:[-*+]|\d{1,3}[.)]) "
_BOLD = r"\*\*\S"


def layout_profile(texts: pd.Series) -> pd.Series:
    """Each text's layout stratum, 0-7: a Markdown heading line (4), a list line (2), ``**`` bold (1)."""
    flags = [texts.str.contains(rx, regex=True) for rx in (_HEADING, _LIST, _BOLD)]
    return flags[0].astype(int) * 4 + flags[1].astype(int) * 2 + flags[2].astype(int)


def balance_weights(rows: pd.DataFrame) -> np.ndarray:
    """``P(s) / P(s | label)`` per row (``s``: :func:`layout_profile`), clipped to ``WEIGHT_CLIP``."""
    strata = layout_profile(rows.text)
    pooled = strata.value_counts(normalize=True)
    within = strata.groupby(rows.provider).value_counts(normalize=True)
    w = [pooled[s] / within[(c, s)] for c, s in zip(rows.provider, strata, strict=True)]
    return np.clip(np.asarray(w, dtype=np.float64), *WEIGHT_CLIP)


@dataclass
class Routed:
    """Two fits read a text in proportion to the kind detector's probability that it is a chat answer:
    ``chat`` (fitted with the answers) for chat answers, ``prose`` (without them) for the rest."""

    chat: StyleModel
    prose: StyleModel
    kind: Pipeline

    def __post_init__(self) -> None:
        assert list(self.chat.classes_) == list(self.prose.classes_), "the two fits' labels differ"

    @property
    def classes_(self) -> np.ndarray:
        return self.chat.classes_

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        p = self.kind.predict_proba(X)[:, 1:2]
        return p * self.chat.predict_proba(X) + (1 - p) * self.prose.predict_proba(X)


def fit_kind(feats: Features, rows: pd.DataFrame) -> Pipeline:
    """The kind detector: chat answer (``CHAT_KINDS``) or not, on the recipe's unedited features."""
    X = feats.get("default", rows.row_idx.to_numpy(), "raw")
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X, rows.genre.isin(CHAT_KINDS))


def kind_accuracy(kind: Pipeline, feats: Features, rows: pd.DataFrame) -> float:
    """The share of ``rows`` whose kind the detector gets right (probability over 0.5)."""
    p = kind.predict_proba(feats.get("default", rows.row_idx.to_numpy(), "raw"))[:, 1]
    return float(((p > 0.5) == rows.genre.isin(CHAT_KINDS).to_numpy()).mean())


def fitter(feats: Features, arm: str, seed: int):
    """How ``arm`` is fitted on ``train`` plus its added rows: the recipe on both, or for ``route``
    a :class:`Routed` pair and its detector."""
    def fit(train: pd.DataFrame, add: pd.DataFrame):
        both = pd.concat([train, add])
        if arm == "balance":
            return fit_recipe(feats, "default", both, seed, row_weight=np.r_[np.ones(len(train)), balance_weights(add)])
        if arm != "route":
            return fit_recipe(feats, "default", both, seed)
        return Routed(fit_recipe(feats, "default", both, seed), fit_recipe(feats, "default", train, seed),
                      fit_kind(feats, both))
    return fit


def logo_means(res: dict) -> dict[str, float]:
    """Each arm's LOGO 3-way accuracy, averaged over the genres."""
    return {a: float(np.mean([g[a]["accuracy_3way"] for g in res["LOGO"].values()])) for a in ("all", res["arm"])}


def rule(res: dict) -> dict[str, bool]:
    """The docstring's rule on the results (points: 100 x the score differences, challenger minus all)."""
    t, arm, mean_logo = res["tests"], res["arm"], logo_means(res)
    drop = {a: res["T3 combined drop"][a]["diff"] for a in ("all", arm)}
    d = {name: 100 * (t[name][arm][key] - t[name]["all"][key])
         for name, key in (("T1", "mean_recall_3way"), ("T2", "mean_recall_3way"), ("T3", "accuracy"))}
    return {"a: LOGO +1 or combined drop -1": 100 * (mean_logo[arm] - mean_logo["all"]) >= GAIN
            or drop["all"] - drop[arm] >= GAIN,
            "b: T1 and T2 within 2": d["T1"] >= -RECALL_SLACK and d["T2"] >= -RECALL_SLACK,
            "c: T3 within 0.5": d["T3"] >= -ACC_SLACK}


def figure(res: dict, path: Path) -> None:
    """Both arms side by side: T1 / T2 mean 3-way recall, T1 / T3 4-way accuracy, LOGO 3-way per genre."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = res["tests"]
    cells = {"T1 mean recall": ("T1", "mean_recall_3way"), "T2 mean recall": ("T2", "mean_recall_3way"),
             "T1 4-way": ("T1", "accuracy"), "T3 4-way": ("T3", "accuracy")}
    names = [*cells, *(f"LOGO {g}" for g in res["LOGO"])]
    fig, ax = plt.subplots(figsize=(9, 3.4))
    for i, arm in enumerate(("all", res.get("arm", "cap"))):  # session 38's cap run predates "arm"
        vals = [t[n][arm][k] for n, k in cells.values()] + [g[arm]["accuracy_3way"] for g in res["LOGO"].values()]
        label = f"{arm} ({res['n_added'][arm]:,} answers)"
        ax.bar(np.arange(len(names)) + (i - 0.5) * 0.4, vals, 0.4, label=label)
    ax.set_xticks(range(len(names)), names, rotation=25, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy / mean recall")
    ax.legend(fontsize=8, frameon=False, ncol=2, loc="lower center", bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]), "/tmp/whowrote-external")
    ap.add_argument("--answers", type=Path, required=True)
    ap.add_argument("--arm", choices=("cap", "plain", "both", "route", "balance"), default="cap",
                    help="the challenger of all the answers")
    ap.add_argument("--figure", type=Path, help="also draw the results here (PNG)")
    ap.add_argument("--replot", action="store_true", help="only redraw --figure from --out's results.json")
    args = ap.parse_args()
    if args.replot:
        if args.figure is None or not (args.out / "results.json").is_file():
            raise SystemExit("--replot needs --figure and an earlier run's results.json in --out")
        return figure(json.loads((args.out / "results.json").read_text()), args.figure)
    log = timed_log()
    corpus = indexed_corpus(args.corpus).drop(columns="row_idx")
    arena = arena_rows(args.answers)
    half_a, held = arena.half_a.to_numpy(bool), arena.held_out.to_numpy(bool)
    a1 = arena.question.map(in_a1).to_numpy(bool)
    frames = [corpus, arena]  # corpus + answers: the same table as external_training, so its feature cache
    if args.arm in ("plain", "both"):  # the trained answers once more, Markdown stripped, after them
        plain = arena[half_a & a1 & ~held].assign(text=lambda f: f.text.map(strip_markdown))
        frames.append(plain.assign(id=plain.id + "~plain")[plain.text.str.strip() != ""])
    table = pd.concat(frames, ignore_index=True)
    table["row_idx"] = np.arange(len(table))
    feats = Features(table, args.cache, log)
    n_corpus, n_arena = len(corpus), len(arena)
    outer = topic_holdout_split(table.iloc[:n_corpus], seed=args.seed, balance=False)["train"]
    inner = topic_holdout_split(outer, seed=args.seed + 1, balance=False)
    part = table.iloc[n_corpus:n_corpus + n_arena]
    add_all = part[half_a & a1 & ~held]
    stripped = table.iloc[n_corpus + n_arena:]
    if args.arm == "cap":
        challenger = capped(add_all, CAP, args.seed)
    elif args.arm == "plain":
        challenger = stripped
    elif args.arm == "both":
        challenger = pd.concat([add_all, stripped])
    else:  # route: the same answers, read by kind; balance: the same answers, weighted by layout
        challenger = add_all
    adds = {"all": add_all, args.arm: challenger}
    log(f"inner train {len(inner['train']):,}, inner val {len(inner['val']):,}; answers added: all "
        f"{len(add_all):,} {add_all.provider.value_counts().to_dict()}, {args.arm} {len(challenger):,}")
    tests = {"T1": part[half_a & ~a1 & ~held], "T2": part[half_a & ~a1 & held], "T3": inner["val"]}
    fit = {arm: fitter(feats, arm, args.seed) for arm in adds}
    fits = {arm: fit[arm](inner["train"], add) for arm, add in adds.items()}
    res: dict = {"arm": args.arm, "cap": CAP, "n_added": {arm: len(a) for arm, a in adds.items()}, "tests": {}}
    for name, test in tests.items():
        units = (test.topic if name != "T3" else topic_keys(test)).to_numpy()
        row, P = paired_test(feats, fits, test, units, TEST_KEYS)
        y = test.provider.to_numpy(object)
        res["tests"][name] = {**row, "n": len(test)}
        log(f"{name} (n {len(test):,}): " + "; ".join(
            f"{arm} 3-way {row[arm]['accuracy_3way']:.3f} mean recall {row[arm]['mean_recall_3way']:.3f} "
            f"4-way {row[arm]['accuracy']:.3f}" for arm in fits))
    # T3 under all edits combined (the last test's P, X and y are T3's)
    Xc = feats.get("default", tests["T3"].row_idx.to_numpy(), "combined")
    res["T3 combined drop"] = {arm: drop_intervals(m.classes_, {"raw": P[arm], "combined": m.predict_proba(Xc)}, y,
                                                   units, args.seed)["combined"] for arm, m in fits.items()}
    log(f"T3 combined drop: all {res['T3 combined drop']['all']['diff']:.1f}, "
        f"{args.arm} {res['T3 combined drop'][args.arm]['diff']:.1f}")
    res["LOGO"] = logo_block(feats, outer, adds, args.seed, log, fit)
    if args.arm == "balance":  # beside the rule: the layout profile per label, before and after the weights
        strata, w = layout_profile(add_all.text), balance_weights(add_all)
        res["heading share"] = {c: {"before": float((strata[add_all.provider == c] >= 4).mean()),
                                    "after": float(np.average(strata[add_all.provider == c] >= 4,
                                                              weights=w[(add_all.provider == c).to_numpy()]))}
                                for c in sorted(set(add_all.provider))}
        res["weights"] = {"min": float(w.min()), "max": float(w.max()), "clipped": float(np.isin(w, WEIGHT_CLIP).mean())}
        log(f"heading share {res['heading share']}; weights {res['weights']}")
    if args.arm == "route":  # beside the rule: how often the detector names the kind right
        res["kind accuracy"] = {name: kind_accuracy(fits["route"].kind, feats, t) for name, t in tests.items()}
        for genre, train, test in leave_one_genre_out(outer):
            res["kind accuracy"][f"LOGO {genre}"] = kind_accuracy(fit_kind(feats, pd.concat([train, add_all])), feats, test)
        log(f"kind accuracy {res['kind accuracy']}")
    res["LOGO mean 3-way"] = logo_means(res)
    res["rule"] = rule(res)
    res[f"{args.arm} better"] = all(res["rule"].values())
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / "results.json", json.dumps(res, indent=1) + "\n")
    if args.figure:
        figure(res, args.figure)
    log(f"LOGO mean 3-way {res['LOGO mean 3-way']}; rule {res['rule']} -> "
        f"{args.arm + ' better' if res[f'{args.arm} better'] else 'the bundled data stays'}; wrote {args.out}")


if __name__ == "__main__":
    main()
