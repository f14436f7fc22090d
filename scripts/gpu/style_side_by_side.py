"""The style model on exactly the texts the answer-only LM is scored on (session 11; issue 17 beside 14).

Two side-by-sides, 3-way accuracy (the most probable of CLAUDE / CHATGPT / GEMINI) and recall:

- **the edits**: the ladder's 240-text val (``.gguf/data/val.jsonl.gz``) raw and under every edit of
  ``.gguf/edits`` (``edit_splits.py``), scored by the bundled recipe fitted here on every corpus text
  (five genres) whose topic is not one of the val's topics;
- **the unseen genre**: ``.gguf/edits/chat.jsonl.gz`` scored by the recipe fitted on blogs, debates,
  fiction and longform only (the genre-jackknife cache's 4-genre fit: the LM's train genres).

Features and the 4-genre fit come from ``benchmarks/genre_jackknife.py``'s cache (computed there if
missing, ~15 min); the topic fit takes ~3 min on one core. ``--plot PNG --lm DIR...`` instead draws
that file beside the LM's k = 4 evals (``DIR/eval_k4*/summary.json``, pass@1), no corpus needed; each
``--lm`` is one model (its folders from several calls), named by ``--lm-label`` in the same order.

    OMP_NUM_THREADS=1 python scripts/gpu/style_side_by_side.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --out results/session11/style_side_by_side.json
    python scripts/gpu/style_side_by_side.py --out results/session11/style_side_by_side.json --plot docs/figures/lm_vs_style_edits.png \\
        --lm results/session11/callA2/qwen05b/sft_answer_only results/session11/evalX/qwen05b/sft_answer_only
    python scripts/gpu/style_side_by_side.py --out results/session20/style_side_by_side.json \
        --plot docs/figures/grpo_vs_style_edits_session23.png \
        --lm results/session22/B/qwen05b/sft_answer_only --lm-label "answer-only SFT" \
        --lm results/session23/E/qwen05b/cs_tellsfirst_ao/grpo_s2_lr5e-6_mp05_fw03 --lm-label "GRPO seed 2" \
        --lm results/session23/E/qwen05b/cs_tellsfirst_ao/grpo_s3_lr5e-6_mp05_fw03 --lm-label "GRPO seed 3"

``--score DIR... --split FILE`` scores saved style models (``train-probe``'s folders; ``default`` the
bundled one) on a split's texts, 3-way, as the other tables do: the same test for the LM's
out-of-corpus file (session 38)::

    python scripts/gpu/style_side_by_side.py --out results/session38/style_arena_b.json \
        --split .gguf/edits/arena_b.jsonl.gz --score default /tmp/oldmodel /tmp/s38style/lmtrain

With ``--plot PNG`` it also draws one bar per model (named by ``--score-label``, in order); with
``--by held_out`` (or ``genre``, ``model``) each model is also scored per group; with ``--lm-traces
TRACES`` (an LM's k = 4 eval of the same split) the LM's pass@1 minus each model's accuracy, with a
95 % interval from a paired bootstrap over prompts (session 39).

``--plot --style-scores DIR`` draws the models of a folder of ``--score`` outputs (one JSON per
split, named as the split) in place of the side-by-side file, named by ``--style-label`` (session 39).

``--drops JSON`` (with ``--plot``) also writes each LM's losses from its own raw pass@1 (raw minus
edit, positive) and their means over ``CONTENT_EDITS`` and ``UNSEEN_EDITS`` (session 29's rule).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from genre_jackknife import CACHE, PARAMS, features, fit_subset, label_probs  # noqa: E402
from robustness import timed_log  # noqa: E402
from trial_noise import interval, topic_weights, weighted_mean  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from genre_breakdown import GROUPS, eval_k, group_of  # noqa: E402

from whowrote.data.generate.store import atomic_write  # noqa: E402
from whowrote.llm.evaluate import load_traces  # noqa: E402
from whowrote.style.io import load_model  # noqa: E402
from whowrote.style.train import fit_augmented, training_corpus  # noqa: E402
from whowrote.train.data import read_rows  # noqa: E402
from whowrote.types import LABELS, PROVIDERS, WhowroteError  # noqa: E402

PI = [LABELS.index(p) for p in PROVIDERS]


def verdicts(P: np.ndarray) -> np.ndarray:
    """The most probable of CLAUDE / CHATGPT / GEMINI per row of ``P`` (columns ``LABELS``)."""
    return np.array(PROVIDERS)[P[:, PI].argmax(axis=1)]


def three_way(P: np.ndarray, gold) -> dict:
    """3-way accuracy and per-provider recall of probabilities ``P`` (columns ``LABELS``)."""
    pred = verdicts(P)
    g = np.array(gold)
    return {"n": len(g), "accuracy": float((pred == g).mean()),
            "recall": {p: float((pred[g == p] == p).mean()) for p in PROVIDERS if (g == p).any()}}


ORDER = ("raw", "to_ascii", "smart_quotes", "lower", "sent_shuffle", "strip_markdown", "markdown_html",
         "combined", "first_300_words", "first_800_chars", "chat", "arena_b")


def lm_scores(dirs: list[Path]) -> dict[str, float]:
    """pass@1 of the LM's evals by test name (``eval_k4`` is raw, ``eval_k4_val.EDIT`` an edit)."""
    out = {}
    for d in dirs:
        for f in sorted(d.glob("eval_k4*/summary.json")):
            name = f.parent.name.removeprefix("eval_k4").removeprefix("_").removeprefix("val.")
            name = "raw" if name in ("", "B") else name  # callB's eval_k4_B is its raw val
            out[name] = float(json.loads(f.read_text())["accuracy"])
    return out


# the drop rule of session 29 (docs/gpu-notes.md): the content edits, and the two no training copy makes
CONTENT_EDITS = ("strip_markdown", "markdown_html", "first_800_chars", "first_300_words", "lower", "sent_shuffle",
                 "combined")
UNSEEN_EDITS = ("markdown_html", "first_800_chars")
# texts that are not the val edited (the corpus's chat answers, Arena-Hard's half B): no loss from raw
OTHER_TEXTS = ("chat", "arena_b")


def lm_drops(scores: dict[str, float]) -> dict:
    """Each test's pass@1 and, per edit, the points lost from the model's own raw (``loss_points``:
    raw minus edit, so a loss is positive; the style model's ``drop_points`` are edit minus raw), with
    the mean loss over the content edits and over the unseen ones (None where an eval is missing).
    ``OTHER_TEXTS`` are other texts, not edits of the val: in ``pass@1`` only."""
    raw = scores["raw"]
    loss = {k: 100 * (raw - v) for k, v in scores.items() if k != "raw" and k not in OTHER_TEXTS}

    def mean(names: tuple[str, ...]) -> float | None:
        return float(np.mean([loss[n] for n in names])) if all(n in loss for n in names) else None

    return {"pass@1": scores, "loss_points": loss, "mean_loss_content": mean(CONTENT_EDITS),
            "mean_loss_unseen": mean(UNSEEN_EDITS)}


def lm_samples(traces: Path, ids: list[str]) -> list[list[dict]]:
    """Each text's LM samples (trace records), in ``ids``' order, from a k-sample eval's traces; a
    text with none is an error."""
    records, _ = load_traces(traces, eval_k(traces.parent))
    by_id: dict[str, list[dict]] = {}
    for r in records:
        by_id.setdefault(str(r["prompt_id"]), []).append(r)
    if missing := [i for i in ids if i not in by_id]:
        raise WhowroteError(f"{traces}: no samples for {len(missing)} of the split's texts (e.g. {missing[0]})")
    return [by_id[i] for i in ids]


def lm_right(traces: Path, ids: list[str]) -> np.ndarray:
    """Each text's share of right LM samples (its pass@1), in ``ids``' order."""
    return np.array([np.mean([bool(r["correct"]) for r in samples]) for samples in lm_samples(traces, ids)])


def prompt_units(rows: list[dict]) -> np.ndarray:
    """Each row's prompt (its ``topic``, else its ``id``): the unit a paired bootstrap redraws."""
    return np.array([str(r.get("topic") or r["id"]) for r in rows])


def paired_vs_lm(style_right: np.ndarray, lm: np.ndarray, units: np.ndarray, seed: int = 0,
                 n_boot: int = 2000) -> dict[str, float]:
    """The LM's pass@1 minus the style model's accuracy on the same texts (points), with a 95 %
    interval from a paired bootstrap that redraws whole ``units`` (prompts) for both."""
    w = topic_weights(units, n_boot, np.random.default_rng(seed))
    return {"lm_pass@1": float(lm.mean()),
            **interval(float(lm.mean() - style_right.mean()), weighted_mean(lm, w) - weighted_mean(style_right, w))}


def score_models(dirs: list[str], split: Path, by: str | None = None, lm_traces: Path | None = None) -> dict[str, dict]:
    """3-way accuracy and recall of each saved model (``default``: the bundled one) on ``split``; with
    ``by`` (``genre_breakdown.group_of``'s fields) also per group, under ``"by"``; with ``lm_traces``
    (an LM eval of the same split) the LM minus each model, paired by text, under ``"lm_minus_style"``."""
    rows = read_rows(split)
    texts, gold = [r["text"] for r in rows], np.array([r["provider"] for r in rows])
    groups = np.array([group_of(r, by) for r in rows]) if by else None
    lm = lm_right(lm_traces, [str(r["id"]) for r in rows]) if lm_traces else None
    units = prompt_units(rows)
    out = {}
    for d in dirs:
        model = load_model(None if d == "default" else d)
        P = label_probs(model, model.features(texts))
        out[d] = three_way(P, gold)
        if lm is not None:
            out[d]["lm_minus_style"] = paired_vs_lm(verdicts(P) == gold, lm, units)
        if groups is not None:
            out[d]["by"] = {str(g): three_way(P[groups == g], gold[groups == g]) for g in sorted(set(groups.tolist()))}
    return out


def plot_scores(scores: dict[str, dict], labels: list[str], title: str, path: Path) -> None:
    """One bar per scored model (3-way accuracy), chance marked: ``--score`` with ``--plot``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    acc = [v["accuracy"] for v in scores.values()]
    fig, ax = plt.subplots(figsize=(max(4.0, 1.3 * len(acc)), 3.4))
    ax.bar(range(len(acc)), acc, color="tab:green")
    for i, a in enumerate(acc):
        ax.text(i, a + 0.01, f"{a:.3f}", ha="center", fontsize=8)
    ax.axhline(1 / 3, color="black", linestyle="--", linewidth=1, label="chance")
    ax.set_xticks(range(len(acc)), labels, rotation=20, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("3-way accuracy")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def side_by_side_scores(style: dict) -> dict[str, float]:
    """The 3-way accuracy per test of a side-by-side file (``--out`` without ``--score``)."""
    return {**{k: v["accuracy"] for k, v in style["edits"].items()}, "chat": style["chat_logo"]["accuracy"]}


def score_folder(folder: Path) -> dict[str, dict[str, float]]:
    """``--score`` outputs, one JSON per split named as the split (``val``, ``val.EDIT``, ``chat``,
    ``arena_b``), as each scored model's 3-way accuracy per test name (``raw`` for ``val``)."""
    out: dict[str, dict[str, float]] = {}
    for f in sorted(folder.glob("*.json")):
        name = "raw" if f.stem == "val" else f.stem.removeprefix("val.")
        for model, v in json.loads(f.read_text())["models"].items():
            out.setdefault(model, {})[name] = v["accuracy"]
    return out


def plot(styles: list[tuple[str, dict[str, float]]], lms: list[tuple[str, dict[str, float]]], path: Path) -> None:
    """Grouped bars: each LM's pass@1 and each style model's 3-way accuracy per test, chance marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in ORDER if any(n in sty for _, sty in styles) and any(n in lm for _, lm in lms)]
    x = np.arange(len(names))
    width = 0.8 / (len(lms) + len(styles))
    fig, ax = plt.subplots(figsize=(10, 3.6))
    for i, (label, lm) in enumerate([*lms, *styles]):
        ax.bar(x - 0.4 + width * (i + 0.5), [lm.get(n, np.nan) for n in names], width, label=label)
    ax.axhline(1 / 3, color="black", linestyle="--", linewidth=1, label="chance")
    ax.set_xticks(x, [n.replace("_", " ") + {"chat": " (unseen genre)", "arena_b": " (outside the corpus)"}.get(n, "")
                      for n in names], rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("3-way accuracy, 240 texts")
    ax.legend(fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(len(lms) + len(styles) + 1, 4),
              frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", nargs="+")
    ap.add_argument("--plot", type=Path, help="draw --out beside the LM's evals (--lm) instead of fitting")
    ap.add_argument("--lm", type=Path, nargs="+", action="append", default=[],
                    help="one model's run folders (repeat for more models)")
    ap.add_argument("--lm-label", action="append", default=[], help="a name for each --lm, in order")
    ap.add_argument("--drops", type=Path, help="with --plot: write each LM's pass@1 and drops here (JSON)")
    ap.add_argument("--style-scores", type=Path,
                    help="with --plot: draw the style models of this folder of --score outputs (one per split)")
    ap.add_argument("--style-label", action="append", default=[], help="with --style-scores: a name per model")
    ap.add_argument("--val", type=Path, default=Path(".gguf/data/val.jsonl.gz"))
    ap.add_argument("--edits", type=Path, default=Path(".gguf/edits"))
    ap.add_argument("--cache", type=Path, default=Path(CACHE))
    ap.add_argument("--score", nargs="+", help="saved style models to score on --split (default: the bundled one)")
    ap.add_argument("--split", type=Path, help="with --score: the texts (JSONL rows with text and provider)")
    ap.add_argument("--score-label", action="append", default=[], help="with --score --plot: a name per model")
    ap.add_argument("--by", choices=GROUPS, help="with --score: also score each group of the split's rows")
    ap.add_argument("--lm-traces", type=Path,
                    help="with --score: an LM eval's traces.jsonl on the same split, compared text by text")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if a.score:
        if a.split is None or not a.split.is_file():
            raise SystemExit("--score needs --split FILE (an existing JSONL of rows with text and provider)")
        try:
            scores = {"command": "scripts/gpu/style_side_by_side.py --score", "split": str(a.split),
                      "models": score_models(a.score, a.split, a.by, a.lm_traces)}
        except WhowroteError as e:  # a bad model folder or split file
            raise SystemExit(f"error: {e}") from None
        except KeyError as e:
            raise SystemExit(f"error: {a.split}: a row without {e}") from None
        atomic_write(a.out, json.dumps(scores, indent=1) + "\n")
        for d, v in scores["models"].items():
            vs = v.get("lm_minus_style")
            print(f"{d}: 3-way {v['accuracy']:.3f} recall {v['recall']}" + (
                f"; LM {vs['lm_pass@1']:.3f}, LM minus it {vs['diff']:+.1f} [{vs['lo']:+.1f}, {vs['hi']:+.1f}]" if vs else ""))
        if a.plot:
            if a.score_label and len(a.score_label) != len(a.score):
                raise SystemExit(f"--score-label given {len(a.score_label)} times for {len(a.score)} models")
            n = scores["models"][a.score[0]]["n"]
            plot_scores(scores["models"], a.score_label or a.score, f"{a.split.name} ({n} texts)", a.plot)
        return
    if a.drops and not a.plot:
        raise SystemExit("--drops goes with --plot (it reads the LMs' evals given by --lm)")
    if a.plot:
        if not a.lm or not (a.out.is_file() or a.style_scores):
            raise SystemExit("--plot needs --lm DIR and the --out file of an earlier run (or --style-scores DIR)")
        if a.lm_label and len(a.lm_label) != len(a.lm):
            raise SystemExit(f"--lm-label given {len(a.lm_label)} times for {len(a.lm)} --lm")
        labels = a.lm_label or ["answer-only SFT, Qwen 0.5B (pass@1, k = 4)"] * len(a.lm)
        lms = [(lab, lm_scores(d)) for lab, d in zip(labels, a.lm, strict=True)]
        if missing := [lab for lab, sc in lms if "raw" not in sc]:
            raise SystemExit(f"no raw eval (eval_k4/summary.json) for: {', '.join(missing)}")
        if a.style_scores:
            if not a.style_scores.is_dir() or not (scored := score_folder(a.style_scores)):
                raise SystemExit(f"--style-scores: no --score output (*.json) in {a.style_scores}")
            if a.style_label and len(a.style_label) != len(scored):
                raise SystemExit(f"--style-label given {len(a.style_label)} times for {len(scored)} models")
            styles = list(zip(a.style_label or list(scored), scored.values(), strict=True))
        else:
            styles = [("style model (3-way)", side_by_side_scores(json.loads(a.out.read_text())))]
        plot(styles, lms, a.plot)
        if a.drops:
            drops = {lab: lm_drops(sc) for lab, sc in lms}
            a.drops.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(a.drops, json.dumps(drops, indent=1) + "\n")
            for lab, d in drops.items():
                means = [f"{m:.2f}" if m is not None else "n/a (an eval missing)"
                         for m in (d["mean_loss_content"], d["mean_loss_unseen"])]
                print(f"{lab}: raw {d['pass@1']['raw']:.4f}; mean loss (points), content edits {means[0]}, "
                      f"unseen {means[1]}")
        return
    if not a.corpus:
        raise SystemExit("--corpus is required (or --plot)")
    log = timed_log()
    a.cache.mkdir(parents=True, exist_ok=True)
    corpus = training_corpus(a.corpus)
    X, Xa = features(corpus["text"].tolist(), a.seed, a.cache, log)
    out: dict = {"command": "scripts/gpu/style_side_by_side.py", "seed": a.seed}

    # the edits: fit on every text whose topic the val does not hold
    val = read_rows(a.val)
    topics = {r["topic"] for r in val}
    keep = ~corpus["topic"].astype(str).isin(topics).to_numpy()
    tr = corpus[keep]
    log(f"topic fit on {int(keep.sum())} of {len(corpus)} texts ({len(topics)} val topics held out)")
    model = fit_augmented(X[keep], Xa[keep], tr["provider"], tr["genre"], seed=a.seed, **PARAMS)
    gold = [r["provider"] for r in val]

    def probs(texts: list[str]) -> np.ndarray:
        return label_probs(model, model.features(texts))

    edits = {"raw": three_way(probs([r["text"] for r in val]), gold)}
    for f in sorted(a.edits.glob("val.*.jsonl.gz")):
        rows = read_rows(f)
        assert [r["id"] for r in rows] == [r["id"] for r in val], f"{f}: not the val's rows in order"
        edits[f.name.split(".")[1]] = three_way(probs([r["text"] for r in rows]), gold)
    out["edits"] = {k: {**v, "drop_points": 100 * (v["accuracy"] - edits["raw"]["accuracy"])} for k, v in edits.items()}

    # the unseen genre: the 4-genre fit (no chat), on the same 240 chat answers as the LM
    chat = read_rows(a.edits / "chat.jsonl.gz")
    P4, _ = fit_subset(("blog", "debate", "fiction", "longform"), corpus, X, Xa, a.seed, a.cache, log)
    row_of = {i: n for n, i in enumerate(corpus["id"].astype(str))}
    idx = [row_of[str(r["id"])] for r in chat]
    out["chat_logo"] = three_way(P4[idx], [r["provider"] for r in chat])
    a.out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(a.out, json.dumps(out, indent=1) + "\n")
    for k, v in out["edits"].items():
        log(f"{k:18s} 3-way {v['accuracy']:.3f} ({v['drop_points']:+.1f})")
    log(f"chat (4-genre fit) 3-way {out['chat_logo']['accuracy']:.3f} recall {out['chat_logo']['recall']}")


if __name__ == "__main__":
    main()
