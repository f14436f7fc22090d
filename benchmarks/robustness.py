"""Does the verdict hold on texts unlike the training data? The robustness suite.

Three honest splits of the shared corpus, each fitted once per recipe:

- ``topic``: the topic hold-out (``topic_holdout_split``, seed 0): same genres, unseen topics;
- ``logo``: leave one genre out, for each of the five genres;
- ``generation``: train on one model generation, test on the other (2025-26 -> 2023-24 and back,
  ``whowrote.data.generations``; training rows sharing a topic with the test rows are dropped).

On every test set: 4-way accuracy, 3-way accuracy (the most probable of the three providers, on
their texts) under each everyday edit of ``whowrote.style.edits``; under LOGO also calibration
(ECE with the temperature fitted on the *other* genres' out-of-genre predictions and, when the
topic split runs too, their in-genre val predictions: a distance-dependent temperature), OTHER AUROC,
and selective accuracy at the default abstain rule plus the accuracy-coverage curve.

Recipes: ``default`` (what ``whowrote train-probe`` trains: canonical text, one edited copy per
training text), ``same_lists`` (the same with "* ", "+ " and "- " bullets read alike), ``blend75``
(the default with ``train-probe --blend-iter 75``'s second tree ensemble; it reads the default's
cached features), ``paragraphs`` (the default reading every line break as a paragraph break:
session 31's trial, ``benchmarks/paragraph_reading.py``), ``layout_copies``, ``layout_half`` and
``layout_extra`` (the default with other training copies, ``COPY_GROUPS``: session 32's trial,
``benchmarks/layout_copies.py``), ``layout_extra_chars`` (``layout_extra`` and a character-crop
copy: session 46's ``benchmarks/layout_answers.py``) and ``legacy`` (the previous default: raw
text, a truncated copy only). Every setting is fixed in the library; nothing here is tuned on a
test split.

    OMP_NUM_THREADS=1 python benchmarks/robustness.py --corpus ../shared/corpus/*.jsonl --out results/robustness

Writes ``robustness.json``, ``robustness.png`` and (with the LOGO split) ``selective.png`` under ``--out``, prints Markdown
tables, and caches feature matrices in ``--cache`` (default ``/tmp/whowrote-robustness``).
``python benchmarks/robustness.py --plot-model MODEL_DIR OUT_DIR`` draws the same two figures from
a ``train-probe`` run's own check (its ``model.json`` metrics).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np
from trial_noise import interval, topic_weights, weighted_mean

from whowrote.data import load_corpus
from whowrote.data.generate.store import atomic_write
from whowrote.data.generations import NEW, OLD, generation
from whowrote.data.splits import leave_one_genre_out, topic_holdout_split, topic_keys
from whowrote.style import StyleModel
from whowrote.style.edits import edits
from whowrote.style.heldout import accuracies, capped, logo_report, proba_accuracies
from whowrote.style.train import AUG_WEIGHT, AUGMENTATIONS, copy_features, fit_augmented, truncated_copies

# same_lists: the default with "* ", "+ " and "- " bullets read alike (tried, not adopted: docs/predict-trials.md);
# blend75: the default with `train-probe --blend-iter 75` (the opt-in second tree ensemble);
# blend300: with `--blend-iter 300` ("Tree settings" round 7's blend_logit; session 33)
# paragraphs: the default reading every line break as a paragraph break (session 31's trial)
RECIPES = {"default": {"canonical": True}, "same_lists": {"canonical": True, "canonical_lists": True},
           "legacy": {"canonical": False}, "blend75": {"canonical": True, "blend_iter": 75},
           "blend300": {"canonical": True, "blend_iter": 300},
           "paragraphs": {"canonical": True, "canonical_paragraphs": True},
           "tight_lists": {"canonical": True, "canonical_list_spacing": True}}  # session 51: list_spacing.py
# recipes whose training copies differ from AUGMENTATIONS (session 32, benchmarks/layout_copies.py):
# one copy in four with its paragraphs separated by single line breaks, half of every kind of copy,
# or a second copy of every text: the text itself with single line breaks
COPY_GROUPS = {"layout_copies": (("truncated", "plain_text", "combined", "single_newlines"),),
               "layout_half": (("truncated", "plain_text", "combined", "truncated+single_newlines",
                                "plain_text+single_newlines", "combined+single_newlines"),),
               "layout_extra": (*AUGMENTATIONS, ("single_newlines",)),
               # session 46 (benchmarks/layout_answers.py): and a third copy, the text's first 300-3,000 characters
               "layout_extra_chars": (*AUGMENTATIONS, ("single_newlines",), ("first_chars",)),
               # session 50 (benchmarks/drop_ends_copies.py): the text without its first and last paragraphs,
               # one copy in four, or a second copy of every text
               "drop_ends_group": (("truncated", "plain_text", "combined", "drop_ends"),),
               "drop_ends_extra": (*AUGMENTATIONS, ("drop_ends",)),
               # session 61 (benchmarks/seed_trial.py): three copies of every text drawn as the bundled
               # recipe draws its one, at a third of its weight each (COPY_WEIGHTS): less of a fit on one draw
               "copies3": AUGMENTATIONS * 3}
# a copy's weight where a recipe's differs from AUG_WEIGHT (the same edited weight in all)
COPY_WEIGHTS = {"copies3": AUG_WEIGHT / 3}
# recipes whose copies are drawn with one seed whatever the fit's (session 61, seed_trial.py): with
# the bundled recipe's copies of seed 0, what the fit's own seed changes (it changed nothing)
FIXED_COPY_SEED = {"default_copies0": 0}
# recipes that leave some models' texts out of training (session 62, seed_trial.py): the open models
# whose published training data are OpenAI models' answers (ShareGPT, UltraChat, Evol-Instruct, sets
# written by GPT-4; their model cards), which may teach ChatGPT's style as OTHER. A left-out text's
# copy is still drawn (the copies are drawn for the whole table), so the kept texts' copies match the
# baseline's of the same seed
DISTILLED = frozenset({
    # the chat genre (AlpacaEval's names)
    "vicuna-13b-v1.5", "openchat-13b", "openchat-v3.1-13b", "wizardlm-13b-v1.2", "wizardlm-70b",
    "recycled-wizardlm-7b-v1.0", "airoboros-33b", "nous-hermes-13b", "OpenHermes-2.5-Mistral-7B",
    "dolphin-2.2.1-mistral-7b", "baize-v2-13b", "zephyr-7b-beta", "pairrm-zephyr-7b-beta",
    "FsfairX-Zephyr-Chat-v0.1", "ultralm-13b-best-of-16", "Starling-LM-7B-alpha", "deita-7b-v1.0",
    "minotaur-13b", "platolm-7b", "Conifer-7B-DPO", "tulu-2-dpo-70b", "alpaca-farm-ppo-human",
    # Arena-Hard's names
    "vicuna-33b", "starling-lm-7b-alpha", "starling-lm-7b-beta"})
LEFT_OUT = {"no_distilled": DISTILLED}
# the default's settings, other copies or rows
RECIPES.update({recipe: RECIPES["default"] for recipe in [*COPY_GROUPS, *FIXED_COPY_SEED, *LEFT_OUT]})

# a blend's settings and other training copies change the fit, not the features of a text: these
# recipes read their base recipe's cached matrices (their copies' matrices are keyed by COPY_GROUPS)
FEATURES_OF = {"blend75": "default", "blend300": "default",
               **{recipe: "default" for recipe in [*COPY_GROUPS, *FIXED_COPY_SEED, *LEFT_OUT]}}
LEGACY_AUG_WEIGHT = 0.5  # the previous default's truncated copy


def code_key() -> str:
    """16 hex digits of the sha256 of the reading, feature and model code (``whowrote.typography`` and
    every module of ``whowrote.style``): cached features or fits made by other code are never read
    (session 31: a cache made before the plain-layout reading was read as that reading's)."""
    import whowrote.style
    import whowrote.typography

    digest = hashlib.sha256()
    for f in [Path(whowrote.typography.__file__), *sorted(Path(whowrote.style.__file__).parent.glob("*.py"))]:
        digest.update(f.name.encode() + b"\0" + f.read_bytes())
    return digest.hexdigest()[:16]


class Features:
    """Feature matrices of (edited) corpus texts, cached on disk by edit, the recipe's settings, the
    corpus texts in their order, row ids and :func:`code_key` (a recipe whose settings change, another
    corpus with as many rows, or other feature code, is never read from an old file)."""

    def __init__(self, corpus, cache: Path, log) -> None:
        self.corpus, self.cache, self.log = corpus, cache, log
        cache.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256(code_key().encode())
        for t in corpus["text"]:
            digest.update(t.encode("utf-8", "surrogatepass") + b"\0")
        self.corpus_key = digest.hexdigest()[:16]

    def get(self, recipe: str, rows: np.ndarray, edit: str, seed: int = 0) -> np.ndarray:
        """Rows' features; the unedited texts and the training copies are computed once for every row."""
        groups = COPY_GROUPS.get(recipe, AUGMENTATIONS)
        recipe = FEATURES_OF.get(recipe, recipe)
        if edit in ("raw", "train_copy"):
            return self._matrix(recipe, np.arange(len(self.corpus)), edit, seed, groups)[rows]
        return self._matrix(recipe, rows, edit, seed, groups)

    def _matrix(self, recipe: str, rows: np.ndarray, edit: str, seed: int,
                groups: tuple[tuple[str, ...], ...] = AUGMENTATIONS) -> np.ndarray:
        mix = f"{groups}|{AUG_WEIGHT}" if edit == "train_copy" else ""  # a new mix is a new matrix
        settings = json.dumps(RECIPES[recipe], sort_keys=True)
        key = hashlib.sha256(f"{recipe}|{settings}|{self.corpus_key}|{edit}|{seed}|{mix}".encode()
                             + rows.tobytes()).hexdigest()[:16]
        f = self.cache / f"{recipe}-{edit}-{key}.npy"
        if f.exists():
            return np.load(f)
        t0 = time.perf_counter()
        texts = self.corpus["text"].to_numpy()[rows].tolist()
        featurise = StyleModel(**RECIPES[recipe]).features
        if edit == "train_copy" and recipe != "legacy":
            X = copy_features(featurise, texts, seed, groups)  # (rows, copies, features)
        else:
            if edit == "train_copy":
                texts = truncated_copies(texts, seed)
            elif edit != "raw":
                fn = edits(seed)[edit]
                texts = [fn(t) for t in texts]
            X = featurise(texts)
        tmp = f.with_name(f".{f.stem}.tmp{os.getpid()}.npy")  # whole or absent: a killed run leaves no torn cache
        np.save(tmp, X)
        os.replace(tmp, f)
        self.log(f"  features {recipe}/{edit}: {len(rows)} texts in {time.perf_counter() - t0:.0f}s")
        return X


def timed_log():
    """``log(msg)``: print ``msg`` with the seconds since this call."""
    t_start = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t_start:6.0f}s] {msg}", flush=True)

    return log


def indexed_corpus(paths, sample: int = 0):
    """The corpus table with ``row_idx`` (its row number: the feature cache's key); ``sample``: at most
    that many texts per (genre, provider) cell (for smoke runs)."""
    corpus = load_corpus(paths).reset_index(drop=True)
    if sample:
        corpus = corpus.groupby(["genre", "provider"], group_keys=False).head(sample).reset_index(drop=True)
    corpus["row_idx"] = np.arange(len(corpus))
    return corpus


def run_split(name, feats, recipe, train, tests: dict, args, log) -> tuple[dict, dict]:
    """Fit on ``train``; score every test frame raw and (on a capped sample) under every edit."""
    t0 = time.perf_counter()
    model = fit_recipe(feats, recipe, train, args.seed)
    log(f"{name}/{recipe}: fitted on {len(train)} texts in {time.perf_counter() - t0:.0f}s")
    out, fitted = {}, {}
    for tname, test in tests.items():
        rows = test["row_idx"].to_numpy()
        y_all = test["provider"].to_numpy(object)
        Xraw = feats.get(recipe, rows, "raw")
        fitted[tname] = (tname, model, model.logits(Xraw), y_all, model.distance(Xraw))
        sub = capped(test, args.cap, args.seed)
        sub_rows, y = sub["row_idx"].to_numpy(), sub["provider"].to_numpy(object)
        Pe = {e: model.predict_proba(feats.get(recipe, sub_rows, e, args.seed)) for e in edits()}  # once per edit
        pred = model.classes_[fitted[tname][2].argmax(axis=1)]
        genres = sub["genre"].to_numpy(object)
        out[tname] = {"raw_all": accuracies(model, Xraw, y_all),
                      # true -> predicted, every text (every label of a test set is one the model was fitted on)
                      "confusion": {c: {k: int(((y_all == c) & (pred == k)).sum()) for k in model.classes_}
                                    for c in model.classes_ if (y_all == c).any()},
                      "edits": {e: proba_accuracies(model, P, y) for e, P in Pe.items()},
                      "drops": drop_intervals(model.classes_, Pe, y, topic_keys(sub).to_numpy(), args.seed),
                      "edits_by_genre": {g: {e: proba_accuracies(model, P[genres == g], y[genres == g])["accuracy"]
                                             for e, P in Pe.items()} for g in sorted(set(genres))}}
        ed = out[tname]["edits"]
        log(f"  {tname}: raw {ed['raw']['accuracy']:.3f} / 3-way {ed['raw']['accuracy_3way'] or 0:.3f}; "
            + ", ".join(f"{e} {v['accuracy']:.3f}" for e, v in ed.items() if e != "raw"))
    return out, fitted


def copy_weight(recipe: str) -> float:
    """The weight of each of ``recipe``'s training copies."""
    return LEGACY_AUG_WEIGHT if recipe == "legacy" else COPY_WEIGHTS.get(recipe, AUG_WEIGHT)


def recipe_key(recipe: str) -> str:
    """16 hex digits of everything that makes ``recipe``'s fit: its settings, copies, copy weight, copy
    seed and left-out models (a cached fit of a recipe whose definition changed is never read)."""
    spec = [RECIPES[recipe], COPY_GROUPS.get(recipe, AUGMENTATIONS), copy_weight(recipe), FIXED_COPY_SEED.get(recipe),
            *([sorted(LEFT_OUT[recipe])] if recipe in LEFT_OUT else [])]  # keys of the recipes before stay as they were
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]


def fit_recipe(feats: Features, recipe: str, train, seed: int, row_weight: np.ndarray | None = None) -> StyleModel:
    """A recipe fitted as ``train-probe`` fits it (with its training copies), uncalibrated, on ``train``'s rows
    (``row_weight``: each row's, and its copies', weight; default 1), less the rows of the models
    ``LEFT_OUT[recipe]`` names."""
    if recipe in LEFT_OUT:
        keep = ~train["model"].isin(LEFT_OUT[recipe]).to_numpy()
        train, row_weight = train[keep], None if row_weight is None else np.asarray(row_weight)[keep]
    r = train["row_idx"].to_numpy()
    copies = feats.get(recipe, r, "train_copy", FIXED_COPY_SEED.get(recipe, seed))
    return fit_augmented(feats.get(recipe, r, "raw"), copies, train["provider"],
                         train["genre"], topic_keys(train), calibrate=False, row_weight=row_weight,
                         aug_weight=copy_weight(recipe), seed=seed,
                         **RECIPES[recipe])


def drop_intervals(classes: np.ndarray, Pe: dict, y: np.ndarray, topics: np.ndarray, seed: int,
                   n_boot: int = 2000) -> dict:
    """Per edit, its 4-way drop (raw minus edited accuracy, points) from the probabilities ``Pe[edit]``,
    with a 95 % interval from a paired topic bootstrap (``trial_noise.py``'s: whole topics redrawn,
    the same ones for raw and edited)."""
    right = {e: classes[P.argmax(axis=1)] == y for e, P in Pe.items()}
    w = topic_weights(topics, n_boot, np.random.default_rng(seed))
    raw = weighted_mean(right["raw"], w)
    return {e: interval(float(right["raw"].mean() - r.mean()), raw - weighted_mean(r, w))
            for e, r in right.items() if e != "raw"}


def generation_splits(corpus):
    gen = np.array([generation(m, p, g) for m, p, g in zip(corpus["model"], corpus["provider"], corpus["genre"], strict=True)])
    keys = topic_keys(corpus).to_numpy()
    for src, dst in ((NEW, OLD), (OLD, NEW)):
        test = corpus[gen == dst]
        train = corpus[(gen == src) & ~np.isin(keys, keys[gen == dst])]
        yield f"{src}->{dst}", train, test


def corpus_args(ap: argparse.ArgumentParser, cache: str = "/tmp/whowrote-robustness") -> argparse.ArgumentParser:
    """The arguments every corpus trial in benchmarks/ takes: ``--corpus``, ``--out``, ``--cache``
    (default ``cache``: where its features or fits are kept between runs) and ``--seed``."""
    ap.add_argument("--corpus", nargs="+", required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--cache", type=Path, default=Path(cache))
    ap.add_argument("--seed", type=int, default=0)
    return ap


def required_folders(ap: argparse.ArgumentParser, args: argparse.Namespace, flags: list[str]) -> None:
    """Stop in one line unless every one of ``flags`` (a mode's required folders) was given and is a folder."""
    values = {flag: getattr(args, flag[2:].replace("-", "_")) for flag in flags}
    missing = [flag for flag, value in values.items() if value is None]
    if missing:
        ap.error(f"the following arguments are required: {', '.join(missing)}")
    for folder in values.values():
        if not Path(folder).is_dir():
            raise SystemExit(f"error: {folder}: not a folder")


def main() -> None:
    ap = corpus_args(argparse.ArgumentParser(description=__doc__.split("\n\n")[0]))
    ap.add_argument("--recipes", nargs="+", default=["default", "legacy"], choices=list(RECIPES))
    ap.add_argument("--splits", nargs="+", default=["topic", "logo", "generation"])
    ap.add_argument("--cap", type=int, default=600, help="test texts per test set scored under the edits")
    ap.add_argument("--sample", type=int, default=0, help="texts per (genre, provider) cell; 0 = all (for smoke runs)")
    args = ap.parse_args()
    log = timed_log()
    corpus = indexed_corpus(args.corpus, args.sample)
    feats = Features(corpus, args.cache, log)
    results: dict = {"n_texts": len(corpus), "cap": args.cap, "seed": args.seed}
    for recipe in args.recipes:
        res: dict = {}
        in_genre = None  # the topic hold-out's val predictions join each genre's LOGO calibration fit
        if "topic" in args.splits:
            split = topic_holdout_split(corpus, seed=args.seed, balance=False)
            res["topic"], fitted = run_split("topic", feats, recipe, split["train"], {"val": split["val"]}, args, log)
            _, _, lg, yv, dv = fitted["val"]
            in_genre = (lg, dv, yv, split["val"]["genre"].to_numpy(object))
        if "logo" in args.splits:
            res["logo"], fitted = {}, {}
            for genre, tr, te in leave_one_genre_out(corpus):
                r, f = run_split(f"logo-{genre}", feats, recipe, tr, {genre: te}, args, log)
                res["logo"].update(r)
                fitted.update(f)
            res["logo_calibration"] = logo_report(list(fitted.values()), in_genre)
        if "generation" in args.splits:
            res["generation"] = {}
            for name, tr, te in generation_splits(corpus):
                r, _ = run_split(f"generation {name}", feats, recipe, tr, {name: te}, args, log)
                res["generation"].update(r)
        results[recipe] = res
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / "robustness.json", json.dumps(results, indent=1) + "\n")
    print(tables(results))
    figures(results, args.out)
    log(f"wrote {args.out}")


def tables(results: dict) -> str:
    lines = []
    for recipe in RECIPES:
        res = results.get(recipe)
        if not res:
            continue
        for split in ("topic", "logo", "generation"):
            if split not in res:
                continue
            names = list(edits())
            lines += [f"\n### {recipe}: {split} (4-way accuracy / 3-way accuracy; capped test sets)\n",
                      "| test set | n | " + " | ".join(names) + " |", "|---|---:|" + "---:|" * len(names)]
            for tname, r in res[split].items():
                ed = r["edits"]
                cells = [f"{ed[e]['accuracy']:.3f} / {ed[e]['accuracy_3way'] or 0:.3f}" for e in names]
                lines.append(f"| {tname} | {ed['raw']['n']} | " + " | ".join(cells) + " |")
        cal = {g: v for g, v in res.get("logo_calibration", {}).items() if isinstance(v, dict) and "n" in v}
        if cal:
            lines += [f"\n### {recipe}: leave-one-genre-out, all rows\n",
                      "| genre | n | 4-way | 3-way | OTHER AUROC | ECE | abstain below | coverage | selective accuracy |",
                      "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
            for g, c in cal.items():
                raw = res["logo"][g]["raw_all"]
                au = f"{c['other_auroc']:.3f}" if "other_auroc" in c else "—"
                lines.append(f"| {g} | {raw['n']} | {raw['accuracy']:.3f} | {raw['accuracy_3way'] or 0:.3f} | {au} | "
                             f"{c['ece']:.3f} | {c['abstain_below']:.3f} | {c['coverage']:.3f} | {c['selective_accuracy']:.3f} |")
    return "\n".join(lines)


def figures(results: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(edits())
    splits = [s for s in ("topic", "logo", "generation") if any(s in results.get(r, {}) for r in RECIPES)]
    fig, axes = plt.subplots(1, len(splits), figsize=(5.4 * len(splits), 4.5), sharey=True, squeeze=False)
    for ax, split in zip(axes[0], splits, strict=True):
        shown = [r for r in RECIPES if split in results.get(r, {})]
        width = 0.8 / len(shown)
        for i, recipe in enumerate(shown):
            per = results[recipe][split]
            acc = [np.mean([v["edits"][e]["accuracy"] for v in per.values()]) for e in names]
            ax.bar(np.arange(len(names)) + width * i, acc, width=width, label=recipe)
        ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2, names, rotation=60, ha="right", fontsize=8)
        ax.set_title({"topic": "topic hold-out", "logo": "leave-one-genre-out (mean)",
                      "generation": "leave-one-generation-out (mean)"}[split])
        ax.set_ylim(0, 1)
        ax.axhline(0.9, color="grey", lw=0.5, ls=":")
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel("4-way accuracy")
    fig.suptitle("Accuracy under everyday edits (whowrote benchmarks/robustness.py)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out / "robustness.png", dpi=110)
    plt.close(fig)
    curves = {r: c for r in RECIPES if (c := results.get(r, {}).get("logo_calibration", {}).get("curve"))}
    if not curves:  # no leave-one-genre-out split in this run
        return
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    for recipe, c in curves.items():
        ax.plot(c["coverage"], c["accuracy"], marker=".", label=recipe)
    ax.set_xlabel("coverage (share of texts given a verdict)")
    ax.set_ylabel("accuracy on those texts")
    ax.set_title("Selective accuracy under leave-one-genre-out")
    ax.axhline(0.9, color="grey", lw=0.5, ls=":")
    ax.axvline(0.6, color="grey", lw=0.5, ls=":")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "selective.png", dpi=110)
    plt.close(fig)


def plot_model(model_dir: Path, out: Path) -> None:
    """The figures of a train-probe run's own check (topic hold-out and LOGO under the edits, the
    LOGO accuracy-coverage curve), from the model's ``model.json`` metrics."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m = json.loads((model_dir / "model.json").read_text())["metrics"]
    names = list(edits())
    rows = {"topic hold-out": m["topic_holdout_edits"], **{f"LOGO {g}": v for g, v in
                                                           m["leave_one_genre_out"]["edits"].items()}}
    fig, ax = plt.subplots(figsize=(11, 4.5))
    for label, r in rows.items():
        ax.plot(range(len(names)), [r[e]["accuracy"] for e in names], marker="o", label=label)
    ax.set_xticks(range(len(names)), names, rotation=40, ha="right", fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("4-way accuracy")
    ax.set_title("The default model under everyday edits (train-probe check, <= 400 texts per test set)")
    ax.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(out / "robustness.png", dpi=110)
    plt.close(fig)
    c = m["leave_one_genre_out"]["curve"]
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    ax.plot(c["coverage"], c["accuracy"], marker=".")
    ax.set_xlabel("coverage (share of texts given a verdict)")
    ax.set_ylabel("accuracy on those texts")
    ax.set_title("Selective accuracy, leave-one-genre-out (pooled)")
    ax.axhline(0.9, color="grey", lw=0.5, ls=":")
    ax.axvline(0.6, color="grey", lw=0.5, ls=":")
    ax.set_ylim(0, 1)
    fig.tight_layout()
    fig.savefig(out / "selective.png", dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--plot-model"]:  # python benchmarks/robustness.py --plot-model MODEL_DIR OUT_DIR
        plot_model(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        main()
