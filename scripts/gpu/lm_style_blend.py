"""The LM and the style model combined, on the LM's own test files (issue 17, session 40).

Session 39's arena-trained LM beat the style model fitted on the same rows on out-of-corpus chat
(``arena_b``: 0.844 against 0.787) but lost more under the content edits (mean loss 10.0 points; the
first 800 characters 0.617). Does a combination of the two keep the LM's gain and the style model's
robustness? Nothing is fitted or tuned here; the blend's weight is fixed at one half:

    p_blend = ½ · (the style model's probabilities over CLAUDE / CHATGPT / GEMINI, renormalised)
            + ½ · (the share of the LM's k samples that name each provider)

and the verdict is its most probable provider. The LM side comes from its k = 4 eval traces
(``DIR/eval_k4*/traces.jsonl``), the style side from a saved model (``train-probe``'s folder;
``default`` the bundled one) scored here on each test file: the raw val (``--val``), the edited vals
and the two other-text files of ``--edits``, the files those evals read.

The style side is its members' averaged probabilities before the temperature (``genre_jackknife.
label_probs``, as ``style_side_by_side.py --score``).

The rule (fixed before the blend was scored, 2026-12-05 23:46 UTC, with session 39's LM and the
style model fitted on its 2,478 rows): the blend **keeps both** if its ``arena_b`` accuracy is within
1 point of the LM's pass@1 (≥ LM − 1), its mean loss over the seven content edits is at most the style
model's + 1 point, and its raw val is ≥ 0.98; otherwise the parts that fail are named.

The blend failed it (the edits and the raw val: it follows the LM wherever the LM is unanimous). A
second combination, fixed before it was scored (2026-12-06 00:00 UTC), defers to the LM only where
the style model itself abstains: **gated** takes the style model's verdict where its own abstain rule
(``StyleModel.uncertain``: calibrated top probability below its ``abstain_below_`` or distance beyond
its ``ood_threshold_``, both fitted by ``train-probe``, nothing chosen here) does not fire, and the
blend's where it does. The same three conditions decide whether it keeps both.

With ``--held-out NAME`` (session 42) one of the other-text files (``--other``) is a genre that
neither the LM nor the style model trained on, and ``logo_verdict`` adds the leave-one-genre-out
rule the issue's engine condition needs: does the LM, alone or through the gate, beat the style model
there by a margin the paired interval supports?

    python scripts/gpu/lm_style_blend.py --lm /tmp/s40t/qwen05b/sft_answer_only_arena \\
        --style /tmp/s38style/lmtrain_arena --out results/session40/lm_style_blend.json \\
        --plot docs/figures/lm_style_blend_session40.png --lm-label "arena-trained LM"
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from style_side_by_side import CONTENT_EDITS, OTHER_TEXTS, PI, lm_samples, prompt_units  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from genre_jackknife import label_probs  # noqa: E402
from trial_noise import interval, topic_weights, weighted_mean  # noqa: E402

from whowrote.data.generate.store import atomic_write  # noqa: E402
from whowrote.style.io import load_model  # noqa: E402
from whowrote.style.model import StyleModel  # noqa: E402
from whowrote.train.data import read_rows  # noqa: E402
from whowrote.types import PROVIDERS, WhowroteError  # noqa: E402


def lm_votes(traces: Path, ids: list[str]) -> np.ndarray:
    """Each text's share of LM samples naming each provider (rows in ``ids``' order, columns
    ``PROVIDERS``); a sample naming none counts for none."""
    return np.array([[sum(r["pred"] == p for r in samples) / len(samples) for p in PROVIDERS]
                     for samples in lm_samples(traces, ids)])


def style_probs(model: StyleModel, X: np.ndarray) -> np.ndarray:
    """The style model's member probabilities over the three providers on feature rows ``X``,
    renormalised (columns ``PROVIDERS``)."""
    P = label_probs(model, X)[:, PI]
    return P / P.sum(axis=1, keepdims=True)


def rights(model: StyleModel, rows: list[dict], traces: Path) -> dict[str, np.ndarray]:
    """Per text of ``rows``: the LM's pass@1 (its share of right samples), whether the style model, the
    blend and the gated combination are right, the style model's abstain flag, and both sides' votes
    and probabilities (``lm_votes``, ``style_probs``)."""
    ids, gold = [str(r["id"]) for r in rows], np.array([r["provider"] for r in rows])
    X = model.features([r["text"] for r in rows])
    votes, S = lm_votes(traces, ids), style_probs(model, X)
    P, far, _ = model.proba_distance(X)  # one distance computation, shared with the abstain rule
    unsure = model.uncertain(P, X, far)
    style_right = np.array(PROVIDERS)[S.argmax(axis=1)] == gold
    blend_right = np.array(PROVIDERS)[(0.5 * S + 0.5 * votes).argmax(axis=1)] == gold
    return {"lm": votes[np.arange(len(rows)), [PROVIDERS.index(g) for g in gold]], "style": style_right,
            "blend": blend_right, "gated": np.where(unsure, blend_right, style_right), "unsure": unsure,
            "votes": votes, "style_probs": S}


def paired_diff(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> dict[str, float]:
    """``a`` minus ``b`` (per-text right/wrong or pass@1) in points, with a 95 % interval over ``w``,
    :func:`topic_weights`' resampled prompt weights for the same texts (so the two are paired)."""
    return interval(float(a.mean() - b.mean()), weighted_mean(a, w) - weighted_mean(b, w))


def score_file(model: StyleModel, split: Path, traces: Path) -> dict:
    """Accuracy of the LM (pass@1), the style model, the blend and the gated combination on one file,
    with paired 95 % intervals (bootstrap over prompts) of each combination minus each side."""
    rows = read_rows(split)
    w = topic_weights(prompt_units(rows), 2000, np.random.default_rng(0))  # one draw of prompts for every pair
    r = rights(model, rows, traces)
    lm_right, style_right, unsure, votes, S = r["lm"], r["style"], r["unsure"], r["votes"], r["style_probs"]
    right = {"blend": r["blend"], "gated": r["gated"]}
    out = {"n": len(rows), "lm": float(lm_right.mean()), "style": float(style_right.mean()),
           "style_uncertain": float(unsure.mean()),
           # how sharp each side is: all k samples agree; the member probability of the top provider > 0.9
           "lm_unanimous": float((votes.max(axis=1) == 1).mean()), "style_top_over_0.9": float((S.max(axis=1) > 0.9).mean())}
    out["lm_minus_style"] = paired_diff(lm_right, style_right, w)
    for who, ok in right.items():
        out[who] = float(ok.mean())
        for other, base in (("lm", lm_right), ("style", style_right)):
            out[f"{who}_minus_{other}"] = paired_diff(ok, base, w)
    return out


def verdict(scores: dict[str, dict], who: str = "blend") -> dict:
    """The rule in the module docstring for combination ``who`` (``blend`` or ``gated``), on ``scores``
    (test name → ``score_file``'s output)."""
    def mean_loss(w: str) -> float:
        return float(np.mean([100 * (scores["raw"][w] - scores[e][w]) for e in CONTENT_EDITS]))

    arena = scores["arena_b"][who] >= scores["arena_b"]["lm"] - 0.01
    edits = mean_loss(who) <= mean_loss("style") + 1
    raw = scores["raw"][who] >= 0.98
    fails = [name for name, ok in (("arena_b", arena), ("edits", edits), ("raw", raw)) if not ok]
    return {"mean_content_loss": {w: mean_loss(w) for w in ("lm", "style", who)},
            "keeps_both": not fails, "fails": fails}


def logo_verdict(scores: dict[str, dict], held_out: str) -> dict:
    """The leave-one-genre-out rule (fixed 2026-12-06 04:45 UTC, commit 142580c, before any LM trained
    without a genre): on ``held_out``, the file of a genre neither side trained on, the LM and the gate each **improve** on
    the style model if the paired difference is ≥ 2 points and its 95 % interval is above 0, are
    **worse** if the interval is below 0, and are **level** otherwise."""
    def call(d: dict) -> str:
        if d["diff"] >= 2.0 and d["lo"] > 0:
            return "improves"
        return "worse" if d["hi"] < 0 else "level"

    s = scores[held_out]
    return {"held_out": held_out, "lm": call(s["lm_minus_style"]), "gated": call(s["gated_minus_style"]),
            "lm_minus_style": s["lm_minus_style"], "gated_minus_style": s["gated_minus_style"]}


def plot(scores: dict[str, dict], path: Path, lm_label: str = "LM") -> None:
    """Grouped bars per test file: the LM, the style model, the blend and the gated combination."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(scores)
    x = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(11, 4))
    bars = (("lm", f"{lm_label} (pass@1)"), ("style", "style model, same rows"), ("blend", "½ LM + ½ style"),
            ("gated", "style, blend where it abstains"))
    for j, (who, label) in enumerate(bars):
        ax.bar(x + (j - 1.5) * 0.2, [scores[n][who] for n in names], 0.2, label=label)
    ax.axhline(1 / 3, color="grey", lw=0.8, ls=":")
    ax.set_xticks(x, names, rotation=35, ha="right")
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("3-way accuracy (240 texts each)")
    ax.set_title("An LM, the style model fitted on its rows, and two ways to combine them (session 40)")
    ax.legend(loc="upper center", ncol=4, fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lm", type=Path, required=True, help="the LM's run folder (its eval_k4* traces)")
    ap.add_argument("--style", default="default", help="a saved style model's folder (default: the bundled one)")
    ap.add_argument("--val", type=Path, default=Path(".gguf/data/val.jsonl.gz"))
    ap.add_argument("--edits", type=Path, default=Path(".gguf/edits"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--plot", type=Path)
    ap.add_argument("--lm-label", default="LM", help="with --plot: the LM's name in the legend")
    ap.add_argument("--other", nargs="+", default=list(OTHER_TEXTS),
                    help="the other-text files of --edits the LM was scored on (eval_k4_NAME)")
    ap.add_argument("--held-out", help="one of --other: a genre neither side trained on; adds the "
                                       "leave-one-genre-out rule (logo_verdict)")
    a = ap.parse_args()
    if a.held_out is not None and a.held_out not in a.other:
        sys.exit(f"error: --held-out {a.held_out} is not one of --other ({' '.join(a.other)})")
    try:
        model = load_model(None if a.style == "default" else a.style)
        files = {"raw": (a.val, a.lm / "eval_k4" / "traces.jsonl")}
        for e in CONTENT_EDITS:
            files[e] = (a.edits / f"val.{e}.jsonl.gz", a.lm / f"eval_k4_val.{e}" / "traces.jsonl")
        for o in a.other:
            files[o] = (a.edits / f"{o}.jsonl.gz", a.lm / f"eval_k4_{o}" / "traces.jsonl")
        scores = {}
        for name, (split, traces) in files.items():
            scores[name] = score_file(model, split, traces)
            s = scores[name]
            print(f"{name:16s} LM {s['lm']:.3f}  style {s['style']:.3f}  blend {s['blend']:.3f}  gated "
                  f"{s['gated']:.3f} (style uncertain on {s['style_uncertain']:.0%})", flush=True)
    except (OSError, WhowroteError) as e:
        sys.exit(f"error: {e}")
    out = {"command": "scripts/gpu/lm_style_blend.py", "lm": str(a.lm), "style": a.style, "scores": scores}
    if "arena_b" in scores:  # session 40's rule reads it
        out.update(rule=verdict(scores), rule_gated=verdict(scores, "gated"))
    if a.held_out is not None:
        out["rule_logo"] = logo_verdict(scores, a.held_out)
    atomic_write(a.out, json.dumps(out, indent=1))
    shown = {name: out[key] for name, key in (("blend", "rule"), ("gated", "rule_gated"), ("logo", "rule_logo"))
             if key in out}
    print(json.dumps(shown, indent=1))
    if a.plot:
        plot(scores, a.plot, a.lm_label)


if __name__ == "__main__":
    main()
