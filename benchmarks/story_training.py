"""Trial (issue 17): do stories by the newest assistant versions teach the model those versions, and
their unseen siblings, at no cost inside the corpus?

``benchmarks/external_stories.py`` (session 56) found that the bundled model does not know the
assistant versions newer than the corpus: on lechmazur/writing's stories, Claude Opus 5, Opus 5.5
and Fable 5.1 were called CLAUDE (3-way) 3 times in 75 and "uncertain" fired on 95 % of the newer
versions' stories. This asks what adding such stories (other prompts) to the bundled data buys.
Everything below was fixed and committed before the first run:

- Stories: ``stories_wc/<model>/story_wc_<n>.txt`` (``external_stories.read_stories``). Prompts
  0-24 are ``external_stories.py``'s test set (``--stories-test``) and are never trained on; the
  training stories are other prompts of the same models (``--stories-train``: 25-54 here).
- Versions never trained on (``HELD_OUT``): ``claude-opus-5-5-high`` (the newest Claude),
  ``gemini-3.8-flash-high`` (the newest Gemini) and ``kimi-k3`` (an OTHER version). GPT-6 Astra,
  the only newer GPT, is trained on.
- Fits: the bundled recipe (``robustness.fit_recipe``, ``default``, uncalibrated) on the corpus's
  topic hold-out train part (``topic_holdout_split(seed=0, balance=False)``) plus the bundled
  Arena-Hard answers (``--arena``, the bundled model's file): ``bundled``; and the same plus the
  training stories of every version not held out, a seventh genre (``stories``): ``stories``.
- Tests: S1 the test prompts' stories by the trained versions; S2 by the held-out versions; T3
  the corpus's topic hold-out val; T3 under the edit suite; LOGO over the five corpus genres (each
  fit with its own added rows). 95 % intervals of ``stories`` minus ``bundled`` resample whole
  prompts (S1, S2) or topics (T3, LOGO), 1,000 draws.
- Rule: the stories join the bundled data only if (a) on S2 the mean 3-way recall (its two
  assistants) gains >= 5 points with the interval's lower end above 0; (b) on S1 likewise;
  (c) T3's 4-way accuracy falls by at most 0.5 points; (d) the LOGO 3-way mean over the five
  genres falls by at most 0.5 points; (e) T3's drop under all edits combined grows by at most 0.5.

**Round 2** (declared and committed after round 1's results, before its run; ``--genre fiction``).
Round 1 failed (c) only (T3 −0.56), and ``--curve`` showed that cost arriving with the first three
stories a version and not growing with more: the seventh genre's weight, which the recipe's
(genre, label) balancing gives a genre of any size, rather than the stories themselves. The stories
are fiction, so round 2 labels them as the corpus's fiction genre (``genre`` fiction, ``subgenre``
stories): the balancing then weighs them as more fiction texts. The same fits otherwise, the same
tests and the same rule (a)-(e).

``--layout`` (after the rule was decided, not part of it): the two fits only, on S1 and S2 as written,
with every blank line a single line break (the suite's ``single_newlines``) and with no line break
at all (``flat``): the story benchmark's models differ in layout (Gemini 3.x writes each story as
one paragraph, Claude with blank lines, GPT-5.5 with single line breaks), which a fit can learn as
a label; what is left of a gain without it is the part that is style.

``--curve 0,3,5,10,20,30`` (a measurement, no rule): fits with the first k training prompts of every
version not held out, for each k (0: ``bundled``), scored on S1, S2 and T3; ``curve.json`` and a
figure (``--figure``): how many stories a new version needs.

``--generation`` (after both rounds were decided, for the record): leave-one-generation-out as
``robustness.py --splits generation`` (the corpus alone: trained on the 2025-26 versions, tested on
the 2023-24 ones, and back), each direction fitted without and with the training stories (all by
2025-26 or newer versions); ``generation.json``.

``--write-train FILE`` writes the stories the ``stories`` arm adds as a corpus file (its genre
is the file's stem) for ``whowrote train-probe --corpus`` and stops::

    OMP_NUM_THREADS=2 python benchmarks/story_training.py --stories-test /tmp/lw --stories-train /tmp/lw_train \\
        --arena runs/arena/arena-hard.jsonl --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --out results/story_training
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
from external_stories import read_stories
from external_training import logo_block, paired_test, scores
from robustness import Features, corpus_args, drop_intervals, fit_recipe, generation_splits, timed_log

from whowrote.data.corpus import load_corpus
from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import topic_holdout_split, topic_keys
from whowrote.style.edits import edits

HELD_OUT = frozenset({"claude-opus-5-5-high", "gemini-3.8-flash-high", "kimi-k3"})
GAIN, SLACK = 0.05, 0.005
GENRE = "stories"
KEYS = ("mean_recall_3way", "accuracy_3way", "accuracy")


def story_rows(folder: Path, genre: str = GENRE) -> pd.DataFrame:
    """The stories as corpus rows of ``genre`` (subgenre ``stories``), the prompt as the topic."""
    frame = read_stories(folder)
    return frame.assign(genre=genre, subgenre=GENRE, topic="story-" + frame.question,
                        id=frame.model + ":" + frame.question, held_out=frame.model.isin(HELD_OUT))


def write_rows(rows: pd.DataFrame, columns: list[str], out: Path) -> pd.DataFrame:
    """``rows``' ``columns`` as a corpus file (JSON lines) at ``out``, written whole or not at all; the rows written."""
    rows = rows[columns]
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows.to_dict("records")))
    return rows


def stacked(frames: list[pd.DataFrame]) -> tuple[pd.DataFrame, list[pd.DataFrame]]:
    """One table of ``frames`` with ``row_idx`` (the feature cache's row), and each frame's slice of it."""
    table = pd.concat(frames, ignore_index=True)
    table["row_idx"] = np.arange(len(table))
    ends = np.cumsum([0, *(len(f) for f in frames)])
    return table, [table.iloc[a:b] for a, b in zip(ends[:-1], ends[1:], strict=True)]


def verdict_counts(P: dict[str, np.ndarray], classes: np.ndarray, models: np.ndarray) -> dict:
    """Per model, how often each fit (``P``: its probabilities) gave each label."""
    return {m: {name: {c: int((classes[p[models == m].argmax(axis=1)] == c).sum()) for c in classes}
                for name, p in P.items()} for m in sorted(set(models))}


def genre_accuracy(P: dict[str, np.ndarray], classes: np.ndarray, frame: pd.DataFrame) -> dict:
    """Per genre of ``frame``, each fit's 4-way accuracy (the in-genre targets)."""
    genre, y = frame.genre.to_numpy(object), frame.provider.to_numpy(object)
    return {g: {name: float((classes[p[genre == g].argmax(axis=1)] == y[genre == g]).mean()) for name, p in P.items()}
            for g in sorted(set(genre))}


def edit_drops(feats: Features, model, val: pd.DataFrame, seed: int, recipe: str = "default") -> dict:
    """One fit's drops under every edit on ``val`` (:func:`robustness.drop_intervals`); ``recipe``: how it reads texts."""
    X = {e: feats.get(recipe, val.row_idx.to_numpy(), e) for e in edits(seed)}
    return drop_intervals(model.classes_, {e: model.predict_proba(x) for e, x in X.items()},
                          val.provider.to_numpy(object), topic_keys(val).to_numpy(), seed)


def t3_drops(feats: Features, fits: dict, val: pd.DataFrame, seed: int, log,
             recipes: dict[str, str] | None = None) -> dict:
    """Each fit's drops under every edit on ``val`` (:func:`robustness.drop_intervals`), logged side by side;
    ``recipes[name]``: a fit's recipe where it reads texts otherwise than ``default``."""
    recipes = recipes or {}
    out = {name: edit_drops(feats, m, val, seed, recipes.get(name, "default")) for name, m in fits.items()}
    a, b = fits
    log("T3 drops (points): " + "; ".join(f"{e} {out[a][e]['diff']:.1f} -> {out[b][e]['diff']:.1f}"
                                          for e in edits(seed) if e != "raw"))
    return out


def decide(results: dict, rule: dict[str, bool], out: Path, log) -> None:
    """A trial's end: its ``rule`` and whether every clause passed, written to ``out/results.json``."""
    results["rule"] = rule
    results["adopt"] = all(rule.values())
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "results.json", json.dumps(results, indent=1) + "\n")
    log(f"rule {rule} -> {'adopt' if results['adopt'] else 'not adopted'}; wrote {out}")


def write_train(folder: Path, out: Path, genre: str = GENRE) -> None:
    """The training stories of every version not held out, as a corpus file (``genre`` and ``subgenre``
    columns: ``load_corpus`` keeps them)."""
    rows = story_rows(folder, genre)
    rows = write_rows(rows[~rows.held_out], ["id", "model", "provider", "topic", "genre", "subgenre", "text"], out)
    print(f"wrote {len(rows):,} stories ({rows.model.nunique()} models, {rows.topic.nunique()} prompts) to {out}")


def layout_check(fits: dict, test_rows: pd.DataFrame, seed: int) -> dict:
    """S1 and S2 as written, with single line breaks and with none, read by each fit (:func:`scores`)."""
    views = {"raw": lambda t: t, "single_newlines": edits(seed)["single_newlines"],
             "flat": lambda t: " ".join(t.split())}
    held = test_rows.held_out.to_numpy(bool)
    out: dict = {}
    for tname, frame in (("S1", test_rows[~held]), ("S2", test_rows[held])):
        y = frame.provider.to_numpy(object)
        for view, fn in views.items():
            texts = [fn(t) for t in frame.text]
            out[f"{tname} {view}"] = {name: scores(m.predict_proba(m.features(texts)), y, m.classes_)
                                      for name, m in fits.items()}
    return out


def curve(feats: Features, base: pd.DataFrame, arena_rows: pd.DataFrame, added: pd.DataFrame, tests: dict,
          ks: list[int], seed: int, log) -> dict:
    """For each k, the recipe with the first k training prompts of each version added, scored on ``tests``."""
    order = added.question.astype(int)
    out: dict = {}
    for k in ks:
        extra = added[order < order.min() + k] if k else added.iloc[:0]
        fit = fit_recipe(feats, "default", pd.concat([base, arena_rows, extra]), seed)
        out[k] = {"n_added": len(extra)}
        for tname, frame in tests.items():
            X = feats.get("default", frame.row_idx.to_numpy(), "raw")
            out[k][tname] = scores(fit.predict_proba(X), frame.provider.to_numpy(object), fit.classes_)
        log(f"k {k} ({len(extra)} stories): " + "; ".join(
            f"{t} mean 3-way recall {out[k][t]['mean_recall_3way']:.3f} 4-way {out[k][t]['accuracy']:.3f}" for t in tests))
    return out


def curve_figure(out: dict, path: Path) -> None:
    """S1's and S2's mean 3-way recall and T3's 4-way accuracy against k."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = sorted(out, key=int)  # ints, or strings once read back from curve.json
    fig, ax = plt.subplots(figsize=(7, 4.2))
    lines = (("S1", "mean_recall_3way", "o-", "S1 trained versions: mean 3-way recall"),
             ("S2", "mean_recall_3way", "s-", "S2 held-out versions: mean 3-way recall"),
             ("T3", "accuracy", "^--", "T3 corpus topic hold-out: 4-way accuracy"))
    for tname, key, style, label in lines:
        ax.plot([int(k) for k in ks], [out[k][tname][key] for k in ks], style, label=label)
    ax.set_xlabel("training stories per version added (other prompts)")
    ax.set_ylim(0, 1.02)
    ax.set_title("Newer assistant versions learned from their stories")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def generation_check(feats: Features, corpus_rows: pd.DataFrame, added, seed: int, log,
                     added_name: str = "stories") -> dict:
    """Each generation direction fitted on the corpus without and with ``added`` (``added_name``; a frame,
    or a function of the direction's training rows giving the rows to add), scored on the other generation."""
    out: dict = {}
    arms = ("corpus", added_name)
    for name, train, test in generation_splits(corpus_rows):
        X, y = feats.get("default", test.row_idx.to_numpy(), "raw"), test.provider.to_numpy(object)
        out[name] = {"n": len(test)}
        rows = added(train) if callable(added) else added
        for arm, extra in zip(arms, (rows.iloc[:0], rows), strict=True):
            fit = fit_recipe(feats, "default", pd.concat([train, extra]), seed)
            out[name][arm] = scores(fit.predict_proba(X), y, fit.classes_)
        log(f"{name} (n {len(test):,}): " + "; ".join(f"{arm} 4-way {out[name][arm]['accuracy']:.3f} "
                                                      f"3-way {out[name][arm]['accuracy_3way']:.3f}" for arm in arms))
    return out


def story_rule(results: dict) -> dict[str, bool]:
    t = results["tests"]

    def gained(test: str) -> bool:
        row = t[test]
        return (row["stories"]["mean_recall_3way"] - row["bundled"]["mean_recall_3way"] >= GAIN
                and row["diff_intervals"]["mean_recall_3way"][0] > 0)

    t3 = t["T3 corpus topic hold-out"]
    logo = results["LOGO"]
    mean3 = {name: float(np.mean([row[name]["accuracy_3way"] for row in logo.values()])) for name in ("bundled", "stories")}
    combined = {name: results["T3 edits"][name]["combined"]["diff"] for name in ("bundled", "stories")}
    return {"(a) S2 gain": gained("S2 test prompts, held-out versions"),
            "(b) S1 gain": gained("S1 test prompts, trained versions"),
            "(c) T3 no loss": t3["stories"]["accuracy"] - t3["bundled"]["accuracy"] >= -SLACK,
            "(d) LOGO no loss": mean3["stories"] - mean3["bundled"] >= -SLACK,
            "(e) combined drop": combined["stories"] - combined["bundled"] <= 100 * SLACK}  # drops are in points


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]), "/tmp/whowrote-stories")
    ap.add_argument("--stories-test", type=Path, required=True, help="the test prompts' stories (<model>/story_wc_<n>.txt)")
    ap.add_argument("--stories-train", type=Path, required=True, help="other prompts' stories, the same layout")
    ap.add_argument("--arena", type=Path, required=True, help="the bundled model's Arena-Hard answers (a corpus file)")
    ap.add_argument("--write-train", type=Path, default=None, help="only write the training stories here and stop")
    ap.add_argument("--layout", action="store_true", help="only the two fits on S1 and S2 under layout edits")
    ap.add_argument("--genre", default=GENRE, help="the stories' genre in training (round 2: fiction)")
    ap.add_argument("--curve", default="", help="only fits with k training stories per version, e.g. 0,5,10,20,30")
    ap.add_argument("--figure", type=Path, default=None, help="--curve's figure (default: curve.png in --out)")
    ap.add_argument("--generation", action="store_true", help="only leave-one-generation-out without and with the stories")
    args = ap.parse_args()
    if args.write_train:
        return write_train(args.stories_train, args.write_train, args.genre)
    log = timed_log()
    corpus = load_corpus(args.corpus)
    arena = load_corpus([args.arena])
    test, train_stories = story_rows(args.stories_test, args.genre), story_rows(args.stories_train, args.genre)
    overlap = set(test.question) & set(train_stories.question)
    if overlap:
        raise SystemExit(f"error: prompts in both story folders: {sorted(overlap)[:5]}")
    table, (corpus_rows, arena_rows, test_rows, train_rows) = stacked([corpus, arena, test, train_stories])
    feats = Features(table, args.cache, log)
    split = topic_holdout_split(corpus_rows, seed=args.seed, balance=False)
    added = train_rows[~train_rows.held_out.to_numpy(bool)]
    pair = {"bundled": arena_rows, "stories": pd.concat([arena_rows, added])}
    log(f"corpus {len(corpus_rows):,}, arena {len(arena_rows):,}, test stories {len(test_rows):,}, "
        f"training stories added {len(added):,} ({added.model.nunique()} models)")
    held = test_rows.held_out.to_numpy(bool)
    if args.generation:
        out = generation_check(feats, corpus_rows, added, args.seed, log)
        args.out.mkdir(parents=True, exist_ok=True)
        atomic_write(args.out / "generation.json", json.dumps(out, indent=1) + "\n")
        return None
    if args.curve:
        tests = {"S1": test_rows[~held], "S2": test_rows[held], "T3": split["val"]}
        out = curve(feats, split["train"], arena_rows, added, tests, [int(k) for k in args.curve.split(",")],
                    args.seed, log)
        args.out.mkdir(parents=True, exist_ok=True)
        atomic_write(args.out / "curve.json", json.dumps(out, indent=1) + "\n")
        curve_figure(out, args.figure or args.out / "curve.png")
        return None
    fits = {name: fit_recipe(feats, "default", pd.concat([split["train"], extra]), args.seed)
            for name, extra in pair.items()}
    if args.layout:
        out = layout_check(fits, test_rows, args.seed)
        for key, row in out.items():
            log(f"{key}: " + "; ".join(f"{name} mean 3-way recall {r['mean_recall_3way']:.3f} 4-way {r['accuracy']:.3f}"
                                       for name, r in row.items()))
        args.out.mkdir(parents=True, exist_ok=True)
        atomic_write(args.out / "layout.json", json.dumps(out, indent=1) + "\n")
        return None
    tests = {"S1 test prompts, trained versions": test_rows[~held], "S2 test prompts, held-out versions": test_rows[held],
             "T3 corpus topic hold-out": split["val"]}
    results: dict = {"held_out": sorted(HELD_OUT), "n_added": len(added), "tests": {}}
    for tname, frame in tests.items():
        units = (frame.topic if tname.startswith("S") else topic_keys(frame)).to_numpy()
        row, P = paired_test(feats, fits, frame, units, KEYS)
        if tname.startswith("S"):
            y, models = frame.provider.to_numpy(object), frame.model.to_numpy(object)
            counts = verdict_counts(P, fits["bundled"].classes_, models)
            row["per_version"] = {m: counts[m] | {"provider": y[models == m][0]} for m in counts}
        results["tests"][tname] = row
        log(f"{tname} (n {len(frame):,}): " + "; ".join(
            f"{name} mean 3-way recall {row[name]['mean_recall_3way']:.3f} 4-way {row[name]['accuracy']:.3f}"
            for name in fits) + f"; diff intervals {row['diff_intervals']}")
    results["T3 edits"] = t3_drops(feats, fits, split["val"], args.seed, log)
    results["LOGO"] = logo_block(feats, corpus_rows, pair, args.seed, log)
    decide(results, story_rule(results), args.out, log)


if __name__ == "__main__":
    main()
