"""How the style model does on labelled texts of your own (``whowrote score``): the verdicts a user
would get (:meth:`StyleModel.attribute`, calibrated, with the abstain rule) against the labels.

The model's own numbers come from the corpus and a few outside sets; whether they hold for *your*
texts (a new genre, a new assistant version, an export of your chats) is what this answers, with the
same scores as the held-out checks (:func:`whowrote.style.heldout.evaluate_proba`) plus what the
abstain rule keeps, a confusion matrix, and the accuracy per genre and per model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from whowrote.style.heldout import evaluate_proba
from whowrote.types import LABELS, PROVIDERS

MIN_GROUP = 5  # per-genre / per-model rows with fewer texts are left out of the tables


def score_attributions(found: Sequence, y: Sequence[str], genres: Sequence[str], models: Sequence[str]) -> dict[str, Any]:
    """Scores of ``found`` (:class:`~whowrote.style.verdict.Attribution` s, as ``attribute`` gave
    them, "cannot tell" results included as the uncertain OTHER they are) against the labels ``y``."""
    y = np.asarray(y, dtype=object)
    P = np.array([[a.probabilities[c] for c in LABELS] for a in found], dtype=np.float64)
    pred = np.array([a.provider for a in found], dtype=object)
    unsure = np.array([a.uncertain for a in found], dtype=bool)
    right = pred == y
    three = np.isin(y, PROVIDERS)
    cols = [LABELS.index(c) for c in PROVIDERS]
    pick3 = np.asarray(PROVIDERS, dtype=object)[P[:, cols].argmax(axis=1)]
    out: dict[str, Any] = {"n": int(len(y)), "accuracy": float(right.mean()),
                           "accuracy_3way": float((pick3[three] == y[three]).mean()) if three.any() else None,
                           "uncertain": float(unsure.mean()),
                           "accuracy_not_uncertain": float(right[~unsure].mean()) if (~unsure).any() else None,
                           "recall": {c: float(right[y == c].mean()) for c in LABELS if (y == c).any()},
                           "confusion": {c: {p: int(((y == c) & (pred == p)).sum()) for p in LABELS}
                                         for c in LABELS if (y == c).any()}}
    calib = evaluate_proba(np.asarray(LABELS, dtype=object), P, y, np.asarray(genres, dtype=object))
    out.update({k: calib[k] for k in ("ece", "brier", "macro_f1", "other_auroc") if k in calib})
    for key, groups in (("per_genre", genres), ("per_model", models)):
        groups = np.asarray(groups, dtype=object)
        out[key] = {str(g): {"n": int(m.sum()), "accuracy": float(right[m].mean()),
                             "accuracy_3way": float((pick3[m & three] == y[m & three]).mean()) if (m & three).any() else None,
                             "uncertain": float(unsure[m].mean())}
                    for g in sorted(set(groups.tolist())) if (m := groups == g).sum() >= MIN_GROUP}
    return out


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def render_scorecard(card: dict[str, Any], console, among: Sequence[str] | None = None) -> None:
    """The scorecard as rich tables on ``console``."""
    from rich.table import Table
    from rich.text import Text

    head = (f"[bold]{card['n']:,} labelled texts[/bold]"
            + (f" (read as by one of {', '.join(among)})" if among else "") + f": accuracy {_pct(card['accuracy'])}"
            + (f", 3-way {_pct(card['accuracy_3way'])}" if card.get("accuracy_3way") is not None else "")
            + (f", ECE {card['ece']:.3f}" if "ece" in card else "")
            + (f", OTHER AUROC {card['other_auroc']:.3f}" if "other_auroc" in card else ""))
    console.print(head)
    console.print(f"uncertain {card['uncertain']:.1%}; accuracy of the rest {_pct(card['accuracy_not_uncertain'])}",
                  highlight=False)
    conf = Table(title="Confusion (rows: label, columns: verdict, uncertain ones included)", title_justify="left",
                 show_edge=False)
    conf.add_column("label")
    for c in LABELS:
        conf.add_column(c, justify="right")
    conf.add_column("recall", justify="right")
    for c, row in card["confusion"].items():
        conf.add_row(c, *[str(row[p]) for p in LABELS], _pct(card["recall"][c]))
    console.print(conf)
    for key, name in (("per_genre", "genre"), ("per_model", "model")):
        if not card[key] or (key == "per_genre" and len(card[key]) < 2):
            continue
        table = Table(title=f"Per {name} (at least {MIN_GROUP} texts)", title_justify="left", show_edge=False)
        for col in (name, "n", "accuracy", "3-way", "uncertain"):
            table.add_column(col, justify="left" if col == name else "right")
        for g, s in card[key].items():  # Text: names come from the data, not rich markup
            table.add_row(Text(g), str(s["n"]), _pct(s["accuracy"]), _pct(s["accuracy_3way"]), f"{s['uncertain']:.0%}")
        console.print(table)
