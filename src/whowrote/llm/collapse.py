"""Detecting the two recurring collapse signatures from a sequence of eval summaries (spec §4.5).

``history`` is a list of summaries in step order (``summary.json`` blocks, or any dicts with
``accuracy``, ``truncation_rate`` and ``pred_share``/``pred_dist``; ``per_provider[L].recall``
and ``reason_words.median`` are used when present).

**Truncation collapse** (runaway reasoning: completions hit the token cap without closing
``</reason_why>``, accuracy falls toward 0):
- ``collapse`` when the latest truncation rate >= ``trunc_collapse`` (0.5) and accuracy is at or
  below ``acc_floor`` (0.15) or has lost >= ``acc_drop`` (50%) of the best accuracy seen;
- ``warning`` when truncation rose by >= ``trunc_rise`` (0.25, absolute) over the last
  ``window`` (4) summaries and stands at >= ``trunc_warn`` (0.2) - the late variant goes from a
  few percent to 84-92% within ~8 steps, so the rise is caught before the cap is reached;
- ``warning`` when the median reasoning length exceeds ``reason_words_max`` (1000 words).

**Class (marginal) collapse** (predictions concentrate on one or two classes; absorbing under
GRPO because all-wrong groups carry no gradient):
- ``collapse`` when one predicted class takes >= ``class_share`` (0.8) of the parsed predictions;
- ``collapse`` when some class's recall is <= ``zero_recall`` (0.02) for ``zero_recall_steps``
  (2) consecutive summaries, or two classes take >= ``pair_share`` (0.95) of predictions;
- ``warning`` when one class takes >= ``class_warn`` (0.6) of predictions;
- ``warning`` when a class is vanishing: its recall is <= ``vanish_recall`` (0.1) and at most
  ``vanish_frac`` (1/3) of its recall in the first summary, while another class's recall is at
  least its first one (session 7's lr-5e-6 GRPO: CLAUDE
  0.325 -> 0.10 in 21 steps while the other two classes kept theirs, so no collapse rule fired).
A rising reward can hide class collapse; these checks read the marginal and recalls only.

**Format collapse** (answers that finish but no longer parse: session 28's seed 10 with
``data.seed=1`` wrote ``<answer>CHATG</answer>`` for CHATGPT from step 9, 37.5 % of the in-loop
answers at step 10):
- ``collapse`` when the answers that finished and did not parse (``unparsed_finished_rate``; for
  older summaries without it, ``parse_fail_rate - truncation_rate``, a lower bound since a cut-off
  answer can still parse) reach ``format_collapse`` (0.3); ``warning`` at ``format_warn`` (0.1).
The class shares then cover the parsed answers only, so the class messages say how many did not parse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

NONE = "<none>"


@dataclass(frozen=True)
class Thresholds:
    trunc_collapse: float = 0.5
    trunc_warn: float = 0.2
    trunc_rise: float = 0.25
    window: int = 4
    acc_floor: float = 0.15
    acc_drop: float = 0.5
    reason_words_max: float = 1000
    class_share: float = 0.8
    class_warn: float = 0.6
    pair_share: float = 0.95
    zero_recall: float = 0.02
    zero_recall_steps: int = 2
    vanish_recall: float = 0.1
    vanish_frac: float = 1 / 3
    format_collapse: float = 0.3
    format_warn: float = 0.1


@dataclass(frozen=True)
class Finding:
    kind: str  # "truncation" | "class" | "format"
    severity: str  # "warning" | "collapse"
    index: int  # position in history of the summary that triggered it
    message: str
    value: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _marginal(summary: dict) -> dict[str, float]:
    """The predicted labels' counts (``pred_dist``), else their shares (``pred_share``), ``NONE`` included."""
    return {k: float(v) for k, v in (summary.get("pred_dist") or summary.get("pred_share") or {}).items()}


def pred_shares(summary: dict) -> dict[str, float]:
    """Share of each predicted class among *parsed* predictions (parse failures excluded)."""
    parsed = {k: v for k, v in _marginal(summary).items() if k != NONE}
    total = sum(parsed.values())
    return {k: v / total for k, v in parsed.items()} if total > 0 else {}


def _recalls(summary: dict) -> dict[str, float]:
    pp = summary.get("per_provider") or {}
    return {lab: float(e["recall"]) for lab, e in pp.items() if isinstance(e, dict) and e.get("recall") is not None}


def _truncation(history: Sequence[dict], t: Thresholds) -> list[Finding]:
    out: list[Finding] = []
    i = len(history) - 1
    last = history[-1]
    trunc = float(last.get("truncation_rate") or 0.0)
    acc = float(last.get("accuracy") or 0.0)
    best = max(float(h.get("accuracy") or 0.0) for h in history)
    if trunc >= t.trunc_collapse and (acc <= t.acc_floor or (best > 0 and acc <= (1 - t.acc_drop) * best)):
        out.append(Finding("truncation", "collapse", i,
                           f"truncation {trunc:.0%} with accuracy {acc:.3f} (best {best:.3f})", trunc))
        return out
    recent = [float(h.get("truncation_rate") or 0.0) for h in history[-t.window:]]
    if len(recent) >= 2 and trunc >= t.trunc_warn and trunc - min(recent) >= t.trunc_rise:
        out.append(Finding("truncation", "warning", i,
                           f"truncation rising: {min(recent):.0%} -> {trunc:.0%} in {len(recent)} evals", trunc))
    med = (last.get("reason_words") or {}).get("median") if isinstance(last.get("reason_words"), dict) else None
    if med is not None and med > t.reason_words_max:
        out.append(Finding("truncation", "warning", i, f"median reasoning {med:.0f} words", float(med)))
    return out


def parse_fail_share(summary: dict) -> float:
    """Share of predictions that did not parse (``parse_fail_rate``, else read off the marginal)."""
    if summary.get("parse_fail_rate") is not None:
        return float(summary["parse_fail_rate"])
    dist = _marginal(summary)
    total = sum(dist.values())
    return dist.get(NONE, 0.0) / total if total > 0 else 0.0


def _unreadable(summary: dict) -> float:
    """Share of answers that finished but did not parse."""
    if summary.get("unparsed_finished_rate") is not None:
        return float(summary["unparsed_finished_rate"])
    return max(0.0, parse_fail_share(summary) - float(summary.get("truncation_rate") or 0.0))


def _format(history: Sequence[dict], t: Thresholds) -> list[Finding]:
    bad = _unreadable(history[-1])
    if bad < t.format_warn:
        return []
    severity = "collapse" if bad >= t.format_collapse else "warning"
    return [Finding("format", severity, len(history) - 1, f"{bad:.0%} of answers finished but did not parse", bad)]


def _class(history: Sequence[dict], t: Thresholds) -> list[Finding]:
    out: list[Finding] = []
    i = len(history) - 1
    shares = pred_shares(history[-1])
    fail = parse_fail_share(history[-1])
    of = f"of parsed predictions ({fail:.0%} unparsed)" if fail >= t.format_warn else "of predictions"
    if shares:
        top = sorted(shares.items(), key=lambda kv: -kv[1])
        lab, share = top[0]
        if share >= t.class_share:
            out.append(Finding("class", "collapse", i, f"{lab} takes {share:.0%} {of}", share))
        elif len(top) >= 3 and top[0][1] + top[1][1] >= t.pair_share:
            two = top[0][1] + top[1][1]
            out.append(Finding("class", "collapse", i, f"{top[0][0]}+{top[1][0]} take {two:.0%} {of}", two))
        elif share >= t.class_warn:
            out.append(Finding("class", "warning", i, f"{lab} takes {share:.0%} {of}", share))
    if len(history) >= 2:
        first, now = _recalls(history[0]), _recalls(history[-1])
        # one class going while another holds or gains (all of them falling is truncation's signature)
        held = any(r >= first.get(lab, 1.0) for lab, r in now.items())
        for lab, r in now.items():
            r0 = first.get(lab)
            if held and r0 and r <= t.vanish_recall and r <= t.vanish_frac * r0 and r > t.zero_recall:
                out.append(Finding("class", "warning", i, f"{lab} recall {r0:.2f} -> {r:.2f} (vanishing)", r))
    steps = history[-t.zero_recall_steps:]
    if len(steps) == t.zero_recall_steps:
        recalls = [_recalls(h) for h in steps]
        for lab in recalls[-1]:
            if all(r.get(lab, 1.0) <= t.zero_recall for r in recalls):
                out.append(Finding("class", "collapse", i,
                                   f"{lab} recall ~0 for {t.zero_recall_steps} evals (absorbing)", recalls[-1][lab]))
    return out


def detect_collapse(history: Sequence[dict], thresholds: Thresholds | None = None) -> list[Finding]:
    """Findings for the latest summary in ``history`` (empty list = healthy)."""
    if not history:
        return []
    t = thresholds or Thresholds()
    return _truncation(history, t) + _format(history, t) + _class(history, t)
