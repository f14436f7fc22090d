"""How the style model does on labelled texts of your own (``whowrote score``): the verdicts a user
would get (:meth:`StyleModel.attribute`, calibrated, with the abstain rule) against the labels.

The model's own numbers come from the corpus and a few outside sets; whether they hold for *your*
texts (a new genre, a new assistant version, an export of your chats) is what this answers, with the
same scores as the held-out checks (:func:`whowrote.style.heldout.evaluate_proba`) plus what the
abstain rule keeps, a confusion matrix, and the accuracy per genre and per model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from whowrote.style.calibration import reliability
from whowrote.style.heldout import evaluate_proba, most_probable_provider
from whowrote.types import LABELS, PROVIDERS

MIN_GROUP = 5  # per-genre / per-model rows with fewer texts are left out of the tables


def score_attributions(found: Sequence, y: Sequence[str], genres: Sequence[str], models: Sequence[str]) -> dict[str, Any]:
    """Scores of ``found`` (:class:`~whowrote.style.verdict.Attribution` s, as ``attribute`` gave
    them, "cannot tell" results included as the uncertain OTHER they are) against the labels ``y``."""
    y = np.asarray(y, dtype=object)
    P = _probabilities(found)
    pred = np.array([a.provider for a in found], dtype=object)
    unsure = np.array([a.uncertain for a in found], dtype=bool)
    right = pred == y
    three = np.isin(y, PROVIDERS)
    pick3 = most_probable_provider(LABELS, P)
    out: dict[str, Any] = {"n": int(len(y)), "accuracy": float(right.mean()),
                           "accuracy_3way": float((pick3[three] == y[three]).mean()) if three.any() else None,
                           "uncertain": float(unsure.mean()),
                           "accuracy_not_uncertain": float(right[~unsure].mean()) if (~unsure).any() else None,
                           "recall": {c: float(right[y == c].mean()) for c in LABELS if (y == c).any()},
                           "confusion": {c: {p: int(((y == c) & (pred == p)).sum()) for p in LABELS}
                                         for c in LABELS if (y == c).any()}}
    calib = evaluate_proba(np.asarray(LABELS, dtype=object), P, y, np.asarray(genres, dtype=object))
    out.update({k: calib[k] for k in ("ece", "brier", "macro_f1", "other_auroc") if k in calib})
    known = np.isin(y, LABELS)
    out["reliability"] = reliability(P[known], np.array([LABELS.index(v) for v in y[known]]), 10)
    top = P.max(axis=1)
    out["coverage_curve"] = [{"threshold": float(t), "coverage": float((top >= t).mean()),
                              "accuracy": float(right[top >= t].mean()) if (top >= t).any() else None}
                             for t in np.round(np.arange(0.25, 0.951, 0.05), 2)]
    for key, groups in (("per_genre", genres), ("per_model", models)):
        groups = np.asarray(groups, dtype=object)
        out[key] = {str(g): {"n": int(m.sum()), "accuracy": float(right[m].mean()),
                             "accuracy_3way": float((pick3[m & three] == y[m & three]).mean()) if (m & three).any() else None,
                             "uncertain": float(unsure[m].mean())}
                    for g in sorted(set(groups.tolist())) if (m := groups == g).sum() >= MIN_GROUP}
    return out


def _probabilities(found: Sequence) -> np.ndarray:
    """The attributions' probabilities, one row each, columns in ``LABELS`` order."""
    return np.array([[a.probabilities[c] for c in LABELS] for a in found], dtype=np.float64)


def edit_names(spec: str) -> list[str]:
    """``--edits``: comma-separated names of the robustness suite's edits, or ``all``; a one-line
    error for a name it does not have."""
    from whowrote.style.edits import edits
    from whowrote.types import WhowroteError

    known = [n for n in edits() if n != "raw"]
    names = known if spec.strip() == "all" else [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise WhowroteError(f"unknown edit(s) {', '.join(unknown) or repr(spec)} (choose from {', '.join(known)}, or all)")
    return names


def edit_rows(attribute: Callable[[list[str], str], list], texts: Sequence[str], y: Sequence[str], found: Sequence,
              names: Sequence[str], seed: int = 0) -> dict[str, dict[str, Any]]:
    """Per everyday edit (:func:`whowrote.style.edits.edits`; ``names`` from :func:`edit_names`), the
    texts' accuracy once edited and the share of verdicts the edit changes (a label, or sure to
    uncertain and back); ``attribute(texts, name)`` gives the edited texts' verdicts as ``found``
    was given (the CLI's shows progress)."""
    from whowrote.style.edits import edits

    suite = edits(seed)
    y = np.asarray(y, dtype=object)
    three = np.isin(y, PROVIDERS)
    before = [(a.provider, a.uncertain) for a in found]
    out = {}
    for name in names:
        after = attribute([suite[name](t) for t in texts], name)
        out[name] = {"accuracy": float(np.mean([a.provider == v for a, v in zip(after, y, strict=True)])),
                     "accuracy_3way": float((most_probable_provider(LABELS, _probabilities(after))[three] == y[three]).mean())
                     if three.any() else None,
                     "changed": float(np.mean([(a.provider, a.uncertain) != b for a, b in zip(after, before, strict=True)]))}
    return out



def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def render_scorecard(card: dict[str, Any], console) -> None:
    """The scorecard as rich tables on ``console``."""
    from rich.table import Table
    from rich.text import Text

    head = (f"[bold]{card['n']:,} labelled texts[/bold]"
            + (f" (read as by one of {', '.join(card['among'])})" if card.get("among") else "") + f": accuracy {_fmt(card['accuracy'])}"
            + (f", 3-way {_fmt(card['accuracy_3way'])}" if card.get("accuracy_3way") is not None else "")
            + (f", ECE {card['ece']:.3f}" if "ece" in card else "")
            + (f", OTHER AUROC {card['other_auroc']:.3f}" if "other_auroc" in card else ""))
    console.print(head)
    console.print(f"uncertain {card['uncertain']:.1%}; accuracy of the rest {_fmt(card['accuracy_not_uncertain'])}",
                  highlight=False)
    conf = Table(title="Confusion (rows: label, columns: verdict, uncertain ones included)", title_justify="left",
                 show_edge=False)
    conf.add_column("label")
    for c in LABELS:
        conf.add_column(c, justify="right")
    conf.add_column("recall", justify="right")
    for c, row in card["confusion"].items():
        conf.add_row(c, *[str(row[p]) for p in LABELS], _fmt(card["recall"][c]))
    console.print(conf)
    if card.get("edits"):
        table = Table(title="Everyday edits (accuracy once edited; verdicts the edit changes)", title_justify="left",
                      show_edge=False)
        three = card.get("accuracy_3way") is not None
        for col in ("edit", "accuracy", "change", *(("3-way", "change") if three else ()), "verdicts changed"):
            table.add_column(col, justify="left" if col == "edit" else "right")
        for name, e in card["edits"].items():
            row = [name, _fmt(e["accuracy"]), f"{100 * (e['accuracy'] - card['accuracy']):+.1f}"]
            if three:
                row += [_fmt(e["accuracy_3way"]), f"{100 * (e['accuracy_3way'] - card['accuracy_3way']):+.1f}"]
            table.add_row(*row, f"{e['changed']:.1%}")
        console.print(table)
    for key, name in (("per_genre", "genre"), ("per_model", "model")):
        if not card[key] or (key == "per_genre" and len(card[key]) < 2):
            continue
        table = Table(title=f"Per {name} (at least {MIN_GROUP} texts)", title_justify="left", show_edge=False)
        for col in (name, "n", "accuracy", "3-way", "uncertain"):
            table.add_column(col, justify="left" if col == name else "right")
        for g, s in card[key].items():  # Text: names come from the data, not rich markup
            table.add_row(Text(g), str(s["n"]), _fmt(s["accuracy"]), _fmt(s["accuracy_3way"]), f"{s['uncertain']:.0%}")
        console.print(table)


def scorecard_figure(card: dict[str, Any], path) -> None:
    """Reliability (verdicts' confidence against their accuracy) and accuracy against coverage when
    only verdicts above a confidence threshold are kept, on the scored texts."""
    try:
        import matplotlib
    except ImportError:
        from whowrote.formats import install_hint
        from whowrote.types import WhowroteError

        raise WhowroteError(f"--figure needs matplotlib: {install_hint('study')}") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    bins = card["reliability"]
    ax.plot([0, 1], [0, 1], ":", color="grey")
    ax.plot([b["confidence"] for b in bins], [b["accuracy"] for b in bins], "o-")
    for b in bins:
        ax.annotate(str(b["count"]), (b["confidence"], b["accuracy"]), fontsize=7, xytext=(3, -9),
                    textcoords="offset points")
    ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel="confidence of the verdict", ylabel="accuracy",
           title=f"reliability (ECE {card.get('ece', float('nan')):.3f}; texts per bin)")
    curve = [c for c in card["coverage_curve"] if c["accuracy"] is not None]
    ax2.plot([c["coverage"] for c in curve], [c["accuracy"] for c in curve], "o-")
    for c in curve[::2]:
        ax2.annotate(f"{c['threshold']:.2f}", (c["coverage"], c["accuracy"]), fontsize=7, xytext=(3, 3),
                     textcoords="offset points")
    ax2.set(xlim=(0, 1.02), ylim=(0, 1.02), xlabel="share of texts kept (confidence >= threshold)",
            ylabel="accuracy of the kept texts", title="accuracy against coverage (thresholds marked)")
    fig.suptitle(f"{card['n']:,} labelled texts, model {card.get('model', '')}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
