"""Cold-start rationales built without the LM: the style model's measured tells, or the fixed sentence.

``star.mode = "tells"``: each training text's ``<reason_why>`` is written from the bundled style
model's *tells* (:mod:`whowrote.style.explain`) that support the **gold** label: the cues whose
attribution pushes the model's decision towards gold rather than the strongest rival provider
(the one the style model ranks highest after gold, even when it ranks that one above gold), each
stated as the true, measured sentence the explainer writes, e.g. "Dashes (— or --): 6.1 per 1k
characters, typical of CLAUDE (1.9) vs CHATGPT (0.1)." When gold has fewer than ``tells_max`` tells
against that rival, tells against the other providers fill up (each sentence names its own
comparison). Typography tells (curly quotes, raw em-dashes: an editor changes them, and the model
never votes on them) are used only when too few other tells exist. A text with fewer than
``tells_min`` supporting tells is dropped and counted (``too_few_tells``).

The rationales name providers on purpose: a tell *is* a comparison of a measured value with two
providers' norms. ``reject_label_in_reason`` exists to drop sampled rationales that restate the
answer instead of giving evidence; a tells rationale cannot do that (every sentence is a
measurement), so the label check does not apply here. The scaffold check (note, hint, gold, ...)
still does, and no tells sentence trips it (tested).

With ``star.verdict_first`` the rationale opens with the verdict ("The writing reads as CLAUDE's.")
and the tells follow as its evidence. A small LM cannot measure a text's em-dash rate; trained on
tells-first rationales it makes up a measurement and then names the provider that measurement
favours, so its answer is only as good as the made-up number. Verdict first, the decision comes at
the first tokens, where an answer-only SFT makes it (0.999 at 0.5B after two epochs, against 0.45 for
tells-first; docs/results.md, "Session 20").

``star.mode = "fallback"``: every text gets the D1 fallback sentence (the 135M ladder's de-facto
cold start, when STaR kept nothing), for a head-to-head with STaR and tells.

Both write the same kept rows as STaR (``text``, ``provider``, ``rationale``, ``star_mode`` ...,
capped per class), so the ``sft`` and ``grpo`` cold-start stages read them unchanged.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from whowrote.train.config import StarRecipe
from whowrote.train.data import Row, write_rows
from whowrote.types import WhowroteError

# Three wordings per comparison, used in turn, so that four tells do not read as one template
# four times (STaR's diversity filter, min_unique_frac, applies to these rationales too).
WORDINGS = {
    "more": ("{head}, above even {fav}'s typical {nf} and farther still from {vs}'s {nv}.",
             "{head}, higher than is usual even for {fav} ({nf}), let alone {vs} ({nv}).",
             "{head}, beyond {fav}'s usual {nf} and well beyond {vs}'s {nv}."),
    "less": ("{head}, below even {fav}'s typical {nf} and farther still from {vs}'s {nv}.",
             "{head}, lower than is usual even for {fav} ({nf}), let alone {vs} ({nv}).",
             "{head}, under {fav}'s usual {nf} and well under {vs}'s {nv}."),
    "typical": ("{head}, typical of {fav} ({nf}) vs {vs} ({nv}).",
                "{head}, close to {fav}'s usual {nf}, not {vs}'s {nv}.",
                "{head}, in line with {fav} ({nf}) rather than {vs} ({nv})."),
}


def comparison(tell: Any) -> str:
    """Which true comparison the explainer's sentence (:func:`whowrote.style.explain.sentence`) made."""
    if ", more than " in tell.sentence:  # beyond both norms, on the favoured side
        return "more"
    if ", less than " in tell.sentence:
        return "less"
    return "typical"


def phrase(tell: Any, turn: int = 0) -> str:
    """The tell as one rationale sentence: the explainer's comparison, from the same numbers."""
    from whowrote.style.explain import UNIT_SHORT, fmt

    unit = UNIT_SHORT.get(tell.unit, tell.unit)
    head = f"{tell.label[:1].upper()}{tell.label[1:]}: {fmt(tell.value)}{' ' + unit if unit else ''}"
    options = WORDINGS[comparison(tell)]
    return options[turn % len(options)].format(head=head, fav=tell.favours, vs=tell.versus,
                                               nf=fmt(tell.norms[tell.favours]), nv=fmt(tell.norms[tell.versus]))


def gold_tells(model: Any, text: str, x: np.ndarray, attributions: np.ndarray, probs: np.ndarray, gold: str,
               labels: Sequence[str], n: int) -> list[Any]:
    """Up to ``n`` tells (one per cue) supporting ``gold``: against the strongest rival first, then
    the others; typography tells last (they only fill up)."""
    from whowrote.style.explain import make_tells, typography_tells

    classes = [str(c) for c in model.classes_]
    target = classes.index(gold)
    rivals = sorted((classes.index(lab) for lab in labels if lab != gold and lab in classes), key=lambda k: -probs[k])
    tells: list[Any] = []
    for versus in rivals:
        used = {t.cue for t in tells}
        tells += [t for t in make_tells(model, x, attributions, target, versus, n) if t.cue not in used]
    tells = tells[:n]
    if len(tells) < n and model.canonical:
        for versus in rivals:
            used = {t.feature for t in tells}
            tells += [t for t in typography_tells(model, text, target, versus) if t.feature not in used]
    return [_exact_norms(model, t) for t in tells[:n]]


def _exact_norms(model: Any, tell: Any) -> Any:
    """The tell with its norms unrounded (a Tell keeps 4 decimals), so the sentence quotes exactly
    the numbers the explainer compared."""
    if tell.cue == "typography":
        norms = (getattr(model, "training_", None) or {}).get("typography_norms", {}).get(tell.feature, tell.norms)
        return dataclasses.replace(tell, norms={c: float(v) for c, v in norms.items()})
    j = model.feature_names_.index(tell.feature)
    return dataclasses.replace(tell, norms={str(c): float(model.norms_[k, j]) for k, c in enumerate(model.classes_)})


VERDICT_LEAD = "The writing reads as {gold}'s."


def tells_rationale(tells: Sequence[Any], lead: str = "") -> str:
    """One sentence per tell, in order, after ``lead`` (the verdict sentence) when given."""
    return " ".join([*([lead] if lead else []), *(phrase(t, i) for i, t in enumerate(tells))])


def tells_rows(rows: Sequence[Row], cfg: StarRecipe, *, labels: Sequence[str], text_field: str = "text",
               label_field: str = "provider", model: Any = None) -> tuple[list[Row], dict[str, Any]]:
    """(accepted rows with their tells rationale, stats) for ``rows`` (uncapped, input order)."""
    from whowrote.style import load_model
    from whowrote.style.decision import decision_attributions
    from whowrote.style.textcheck import inspect_text
    from whowrote.train.star import clean_rationale, leaks

    model = model if model is not None else load_model(cfg.style_model or None)
    missing = sorted({str(r[label_field]) for r in rows} - {str(c) for c in model.classes_})
    if missing:
        raise WhowroteError(f"the style model has no class for {missing}: it cannot write tells for them")
    texts = [str(r[text_field]) for r in rows]
    checks = [inspect_text(t) for t in texts]
    # Measured on the row's own text (what the SFT prompt shows), not on a cleaned copy.
    X = model.features(texts) if rows else np.zeros((0, len(model.feature_names_)))
    P = model.predict_proba(X) if rows else X
    D = decision_attributions(model, X) if rows else X
    no_label_check = dataclasses.replace(cfg, reject_label_in_reason=False)  # see the module docstring
    accepted: list[Row] = []
    rejected: Counter[str] = Counter()
    n_tells: Counter[int] = Counter()
    agrees = 0
    for i, (row, chk) in enumerate(zip(rows, checks, strict=True)):
        gold = str(row[label_field])
        tells = [] if chk.skip else gold_tells(model, texts[i], X[i], D[i], P[i], gold, labels, cfg.tells_max)
        n_tells[len(tells)] += 1
        if len(tells) < cfg.tells_min:
            rejected["too_few_tells"] += 1
            continue
        lead = VERDICT_LEAD.format(gold=gold) if cfg.verdict_first else ""
        rationale = tells_rationale(tells, lead)
        # STaR's length and diversity limits hold for this mode too: drop tells from the end until it fits.
        while len(tells) > cfg.tells_min and clean_rationale(f"<reason_why>{rationale}</reason_why>", cfg) is None:
            tells = tells[:-1]
            rationale = tells_rationale(tells, lead)
        if clean_rationale(f"<reason_why>{rationale}</reason_why>", cfg) is None:
            rejected["no_clean_rationale"] += 1
            continue
        if leaks(rationale, no_label_check, labels):
            rejected["leak"] += 1
            continue
        predicted = str(model.classes_[int(np.argmax(P[i]))])
        agrees += predicted == gold
        accepted.append({**row, "rationale": rationale, "star_mode": "tells",
                         "tells": [t.feature for t in tells], "style_pred": predicted})
    stats = {"tried": len(rows), "accepted": len(accepted), "rejected": dict(sorted(rejected.items())),
             "too_few_tells": rejected["too_few_tells"], "tells_per_text": dict(sorted(n_tells.items())),
             "style_model_agrees_with_gold": agrees}
    return accepted, stats


def fallback_rows(rows: Sequence[Row], *, label_field: str = "provider") -> list[Row]:
    """Every row with the D1 fallback sentence as its rationale."""
    from whowrote.train.star import FALLBACK_RATIONALE

    return [{**r, "rationale": FALLBACK_RATIONALE.format(gold=r[label_field]), "star_mode": "fallback"} for r in rows]


def rationale_stats(kept: Sequence[Row], labels: Sequence[str], label_field: str = "provider") -> dict[str, Any]:
    """Rows written per provider and their rationales' mean length in words."""
    per = Counter(str(r[label_field]) for r in kept)
    words = [len(str(r["rationale"]).split()) for r in kept]
    return {"rows_per_provider": {lab: per.get(lab, 0) for lab in labels},
            "mean_words": round(sum(words) / len(words), 2) if words else 0.0}


def build_lm_free(rows: Sequence[Row], cfg: StarRecipe, *, labels: Sequence[str], out_path: str | Path,
                  text_field: str = "text", label_field: str = "provider",
                  model: Any = None) -> tuple[list[Row], dict[str, Any]]:
    """Mode "tells" or "fallback": build, cap per class, write the kept rows (JSONL) and
    ``<out>.stats.json`` with the same keys as STaR's where they apply."""
    from whowrote.train.star import StarStats, cap_per_class

    if cfg.mode == "tells":
        accepted, round_stats = tells_rows(rows, cfg, labels=labels, text_field=text_field,
                                           label_field=label_field, model=model)
    elif cfg.mode == "fallback":
        accepted = fallback_rows(rows, label_field=label_field)
        round_stats = {"tried": len(rows), "accepted": len(accepted), "rejected": {}}
    else:
        raise WhowroteError(f"star.mode {cfg.mode!r} samples from the LM; build_lm_free makes 'tells' or 'fallback'")
    stats = StarStats(n_items=len(rows), rejected=dict(round_stats["rejected"]))
    kept = cap_per_class(accepted, cfg, labels, label_field, stats)
    out = Path(out_path)
    write_rows(out, kept)
    report = {**stats.__dict__, "round1": {"mode": cfg.mode, **round_stats}, "mode": cfg.mode,
              "too_few_tells": round_stats.get("too_few_tells", 0), **rationale_stats(kept, labels, label_field),
              "kept_modes": dict(Counter(r["star_mode"] for r in kept)),
              "verdict_first": cfg.mode == "tells" and cfg.verdict_first}
    stats_path = out.with_suffix(".stats.json")  # written last, atomically: its presence means "done"
    tmp = stats_path.with_name(stats_path.name + ".tmp")
    tmp.write_text(json.dumps(report, indent=2))
    os.replace(tmp, stats_path)
    return kept, report
