"""Trial (issue 17, session 59): persuasion chats by the corpus's debate versions, in training.

``external_persuasion.py`` (session 58) and the debates' blank-line copies that followed showed
that an assistant version is learnt per task: the corpus holds Claude Opus 4.6, GPT-5.4 and
Gemini 3.1 mostly as debaters, and the model read the same versions in persuasion chats (another
task of the same source) far worse than in debates. Sessions 56-57 found the same across sources
(the newer Claude versions learnt from debates are not named in stories). This asks whether a
second task of those versions, conversational turns, teaches them in a way that carries over:
to propositions never trained on, to another source's stories and to newer versions' debates.
Fixed and committed before the first run:

- Persuasion chats (``external_persuasion.read_persuasion``): the 15 propositions sorted; those at
  odd positions are the test set (P, every text), those at even positions train. Training texts:
  at most ``CAP`` (30) a model and proposition, sampled with the seed; genre ``persuasion``; none on a
  proposition whose corpus debates are in the topic hold-out's val part (no proposition on both
  sides of that split).
- Fits: the bundled recipe (``robustness.fit_recipe``, uncalibrated) on the topic hold-out's train
  part, the bundled Arena-Hard answers (half A) and the blank-line rows of its debates
  (``debate_layout_trial.blank_line_copies``, the bundled recipe since session 58): ``bundled``; the
  same plus the training chats: ``persuasion``. The bundled data's 146 newer debate sides are in
  neither fit.
- Tests: P the test propositions' chats (same versions, other propositions); S the 400 stories of
  ``external_stories.py`` (another source, older and newer versions); D the 175 debate sides of
  ``external_debates.py`` (newer versions); A Arena-Hard half B; M MT-Bench; T3 raw and under the
  edit suite; LOGO over the five corpus genres, where a fold without the debates also leaves out
  the blank-line rows and the chats (same panel, mostly the same propositions). Intervals of
  ``persuasion`` minus ``bundled`` resample whole propositions (P, D), prompts (S), questions (A,
  M) or topics (T3, LOGO), 1,000 draws.
- Rule: the chats join the bundled data only if (a) P's 4-way accuracy gains >= 3 points with the
  interval above 0; (b) S's and D's 4-way accuracy fall by at most 1 point each; (c) A's 4-way
  accuracy falls by at most 0.5 points and M's by at most 1; (d) T3's 4-way accuracy falls by at
  most 0.5; (e) the LOGO 3-way mean falls by at most 0.5; (f) T3's drop under all edits combined
  grows by at most 0.5.

``--arm`` (session 60) splits the added chats by who wrote them, to tell apart the two things session
59's ``all`` did at once: ``others``, only the chats by the ten models the product calls OTHER
(DeepSeek, ERNIE, GLM, Grok, Kimi, MiMo, MiniMax, Mistral, Qwen, Seed); ``assistants``, only those by
the five assistant versions (Claude Opus / Sonnet 4.6, GPT-5.4, Gemini 3.1 Pro / Flash-Lite). Same
propositions, cap, seed, fits and tests. Session 59's ``all`` made the stories' OTHER texts by unseen
versions (Grok 4.7, Kimi K3, Qwen 3.8 Max) CHATGPT; ``others`` asks whether modern open models' texts
as OTHER teach the OTHER label in a way that carries over to other sources without costing the
assistants. Its rule, fixed and committed before its first run: (a) S's 4-way accuracy gains >= 2
points with the interval above 0; (b) D's and P's 4-way accuracy fall by at most 1 point each; (c) to
(f) as above. ``assistants`` is the decomposition's other half, for the record: no rule, not for
adoption.

``--generation`` (after the decision, the checklist's): leave-one-generation-out of the corpus alone
(as ``story_training.py --generation``), each direction without and with the training chats where
its training generation is theirs (2025-26; none are added to the 2023-24 direction's training).

``--figure-only`` draws ``verdicts.png`` (what each fit called each model's texts, S and D) from
``--out``'s ``results.json`` and stops (the trial draws it too).

``--write-train FILE`` writes every proposition's chats, capped as above, as a corpus file (genre
``persuasion``) for ``whowrote train-probe --corpus`` and stops.

::

    OMP_NUM_THREADS=2 python benchmarks/persuasion_training.py --arena /tmp/arena/data/arena-hard-v0.1/model_answer \\
        --persuasion /tmp/persuasion/transcripts/v1_no_notes_15topics_panel15_8040 --mt-bench /tmp/mtbench/model_answer \\
        --stories-test /tmp/s59/lw/stories_wc --debates-test /tmp/s59/deb \\
        --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl --out results/persuasion_training
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from debate_layout_trial import blank_line_copies
from debate_training import debate_rows
from external_debates import corpus_sides
from external_persuasion import read_persuasion
from external_stories import read_stories
from external_training import logo_block
from paragraph_trial import run_tests, saved_results, trial_args, trial_frames
from robustness import Features, fit_recipe, timed_log
from story_training import decide, generation_check, stacked, t3_drops, write_rows

from whowrote.data.generate.store import atomic_write
from whowrote.data.generations import NEW, generation
from whowrote.data.providers import provider_of
from whowrote.data.splits import topic_holdout_split, topic_keys
from whowrote.types import OTHER, PROVIDERS

CAP = 30
GENRE = "persuasion"
ARMS = ("bundled", "persuasion")
ADDED = {"all": ("Persuasion chats", "with the persuasion chats"),  # --arm: the chats the second fit adds,
         "others": ("The open models' persuasion chats", "with the open models' chats (as OTHER)"),  # as the
         "assistants": ("The assistants' persuasion chats", "with the assistants' chats")}  # figure names them


def proposition_halves(topics: pd.Series) -> tuple[list[str], list[str]]:
    """The propositions sorted: those at even positions train, those at odd positions test."""
    props = sorted(set(topics))
    return props[0::2], props[1::2]


def training_chats(frame: pd.DataFrame, props: list[str], seed: int, cap: int = CAP) -> pd.DataFrame:
    """At most ``cap`` texts a model and proposition of ``props``, sampled with ``seed``; genre ``persuasion``,
    an id per text."""
    rows = frame[frame.topic.isin(props)].sample(frac=1.0, random_state=seed).groupby(["topic", "model"]).head(cap)
    rows = rows.sort_values(["topic", "model", "file", "role"])
    return rows.assign(genre=GENRE, subgenre=rows.role, id=rows.file + ":" + rows.role)


def by_writer(chats: pd.DataFrame, arm: str) -> pd.DataFrame:
    """The chats ``--arm`` adds: ``all``; ``others``, those by models the product calls OTHER; ``assistants``,
    the rest."""
    if arm == "all":
        return chats
    other = (chats.provider == OTHER).to_numpy()
    return chats[other if arm == "others" else ~other]


def write_train(folder: Path, out: Path, seed: int, arm: str = "all") -> None:
    """Every proposition's training chats (capped; those ``arm`` adds) as a corpus file for
    ``whowrote train-probe --corpus``."""
    frame, _ = read_persuasion(folder)
    rows = write_rows(by_writer(training_chats(frame, sorted(set(frame.topic)), seed), arm),
                      ["id", "model", "provider", "topic", "genre", "subgenre", "text"], out)
    print(f"wrote {len(rows):,} persuasion texts ({rows.model.nunique()} models, {rows.topic.nunique()} propositions) to {out}")


def without_debate_kin(add: pd.DataFrame, train: pd.DataFrame) -> pd.DataFrame:
    """``add`` for a fit on ``train``: a fit that must not see the corpus's debates (a LOGO fold) sees neither
    their blank-line rows nor the chats (the debates' panel and propositions)."""
    if (train.genre == "debate").any():
        return add
    return add[~add.genre.isin(["debate", GENRE])]


def persuasion_rule(results: dict) -> dict[str, bool]:
    t = results["tests"]

    def diff(test: str) -> float:  # 4-way, points
        return 100 * (t[test]["persuasion"]["accuracy"] - t[test]["bundled"]["accuracy"])

    mean3 = {arm: float(np.mean([row[arm]["accuracy_3way"] for row in results["LOGO"].values()])) for arm in ARMS}
    combined = {arm: results["T3 edits"][arm]["combined"]["diff"] for arm in ARMS}
    return {"(a) P 4-way +3, interval above 0": diff("P") >= 3 and t["P"]["diff_intervals"]["accuracy"][0] > 0,
            "(b) S and D at most -1": diff("S") >= -1 and diff("D") >= -1,
            "(c) A at most -0.5, M at most -1": diff("A") >= -0.5 and diff("M") >= -1,
            "(d) T3 at most -0.5": diff("T3") >= -0.5,
            "(e) LOGO 3-way mean at most -0.5": 100 * (mean3["persuasion"] - mean3["bundled"]) >= -0.5,
            "(f) combined drop at most +0.5": combined["persuasion"] - combined["bundled"] <= 0.5}


def others_rule(results: dict) -> dict[str, bool]:
    """``--arm others``'s rule (module docstring): the stories gain, nothing else loses."""
    t = results["tests"]

    def diff(test: str) -> float:  # 4-way, points
        return 100 * (t[test]["persuasion"]["accuracy"] - t[test]["bundled"]["accuracy"])

    same = persuasion_rule(results)
    return {"(a) S 4-way +2, interval above 0": diff("S") >= 2 and t["S"]["diff_intervals"]["accuracy"][0] > 0,
            "(b) D and P at most -1": diff("D") >= -1 and diff("P") >= -1,
            **{clause: passed for clause, passed in same.items() if clause[:3] in ("(c)", "(d)", "(e)", "(f)")}}


def verdict_figure(results: dict, path: Path) -> None:
    """Per model of S (the stories) and D (the newer debates): the share of its texts each fit names
    correctly (4-way), from ``results["tests"][...]["per_version"]``; the models' own provider colours the bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = {"CLAUDE": "#d97757", "CHATGPT": "#10a37f", "GEMINI": "#4285f4", OTHER: "#888888"}
    panels = (("S", "S: stories (another source)"), ("D", "D: newer versions' debates (another source)"))
    fig, axes = plt.subplots(1, 2, figsize=(13, 8))
    for ax, (test, title) in zip(axes, panels, strict=True):
        counts = results["tests"][test]["per_version"]
        models = sorted(counts, key=lambda m: (PROVIDERS.index(provider_of(m)) if provider_of(m) in PROVIDERS else 3, m))
        for k, arm in enumerate(ARMS):
            share = [counts[m][arm][provider_of(m)] / sum(counts[m][arm].values()) for m in models]
            ax.barh(np.arange(len(models)) + 0.4 * k, share, height=0.4, color=[colours[provider_of(m)] for m in models],
                    alpha=1.0 if k == 0 else 0.55, hatch=None if k == 0 else "//", edgecolor="white",
                    label="bundled recipe" if k == 0 else ADDED[results.get("arm", "all")][1])
        ax.set_yticks(np.arange(len(models)) + 0.2)
        ax.set_yticklabels(models, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of the model's texts named correctly (4-way)")
        ax.set_title(title, fontsize=10)
    axes[0].legend(fontsize=8, loc="lower right")
    fig.suptitle(f"{ADDED[results.get('arm', 'all')][0]} in training: what each fit called each model's texts", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    args = trial_args(__doc__.splitlines()[0], "/tmp/whowrote-persuasion", generation=True,
                      folders={"--stories-test": "external_stories.py's stories",
                               "--debates-test": "external_debates.py's transcripts"}, write_train=True, figure_only=True,
                      arms=tuple(ADDED))
    if args.write_train:
        return write_train(args.persuasion, args.write_train, args.seed, args.arm)
    if args.figure_only:
        return verdict_figure(saved_results(args.out, "no trial results to draw (run the trial first)"),
                              args.out / "verdicts.png")
    log = timed_log()
    corpus, arena_train, arena_b, chats, mt_bench = trial_frames(args)
    train_props, test_props = proposition_halves(chats.topic)
    p_train = by_writer(training_chats(chats, train_props, args.seed), args.arm)
    p_test = chats[chats.topic.isin(test_props)]
    stories = read_stories(args.stories_test).assign(genre="stories", topic=lambda f: "story-" + f.question)
    debates = debate_rows(args.debates_test, corpus_sides([Path(p) for p in args.corpus]))
    frames = [corpus, arena_train, arena_b, p_test, mt_bench, p_train, stories, debates, blank_line_copies(corpus)]
    table, (corpus_rows, arena_train, arena_b, p_test, m_rows, p_train, s_rows, d_rows, copy_rows) = stacked(frames)
    feats = Features(table, args.cache, log)
    split = topic_holdout_split(corpus_rows, seed=args.seed, balance=False)
    copies = copy_rows[copy_rows.copy_of.isin(set(split["train"].id))]
    val_debates = set(split["val"].topic[split["val"].genre == "debate"])
    p_train = p_train[~p_train.topic.isin(val_debates)]
    log(f"corpus {len(corpus_rows):,}; arena half A {len(arena_train):,}, half B {len(arena_b):,}; persuasion train "
        f"{len(p_train):,} ({p_train.topic.nunique()} propositions; {sorted(set(train_props) & val_debates)} left out "
        f"for T3), test {len(p_test):,} ({len(test_props)} propositions); MT-Bench {len(m_rows):,}; stories "
        f"{len(s_rows)}; debate sides {len(d_rows)}; blank-line rows {len(copies):,} of T3's train part")
    if args.generation:
        def chats_for(train: pd.DataFrame) -> pd.DataFrame:  # 2025-26 texts join the 2025-26 direction only
            first = train.iloc[0]
            return p_train if generation(first.model, first.provider, first.genre) == NEW else p_train.iloc[:0]

        out = generation_check(feats, corpus_rows, chats_for, args.seed, log, GENRE)
        args.out.mkdir(parents=True, exist_ok=True)
        atomic_write(args.out / "generation.json", json.dumps(out, indent=1) + "\n")
        return None
    base = pd.concat([split["train"], arena_train, copies])
    fits = {"bundled": fit_recipe(feats, "default", base, args.seed),
            "persuasion": fit_recipe(feats, "default", pd.concat([base, p_train]), args.seed)}
    tests = {"P": (p_test, p_test.topic), "S": (s_rows, s_rows.topic), "D": (d_rows, d_rows.topic),
             "A": (arena_b, arena_b.question), "M": (m_rows, m_rows.topic),
             "T3": (split["val"], topic_keys(split["val"]))}
    results: dict = {"arm": args.arm, "train_propositions": train_props, "test_propositions": test_props, "n_added": len(p_train),
                     "tests": run_tests(feats, fits, tests, {}, log, per_version=("P", "S", "D"))}
    results["T3 edits"] = t3_drops(feats, fits, split["val"], args.seed, log)

    def fit_without_kin(train: pd.DataFrame, add: pd.DataFrame):
        return fit_recipe(feats, "default", pd.concat([train, without_debate_kin(add, train)]), args.seed)

    results["LOGO"] = logo_block(feats, corpus_rows, {"bundled": pd.concat([arena_train, copy_rows]),
                                                      "persuasion": pd.concat([arena_train, copy_rows, p_train])},
                                 args.seed, log, fit={arm: fit_without_kin for arm in ARMS})
    if args.arm == "assistants":  # the decomposition's other half: recorded, not judged
        args.out.mkdir(parents=True, exist_ok=True)
        atomic_write(args.out / "results.json", json.dumps(results, indent=1) + "\n")
        log(f"wrote {args.out} (no rule: --arm assistants is for the record)")
    else:
        decide(results, (others_rule if args.arm == "others" else persuasion_rule)(results), args.out, log)
    verdict_figure(results, args.out / "verdicts.png")


if __name__ == "__main__":
    main()
