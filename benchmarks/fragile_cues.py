"""Which features an everyday Markdown edit changes, measured on corpus texts: the evidence behind the
``fragile`` flag of a tell (``whowrote.style.explain``).

For up to ``--per-genre`` texts of each genre (seed 0), the features the model reads are computed on
the text as it is and after each edit that changes a text's markup but not its words:
``strip_markdown`` (pasted as plain text), ``markdown_html_roundtrip`` (rendered and copied back),
``star_bullets`` (another list marker), and since session 51 ``docx_file`` (pasted into Word and read
back as ``whowrote predict`` reads a .docx). A feature *moves* on a text when an edit changes its value by
more than 10 % (relative; values under 1e-9 count as 0). Texts are split three ways
(``whowrote.style.explain.has_markup``): block markup (headings, lists, code blocks, rules, tables),
inline markup only (emphasis, bold, links, ``$``…), no markup.

The rule, fixed before the run: a feature is markup-sensitive when it moves on at least 10 % of the
texts with block markup. Those features, outside the always-fragile Markdown family, are the ones a
tell marks fragile when its text has block markup. The JSON records, per feature and group, the share
of texts that move under each edit (the gate is right when the other two groups stay under the
rule's 10 %), and the rule's verdict next to the library's list, so a stale list shows. A first run
gated on any markup (959 of 1,381 texts); texts with inline markup only then turned out to move on at
most 6 %, so the gate became block markup.

    OMP_NUM_THREADS=1 python benchmarks/fragile_cues.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --out results/fragile_cues.json --plot docs/figures/fragile_cues.png

``--flips`` instead asks whether a verdict that rests on fragile tells flips more often under an edit:
on the texts with block markup (``--per-genre`` 400, seed 1), the AUROC with which three scores rank the
verdicts each edit flips: the share of the decision's positive support (top provider against the
runner-up) on fragile features, the negative margin between the top two probabilities, and the
verdict with the markup columns set to 0 (a cheap stand-in for a paste; hits and false alarms).

    OMP_NUM_THREADS=1 python benchmarks/fragile_cues.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --flips --per-genre 400 --seed 1 --out results/fragile_flips.json

``--ends`` (session 50) measures the other per-text flag: a stock-phrase tell is also fragile when most
of its occurrences lie in the text's first and last paragraphs (``explain.ends_carry``), which cutting
them (``edits.drop_ends``) erases. Per genre, the share of the model's five tells marked fragile without and
with that check, the cues it adds, and the AUROC with which the share of a verdict's tell support it
marks ranks the verdicts the cut flips, beside the top-two margin's.

    OMP_NUM_THREADS=1 python benchmarks/fragile_cues.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --ends --per-genre 300 --seed 2 --out results/fragile_ends.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from whowrote.data import load_corpus
from whowrote.data.generate.store import atomic_write
from whowrote.style import load_model
from whowrote.style.decision import decision_support
from whowrote.style.edits import markdown_docx_file, markdown_html_roundtrip, star_bullets, strip_markdown
from whowrote.style.explain import MARKUP_SENSITIVE, is_fragile, markup_columns, markup_rows
from whowrote.types import WhowroteError

EDITS = {"strip_markdown": strip_markdown, "markdown_html": markdown_html_roundtrip, "star_bullets": star_bullets,
         "docx_file": markdown_docx_file}  # docx_file: session 51 (a Word round trip), the same rule
MOVE = 0.10  # a relative change that a reader would call a different value
RULE = 0.10  # share of texts with markup on which the feature moves


def moved(X0: np.ndarray, X1: np.ndarray) -> np.ndarray:
    """Per text and feature: the edit changed the value by more than ``MOVE`` (relative)."""
    a, b = np.where(np.abs(X0) < 1e-9, 0.0, X0), np.where(np.abs(X1) < 1e-9, 0.0, X1)
    return np.abs(b - a) > MOVE * np.maximum(np.abs(a), 1e-9)


def measure(model, texts: list[str]) -> dict:
    names = list(model.feature_names_)
    X0 = model.features(texts)
    block = markup_rows(model, X0)
    inline = markup_rows(model, X0, block=False) & ~block
    groups = {"with_block_markup": block, "inline_markup_only": inline, "without_markup": ~block & ~inline}
    move = {e: moved(X0, model.features([f(t) for t in texts])) for e, f in EDITS.items()}
    feats = {}
    for j, n in enumerate(names):
        feats[n] = {g: {e: round(float(m[rows, j].mean()), 4) if rows.any() else 0.0 for e, m in move.items()}
                    for g, rows in groups.items()}
        feats[n] |= {"rule_sensitive": max(feats[n]["with_block_markup"].values()) >= RULE,
                     "always_fragile": is_fragile(model, n), "in_library_list": n in MARKUP_SENSITIVE}
    return {"n_texts": len(texts), **{f"n_{g}": int(rows.sum()) for g, rows in groups.items()}, "features": feats}


def _auroc(y: np.ndarray, score: np.ndarray) -> float | None:
    from sklearn.metrics import roc_auc_score

    return round(float(roc_auc_score(y, score)), 3) if 0 < y.sum() < len(y) else None


def flip_ranking(model, texts: list[str]) -> dict:
    """How well each score ranks the verdicts that an edit flips, on the texts with block markup."""
    names = list(model.feature_names_)
    X = model.features(texts)
    gate = markup_rows(model, X)
    X, texts = X[gate], [t for t, g in zip(texts, gate, strict=True) if g]
    P = model.predict_proba(X)
    order = np.argsort(-P, axis=1)
    S = np.clip(decision_support(model, X, order[:, 0], order[:, 1]), 0, None)
    fragile = np.array([is_fragile(model, n, markup=True) for n in names])
    share = (S * fragile).sum(1) / np.maximum(S.sum(1), 1e-12)
    top2 = np.sort(P, axis=1)[:, -2:]
    blind = X.copy()
    blind[:, markup_columns(model, block=False)] = 0.0
    blind_flip = model.predict_proba(blind).argmax(1) != P.argmax(1)
    out = {"n_with_block_markup": len(texts)}
    for e, f in EDITS.items():
        flip = model.predict_proba([f(t) for t in texts]).argmax(1) != P.argmax(1)
        out[e] = {"flips": int(flip.sum()), "auroc_fragile_share": _auroc(flip, share),
                  "auroc_negative_margin": _auroc(flip, top2[:, 0] - top2[:, 1]),
                  "markup_zeroed_hits": int((blind_flip & flip).sum()),
                  "markup_zeroed_false_alarms": int((blind_flip & ~flip).sum())}
    return out


def ends_fragile(model, texts: list[str], genres: list[str], n_tells: int = 5) -> dict:
    """Cues carried by the first and last paragraphs (``explain.ends_carry``) as a fragile flag: per genre, the
    share of the model's tells marked fragile without and with it, the cues it adds, and how well the
    share of a verdict's tell support it marks ranks the verdicts the cut flips (AUROC), against the
    margin between the top two probabilities."""
    from collections import Counter

    from whowrote.style.edits import drop_ends
    from whowrote.style.explain import tells_of_rows

    X = model.features(texts)
    P = model.predict_proba(X)
    order = np.argsort(-P, axis=1)
    S = decision_support(model, X, order[:, 0], order[:, 1])
    before = tells_of_rows(model, X, S, order[:, 0], order[:, 1], n_tells)
    after = tells_of_rows(model, X, S, order[:, 0], order[:, 1], n_tells, texts)
    flip = model.predict_proba([drop_ends(t) for t in texts]).argmax(1) != P.argmax(1)
    col = {name: j for j, name in enumerate(model.feature_names_)}
    added = [[a for a, b in zip(after[i], before[i], strict=True) if a.fragile and not b.fragile] for i in range(len(texts))]
    by_cut = np.array([sum(S[i, col[a.feature]] for a in added[i]) / max(sum(S[i, col[a.feature]] for a in after[i]), 1e-12)
                       for i in range(len(texts))])
    top2 = np.sort(P, axis=1)[:, -2:]
    genres_a = np.asarray(genres, dtype=object)
    out: dict = {"n_texts": len(texts), "n_tells": n_tells, "flips": int(flip.sum()),
                 "auroc_cut_share": _auroc(flip, by_cut), "auroc_low_margin": _auroc(flip, top2[:, 0] - top2[:, 1]),
                 "added_cues": dict(Counter(a.cue for tells in added for a in tells).most_common(12)),
                 "per_genre": {}}
    for g in sorted(set(genres)):
        rows = np.nonzero(genres_a == g)[0]
        n = sum(len(after[i]) for i in rows)
        out["per_genre"][g] = {"texts": len(rows), "tells": n, "flips": int(flip[rows].sum()),
                               "fragile_without_cut": round(sum(t.fragile for i in rows for t in before[i]) / n, 4),
                               "fragile_with_cut": round(sum(t.fragile for i in rows for t in after[i]) / n, 4)}
    return out


def figure(out: dict, path: Path) -> None:
    """Per markup-sensitive feature, the share of texts with block markup that each edit moves; the rule's line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = sorted(out["markup_sensitive_by_rule"],
                   key=lambda n: -max(out["features"][n]["with_block_markup"].values()))
    x = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(10, 3.6))
    for i, e in enumerate(EDITS):
        width = 0.8 / len(EDITS)
        ax.bar(x + (i - (len(EDITS) - 1) / 2) * width, [out["features"][n]["with_block_markup"].get(e, 0.0) for n in names],
               width, label=e)
    ax.axhline(RULE, color="black", linestyle="--", linewidth=1, label=f"rule ({RULE:.0%} of texts)")
    ax.set_xticks(x, names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(f"texts moved > {MOVE:.0%}")
    ax.set_title(f"plain-text cues the Markdown edits move ({out['n_with_block_markup']} corpus texts with block markup)",
                 fontsize=10)
    ax.legend(fontsize=8, ncol=4)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", nargs="+", required=True)
    ap.add_argument("--per-genre", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--flips", action="store_true", help="rank the verdicts an edit flips (see the docstring)")
    ap.add_argument("--ends", action="store_true", help="the first and last paragraphs' cut as a fragile flag (see the docstring)")
    ap.add_argument("--model", default=None, help="a train-probe model folder (default: the bundled model)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--plot", type=Path, help="draw the markup-sensitive features' shares (not with --flips)")
    args = ap.parse_args()
    try:
        model = load_model(args.model)
        frame = load_corpus(args.corpus)
    except (OSError, ValueError, WhowroteError) as e:
        raise SystemExit(f"error: {e}") from None
    rng = np.random.default_rng(args.seed)
    texts: list[str] = []
    genres: list[str] = []
    for genre, sub in frame.groupby("genre"):
        idx = rng.choice(len(sub), min(args.per_genre, len(sub)), replace=False)
        texts += sub["text"].iloc[np.sort(idx)].tolist()
        genres += [str(genre)] * len(idx)
    if args.ends:
        got = ends_fragile(model, texts, genres)
        atomic_write(args.out, json.dumps(got, indent=1) + "\n")
        print(json.dumps(got, indent=1))
        return
    if args.flips:
        got = flip_ranking(model, texts)
        atomic_write(args.out, json.dumps(got, indent=1) + "\n")
        print(json.dumps(got, indent=1))
        return
    out = measure(model, texts)
    sens = sorted(n for n, f in out["features"].items() if f["rule_sensitive"] and not f["always_fragile"])
    out["markup_sensitive_by_rule"] = sens
    out["library_list_matches_rule"] = sens == sorted(MARKUP_SENSITIVE)
    atomic_write(args.out, json.dumps(out, indent=1) + "\n")
    if args.plot:
        figure(out, args.plot)
    print(f"{out['n_texts']} texts: {out['n_with_block_markup']} with block markup, {out['n_inline_markup_only']} with "
          f"inline markup only")
    for n in sens:
        f = out["features"][n]
        print(f"  {n:22s} block {max(f['with_block_markup'].values()):.2f}  inline only "
              f"{max(f['inline_markup_only'].values()):.2f}  none {max(f['without_markup'].values()):.2f}")
    print("library list matches the rule" if out["library_list_matches_rule"] else
          f"library list differs: library {sorted(MARKUP_SENSITIVE)}")


if __name__ == "__main__":
    main()
