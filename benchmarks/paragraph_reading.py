"""Reading every line break as a paragraph break (issue 17 trial, session 31): inner splits only.

A text whose paragraphs are separated by one line break instead of a blank line (a word processor's
plain-text export, some text fields) looks almost the same, yet that edit (``single_newlines``) flips
13.5 % of the bundled model's verdicts on the corpus (chat answers 26 %; ``benchmarks/layout_edits.py``).
The candidate ``paragraphs`` reads every run of line breaks as one blank line after the canonical form
(``StyleModel(canonical_paragraphs=True)``), so the edit cannot move it; what does that reading cost?

Protocol (nothing here reads the outer topic hold-out's val): on the outer topic split's train part
(``topic_holdout_split(corpus, seed=0)["train"]``),

- **inner in-genre**: three inner topic splits (``topic_holdout_split(outer train, seed=100+s)``,
  s = 0..2), each recipe fitted on the inner train (with the training copies, as ``train-probe``),
  scored on every inner val text raw and under every edit of the suite; pooled;
- **inner LOGO**: for each genre, fit on the outer train's other genres, score its outer-train texts
  (3-way accuracy on the assistants' texts); the mean over the five genres.

Differences ``paragraphs`` minus ``default`` come with 95 % intervals from a paired topic bootstrap
(``trial_noise.py``: whole topics redrawn, the same for both recipes; 2,000 resamples).

**Rule, fixed before the run** (committed with this file): adopt the reading for the bundled model
only if (1) raw inner 4-way accuracy falls by at most 0.5 points, (2) the inner LOGO 3-way mean falls
by at most 0.5 points, (3) no other edit's drop (raw minus edited) grows by more than 0.5 points, and
(4) the ``single_newlines`` drop shrinks by at least 2 points (point estimates). Otherwise keep the
default reading.

    OMP_NUM_THREADS=1 python benchmarks/paragraph_reading.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --out results/paragraph_reading

Writes ``paragraph_reading.json`` (and ``_rows.npz``, every text's right/wrong) under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from robustness import Features, corpus_args, fit_recipe, indexed_corpus, timed_log
from trial_noise import interval, topic_weights, weighted_mean

from whowrote.data.generate.store import atomic_write
from whowrote.data.splits import topic_holdout_split, topic_keys
from whowrote.style.edits import edits
from whowrote.style.heldout import three_way
from whowrote.types import OTHER

CANDIDATES = ("default", "paragraphs")
INNER_SEEDS = (100, 101, 102)
N_BOOT = 2000


def decide(d: dict) -> dict:
    other = {e: v for e, v in d["drops"].items() if e != "single_newlines"}
    checks = {"raw": d["raw"]["diff"] >= -0.5, "logo": d["logo_3way_mean"]["diff"] >= -0.5,
              "other_drops": all(v["diff"] <= 0.5 for v in other.values()),
              "single_newlines": d["drops"]["single_newlines"]["diff"] <= -2.0}
    return {"checks": checks, "adopt": all(checks.values())}


def main() -> None:
    run(corpus_args(argparse.ArgumentParser(description=__doc__.split("\n\n")[0])).parse_args(),
        command="benchmarks/paragraph_reading.py")


def run(args: argparse.Namespace, candidates: tuple[str, str] = CANDIDATES, name: str = "paragraph_reading",
        inner_seeds: tuple[int, ...] = INNER_SEEDS, command: str = "") -> None:
    """The protocol for ``candidates`` (the bundled recipe first), writing ``name``.json (``command``
    recorded in it) and ``name``_rows.npz under ``args.out``; ``benchmarks/layout_copies.py`` runs it
    for other candidates."""
    log = timed_log()
    t0 = time.perf_counter()
    corpus = indexed_corpus(args.corpus)
    feats = Features(corpus, args.cache, log)
    outer = topic_holdout_split(corpus, seed=args.seed, balance=False)["train"]
    names = list(edits())
    rows: dict[str, np.ndarray] = {}
    inner = [topic_holdout_split(outer, seed=s, balance=False) for s in inner_seeds]  # once for both candidates
    val = np.concatenate([split["val"]["row_idx"].to_numpy() for split in inner])
    for recipe in candidates:
        right = {e: [] for e in names}
        for s, split in zip(inner_seeds, inner, strict=True):
            model = fit_recipe(feats, recipe, split["train"], args.seed)
            v = split["val"]
            r, y = v["row_idx"].to_numpy(), v["provider"].to_numpy(object)
            for e in names:
                P = model.predict_proba(feats.get(recipe, r, e, args.seed))
                right[e].append(model.classes_[P.argmax(axis=1)] == y)
            log(f"{recipe} inner split {s}: raw {np.mean(right['raw'][-1]):.3f}")
        for e in names:
            rows[f"inner|{recipe}|{e}"] = np.concatenate(right[e])
        for g in sorted(set(outer["genre"])):
            test = outer[(outer["genre"] == g) & (outer["provider"] != OTHER)]
            model = fit_recipe(feats, recipe, outer[outer["genre"] != g], args.seed)
            P = model.predict_proba(feats.get(recipe, test["row_idx"].to_numpy(), "raw"))
            rows[f"logo|{recipe}|{g}"] = three_way(model, P) == test["provider"].to_numpy(object)
            rows[f"logo_topics|{g}"] = topic_keys(test).to_numpy()
            log(f"{recipe} LOGO {g}: 3-way {rows[f'logo|{recipe}|{g}'].mean():.3f}")
    res = summarise(rows, names, topic_keys(corpus).to_numpy()[val], args.seed, candidates)
    res.update({"command": command, "seed": args.seed, "inner_seeds": list(inner_seeds),
                "n_inner_val": len(val), "seconds": round(time.perf_counter() - t0)})
    res["decision"] = decide(res["diff"])
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out / f"{name}.json", json.dumps(res, indent=1) + "\n")
    tmp = args.out / f".{name}_rows.tmp.npz"
    np.savez(tmp, **{k: np.asarray(v) for k, v in rows.items()})
    os.replace(tmp, args.out / f"{name}_rows.npz")
    print(json.dumps(res, indent=1))


def summarise(rows: dict[str, np.ndarray], names: list[str], topics: np.ndarray, seed: int,
              candidates: tuple[str, str] = CANDIDATES) -> dict:
    """Each recipe's numbers and the second minus the first with paired topic-bootstrap intervals."""
    rng = np.random.default_rng(seed)
    w = topic_weights(topics, N_BOOT, rng)
    genres = sorted(k.split("|")[2] for k in rows if k.startswith(f"logo|{candidates[0]}|"))
    out: dict = {"recipes": {}, "diff": {"drops": {}}}
    for recipe in candidates:
        raw = rows[f"inner|{recipe}|raw"]
        out["recipes"][recipe] = {"raw": round(float(raw.mean()), 4),
                                  "drops": {e: round(100 * float(raw.mean() - rows[f"inner|{recipe}|{e}"].mean()), 2)
                                            for e in names if e != "raw"},
                                  "logo_3way": {g: round(float(rows[f"logo|{recipe}|{g}"].mean()), 4) for g in genres}}
        out["recipes"][recipe]["logo_3way_mean"] = round(float(np.mean(list(out["recipes"][recipe]["logo_3way"].values()))), 4)

    def inner(recipe: str, e: str | None) -> np.ndarray:
        raw = weighted_mean(rows[f"inner|{recipe}|raw"], w)
        return raw if e is None else raw - weighted_mean(rows[f"inner|{recipe}|{e}"], w)

    def point(recipe: str, e: str | None) -> float:
        raw = rows[f"inner|{recipe}|raw"].mean()
        return float(raw if e is None else raw - rows[f"inner|{recipe}|{e}"].mean())

    a, b = candidates
    out["diff"]["raw"] = interval(point(b, None) - point(a, None), inner(b, None) - inner(a, None))
    for e in (n for n in names if n != "raw"):
        out["diff"]["drops"][e] = interval(point(b, e) - point(a, e), inner(b, e) - inner(a, e))
    boot, pt = np.zeros(N_BOOT), 0.0
    for g in genres:
        wg = topic_weights(rows[f"logo_topics|{g}"], N_BOOT, rng)
        boot += weighted_mean(rows[f"logo|{b}|{g}"], wg) - weighted_mean(rows[f"logo|{a}|{g}"], wg)
        pt += float(rows[f"logo|{b}|{g}"].mean() - rows[f"logo|{a}|{g}"].mean())
    out["diff"]["logo_3way_mean"] = interval(pt / len(genres), boot / len(genres))
    return out


if __name__ == "__main__":
    main()
