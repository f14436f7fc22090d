"""Tells: the style cues that drove a verdict (see :mod:`whowrote.style.verdict`), in words.

A tell is one *cue* (a family of closely related features: bullets, sentence length, dashes…)
whose attribution in the whole model's decision (trees and logistic regression, see
:mod:`whowrote.style.decision`) pushes towards the predicted provider rather than the runner-up,
stated against the two providers' typical (mean) values in the training data. A tell is only
shown when its sentence is true of the text and of the norms it cites:

- "typical of X": the value sits nearer X's mean than Y's, and no farther from X's mean than the
  two means are from each other (in log units, as the model sees it);
- "more/less than both … typically": the value lies beyond both means, on X's side.

``fragile`` marks cues that an everyday edit erases or flips (Markdown structure disappears when
the text is pasted as plain text; typography changes with the editor); on a text with block markup
(headings, lists, tables) so are the plain-text features those edits measurably move
(``MARKUP_SENSITIVE``), and on any text so is a stock phrase whose occurrences sit mostly in its
first and last paragraphs (:func:`ends_carry`), which a user cuts with the opening "Sure! Here's ..."
and the closing "Let me know ..." (``edits.drop_ends``). Typography itself is never
evidence for the verdict (the model reads the canonical form of a text); where the training data
showed a typographic habit that agrees with the verdict, it is listed last, fragile, with
contribution 0.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

import numpy as np

from whowrote.style.features import FEATURES
from whowrote.style.textcheck import TextCheck, utf8_parts
from whowrote.typography import paragraph_ends

MIN_NORM_GAP = 0.1  # in log1p units: norms closer than ~10 % say nothing about who wrote it
UNIT_SHORT = {"fraction of characters": "of characters", "ratio": "", "words": "words", "characters": "characters"}

# Features that measure one habit share one cue (one tell per cue).
CUES: dict[str, str] = {
    **dict.fromkeys(("md_bullet", "bold_bullet", "bullet_char"), "bullets"),
    **dict.fromkeys(("md_h1", "md_h2_h3", "h4"), "headings"),
    **dict.fromkeys(("md_table", "table_row"), "tables"),
    **dict.fromkeys(("avg_sent_len_words", "sent_len_median", "sent_long_frac", "sent_short_frac"), "sentence length"),
    **dict.fromkeys(("para_len_mean", "para_per_1k_words", "para_short_frac", "blank_line", "newline"), "paragraphs"),
    **dict.fromkeys(("punc_emdash", "emdash_spaced", "double_hyphen"), "dashes"),
    **dict.fromkeys(("single_quote", "contraction_rate", "curly_squote", "curly_apostrophe_share"), "apostrophes"),
    **dict.fromkeys(("punc_dquote", "curly_dquote", "curly_dquote_share"), "double quotes"),
    **dict.fromkeys(("ellipsis_dots", "ellipsis_char"), "ellipses"),
    **dict.fromkeys(("first_person_I", "fw_me", "fw_my"), "first person"),
}
# Families an everyday edit erases: pasted as plain text, Markdown goes; a CMS re-types punctuation.
FRAGILE_FAMILIES = frozenset({"markdown"})
FRAGILE_FEATURES = frozenset({"bold_bullet", "h4", "hrule", "table_row", "link", "inline_code", "italic_asterisk",
                              "bullet_char", "colon_eol", "newline", "blank_line"})
# Not markup, but a Markdown edit moves them by > 10 % on >= 10 % of corpus texts with block markup (list
# numbers, bullet hyphens, headings ending paragraphs): fragile on such texts only. With inline markup
# only they move on <= 6 %, without markup on <= 1 % (benchmarks/fragile_cues.py, results/fragile_cues.json).
# (para_len_std left the list in session 45, when the HTML round trip stopped reading the line breaks
# between a renderer's tags as text, which had made every rendered list item a paragraph; it came back
# in session 51 with the Word round trip, which reads a loose list back tight.)
MARKUP_SENSITIVE = frozenset({"avg_sent_len_words", "digit_ratio", "hyphen", "para_len_mean", "para_len_std",
                              "para_per_1k_words", "para_short_frac", "period", "punc_paren", "sent_len_std",
                              "sent_long_frac", "sent_short_frac", "spaced_hyphen"})
# Markup outside the Markdown family (with that family: any markup in a text).
MARKUP_FEATURES = FRAGILE_FEATURES - {"colon_eol", "newline", "blank_line"}
# Block markup (any of these above 0): the gate for MARKUP_SENSITIVE.
BLOCK_MARKUP = frozenset({"md_h1", "md_h2_h3", "h4", "md_bullet", "md_numbered", "bullet_char", "bold_bullet",
                          "md_code", "md_blockquote", "hrule", "table_row"})
TYPOGRAPHY_FEATURES = frozenset({"curly_dquote", "curly_squote", "punc_emdash", "en_dash", "emdash_spaced",
                                 "ellipsis_char", "nbsp", "curly_apostrophe_share", "curly_dquote_share",
                                 "upper_ratio", "first_person_I", "nonascii_ratio"})
# What a feature counts once the text is in canonical form (quotes straight, dashes "--").
CANONICAL_LABELS = {
    "double_hyphen": "dashes (\u2014 or --)", "single_quote": "apostrophes and single quotes",
    "punc_dquote": "double quotes", "ellipsis_dots": "ellipses (\u2026 or ...)", "hyphen": "hyphens and en-dashes",
}


def typography_stats(text: str, parts: tuple[bytes, str] | None = None) -> dict[str, float]:
    """The typographic habits people notice, measured on the raw text (never used for the verdict).

    Straight quotes are counted in the UTF-8 bytes and curly ones among the (few) non-ASCII
    characters: seven ``str.count`` passes over a long non-ASCII text cost more than that.
    ``parts``: :func:`~whowrote.style.textcheck.utf8_parts` of ``text``, if already made."""
    raw, na = parts or utf8_parts(text)
    curly, dq_curly, dashes = na.count("\u2019") + na.count("\u2018"), na.count("\u201c") + na.count("\u201d"), \
        na.count("\u2014")
    straight, dq_straight = raw.count(b"'"), raw.count(b'"')
    return {
        "curly_apostrophe_share": curly / (curly + straight) if curly + straight else 0.0,
        "curly_dquote_share": dq_curly / (dq_curly + dq_straight) if dq_curly + dq_straight else 0.0,
        "punc_emdash": 1000.0 * dashes / max(len(text), 1),
    }


@dataclass
class Tell:
    feature: str
    label: str
    value: float
    unit: str
    norms: dict[str, float]
    favours: str
    contribution: float
    sentence: str
    cue: str = ""
    versus: str = ""
    fragile: bool = False

    def to_dict(self) -> dict[str, Any]:  # what dataclasses.asdict gives, without its deep copy
        return {"feature": self.feature, "label": self.label, "value": self.value, "unit": self.unit,
                "norms": dict(self.norms), "favours": self.favours, "contribution": self.contribution,
                "sentence": self.sentence, "cue": self.cue, "versus": self.versus, "fragile": self.fragile}


def fmt(v: float) -> str:
    """A number as a person would write it: 6.1, 0.03, 1,250."""
    a = abs(v)
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 1 or a == 0:
        return f"{v:.1f}"
    if a >= 0.01:
        return f"{v:.2f}"
    return f"{v:.3f}"


def _signed_log(t: float) -> float:
    """``sign(t) * log1p(|t|)``: values and norms as the model sees them."""
    return float(np.sign(t) * np.log1p(abs(t)))


# The norms are a model's few hundred constants: each one's log is computed once (by value: the
# same number always gives the same result, so this changes no comparison).
_norm_log = functools.lru_cache(maxsize=4096)(_signed_log)


def sentence(label: str, value: float, unit: str, fav: str, n_fav: float, vs: str, n_vs: float) -> str | None:
    """The tell in words, or None when no true sentence says that ``value`` points to ``fav``."""
    a, f, v = _signed_log(value), _norm_log(n_fav), _norm_log(n_vs)
    u = " " + unit if unit else ""
    if abs(f - v) < MIN_NORM_GAP:  # the two providers do not differ here: nothing true to say
        return None
    if abs(a - f) < abs(a - v) and abs(a - f) <= abs(f - v):
        return f"{label}: {fmt(value)}{u}, typical of {fav} ({fmt(n_fav)}) vs {vs} ({fmt(n_vs)})"
    if a > max(f, v) and f > v:
        return f"{label}: {fmt(value)}{u}, more than {fav} ({fmt(n_fav)}) or {vs} ({fmt(n_vs)}) typically, and {fav} uses more"
    if a < min(f, v) and f < v:
        return f"{label}: {fmt(value)}{u}, less than {fav} ({fmt(n_fav)}) or {vs} ({fmt(n_vs)}) typically, and {fav} uses fewer"
    return None


# A stock phrase ("let me", "in summary", "here's") is also fragile on a text when most of its
# occurrences sit in the text's first and last paragraphs, where an answer greets and offers more:
# the lines a user cuts when pasting it elsewhere (edits.drop_ends). Counted with the feature's own
# pattern, only where its evidence is "more" (a cut cannot erase an absence) and only on texts of
# three or more paragraphs. Hedges, intensifiers and register words were checked too at first, but
# their case-blind alternations cost batch chat answers ~5 % (issue 11's speed target); function
# words and punctuation are everywhere. The phrases alone cost nothing measurable.
ENDS_FAMILIES = frozenset({"phrases"})


def ends_carry(parts: tuple[str, str, str], name: str) -> bool:
    """More than half of the matches of feature ``name``'s pattern lie in the first and last of
    ``parts`` (``whowrote.typography.paragraph_ends`` of the *lower-cased* text); False for a feature outside
    ``ENDS_FAMILIES``."""
    rx = _ends_pattern(name)
    if rx is None:
        return False
    at_ends = len(rx.findall(parts[0])) + len(rx.findall(parts[2]))  # no feature pattern matches "" (tested)
    if at_ends == 0:
        return False
    # fewer matches in the middle than at the ends; a long middle is scanned only until it has as many
    return next(islice(rx.finditer(parts[1]), at_ends - 1, None), None) is None


def _carried_by_ends(splits: dict[int, tuple[str, str, str] | None], texts: Sequence[str], i: int, name: str) -> bool:
    """:func:`ends_carry` of row ``i``'s text, its lower-cased paragraphs split once into ``splits``."""
    if i not in splits:
        splits[i] = paragraph_ends(texts[i].lower())
    parts = splits[i]
    return parts is not None and ends_carry(parts, name)


@functools.lru_cache(maxsize=256)
def _ends_pattern(name: str) -> re.Pattern[str] | None:
    spec = FEATURES[name]
    if spec.family not in ENDS_FAMILIES or spec.pattern is None:
        return None
    # Every pattern of these families is "(?i)" with no capitals (tested), so it is matched without the
    # flag against lower-cased text: the same matches, and re's case-blind alternations cost 2.5x more.
    return re.compile(spec.pattern.removeprefix("(?i)"))


def tell_label(model, name: str) -> str:
    """The words a tell uses for feature ``name`` (the canonical reading has its own labels)."""
    return CANONICAL_LABELS.get(name, FEATURES[name].label) if model.canonical else FEATURES[name].label


def is_fragile(model, name: str, markup: bool = False) -> bool:
    """An everyday edit can erase or flip this feature's value (``markup``: the text carries block
    markup, see :func:`has_markup`, so the Markdown edits also move ``MARKUP_SENSITIVE`` features)."""
    spec = FEATURES[name]
    return (spec.family in FRAGILE_FAMILIES or name in FRAGILE_FEATURES
            or (markup and name in MARKUP_SENSITIVE)
            or (not model.canonical and name in TYPOGRAPHY_FEATURES))


def has_markup(model, x: np.ndarray, block: bool = True) -> bool:
    """Whether a feature row shows block markup (``BLOCK_MARKUP``; with ``block=False`` any markup)."""
    return bool(markup_rows(model, x[None, :], block)[0])


def markup_rows(model, X: np.ndarray, block: bool = True) -> np.ndarray:
    """:func:`has_markup` of every row of ``X``, in one pass."""
    return (X[:, markup_columns(model, block)] > 0).any(axis=1)


def markup_columns(model, block: bool = True) -> np.ndarray:
    """The model's feature columns that count block markup (or, with ``block=False``, any markup)."""
    return _markup_columns(tuple(model.feature_names_), block)


@functools.lru_cache(maxsize=16)
def _markup_columns(names: tuple[str, ...], block: bool) -> np.ndarray:
    return np.array([j for j, n in enumerate(names) if (n in BLOCK_MARKUP if block else
                     FEATURES[n].family in FRAGILE_FAMILIES or n in MARKUP_FEATURES)], dtype=np.int64)


def make_tells(model, x: np.ndarray, attributions: np.ndarray, target: int, versus: int, n: int) -> list[Tell]:
    """Up to ``n`` cues pushing the decision hardest towards class ``target`` rather than ``versus``,
    one tell per cue, each with a true sentence (see the module docstring)."""
    support = (attributions[target] - attributions[versus])[None, :]
    return tells_of_rows(model, x[None, :], support, [target], [versus], n)[0]


def tells_of_rows(model, X: np.ndarray, S: np.ndarray, targets, versus, n: int,
                  texts: Sequence[str] | None = None) -> list[list[Tell]]:
    """:func:`make_tells` of each row of ``X`` given ``S`` (per row and feature, how much the
    decision favours ``targets[i]`` over ``versus[i]``; see
    :func:`whowrote.style.decision.decision_support`); ``texts``: the rows' texts, whose first and
    last paragraphs mark the cues they carry fragile (:func:`ends_carry`). The cues of all rows totalled
    and ranked with a few numpy calls. A cue's total is its positive supports summed in feature
    order (one ``bincount``: the additions a left-to-right sum makes), and cues rank by total,
    ties in the order of their first positive feature (what a stable sort of the cues gives)."""
    names = model.feature_names_
    cue_id, cue_names, cue_feats = cue_table(tuple(names))
    m, k = len(S), len(cue_names)
    rows, js = np.nonzero(S > 0)  # row-major: features ascending within a row
    flat = rows * k + cue_id[js]
    totals = np.bincount(flat, weights=S[rows, js], minlength=m * k).reshape(m, k)
    present = np.bincount(flat, minlength=m * k).reshape(m, k) > 0
    first = np.full(m * k, len(names))
    np.minimum.at(first, flat, js)
    rank = np.lexsort((first.reshape(m, k), np.where(present, -totals, np.inf)), axis=-1)
    n_present = present.sum(axis=1).tolist()
    support = S.tolist()
    classes = [str(c) for c in model.classes_]
    rounded = _rounded_norms(model.norms_, tuple(classes))
    markup = markup_rows(model, X).tolist()
    splits: dict[int, tuple[str, str, str] | None] = {}  # row -> paragraph_ends of its text, split on first need
    out = []
    for i in range(m):
        target, vs_k, sup, tot = int(targets[i]), int(versus[i]), support[i], totals[i]
        fav, vs = classes[target], classes[vs_k]
        x = X[i]
        tells: list[Tell] = []
        for cue in rank[i, :n_present[i]].tolist():
            if len(tells) >= n:
                break
            js_c = [j for j in cue_feats[cue] if sup[j] > 0]
            for j in (js_c if len(js_c) == 1 else sorted(js_c, key=lambda j: -sup[j])):  # the strongest that reads true
                spec = FEATURES[names[j]]
                unit = UNIT_SHORT.get(spec.unit, spec.unit)
                said = sentence(tell_label(model, names[j]), x[j], unit, fav, model.norms_[target, j], vs,
                                model.norms_[vs_k, j])
                if said:
                    fragile = is_fragile(model, names[j], markup[i]) or bool(
                        texts is not None and spec.family in ENDS_FAMILIES
                        and model.norms_[target, j] > model.norms_[vs_k, j]  # "more" is the evidence
                        and _carried_by_ends(splits, texts, i, names[j]))
                    norms = dict(rounded[j])
                    tells.append(Tell(names[j], tell_label(model, names[j]), float(x[j]), spec.unit, norms, fav,
                                      round(float(tot[cue]), 4), said, cue_names[cue], vs, fragile))
                    break
        out.append(tells)
    return out


_ROUNDED: dict[int, tuple[np.ndarray, tuple, list]] = {}


def _rounded_norms(norms: np.ndarray, classes: tuple[str, ...]) -> list[dict[str, float]]:
    """Per feature, the classes' norms rounded for a tell (``round(norm, 4)``), made once per
    model's norms array (kept with it, so an id is never taken for another array's)."""
    hit = _ROUNDED.get(id(norms))
    if hit is None or hit[0] is not norms or hit[1] != classes:
        if len(_ROUNDED) > 8:
            _ROUNDED.clear()
        rows = [[round(v, 4) for v in col] for col in norms.T.tolist()]
        hit = _ROUNDED[id(norms)] = (norms, classes, [dict(zip(classes, r, strict=False)) for r in rows])
    return hit[2]


@functools.lru_cache(maxsize=8)
def cue_table(names: tuple[str, ...]) -> tuple[np.ndarray, tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """Each feature's cue index, the cues (in order of their first feature) and each cue's
    features (ascending), computed once per model's feature list: one tell per cue."""
    cues: dict[str, list[int]] = {}
    for j, name in enumerate(names):
        cues.setdefault(CUES.get(name, name), []).append(j)
    cue_id = np.empty(len(names), dtype=np.int64)
    for c, js in enumerate(cues.values()):
        cue_id[js] = c
    return cue_id, tuple(cues), tuple(tuple(js) for js in cues.values())


def typography_tells(model, text: str, target: int, versus: int, check: TextCheck | None = None) -> list[Tell]:
    """Typographic habits of the raw text that agree with the verdict (fragile; not evidence);
    ``check``: :func:`inspect_text` of ``text``, whose UTF-8 bytes are reused."""
    norms = (getattr(model, "training_", None) or {}).get("typography_norms") or {}
    classes = [str(c) for c in model.classes_]
    fav, vs = classes[target], classes[versus]
    stats = typography_stats(text, (check.raw, check.nonascii) if check is not None and check.raw else None)
    if any(stats.values()):
        rows = _typography_rows(norms, fav, vs, stats)
    else:  # most texts (no curly quote, no em-dash): the same tells for every one of them, made once
        key = (fav, vs)
        hit = _ZERO_TYPOGRAPHY.get(id(norms))
        if hit is None or hit[0] is not norms:
            if len(_ZERO_TYPOGRAPHY) > 8:
                _ZERO_TYPOGRAPHY.clear()
            hit = _ZERO_TYPOGRAPHY[id(norms)] = (norms, {})
        if key not in hit[1]:
            hit[1][key] = _typography_rows(norms, fav, vs, stats)
        rows = hit[1][key]
    return [Tell(name, label, value, unit, dict(cls_norms), fav, 0.0, said, "typography", vs, True)
            for name, label, value, unit, cls_norms, said in rows]


_ZERO_TYPOGRAPHY: dict[int, tuple[dict, dict[tuple[str, str], list[tuple]]]] = {}


def _typography_rows(norms: dict, fav: str, vs: str, stats: dict[str, float]) -> list[tuple]:
    """(feature, label, value, unit, norms, sentence) of each typography tell that favours ``fav``."""
    out = []
    for name, value in stats.items():
        cls_norms = norms.get(name) or {}
        if fav not in cls_norms or vs not in cls_norms or (value == 0 and name == "punc_emdash"):
            continue
        spec = FEATURES[name]
        said = sentence(spec.label, value, UNIT_SHORT.get(spec.unit, spec.unit), fav, cls_norms[fav], vs, cls_norms[vs])
        if said:
            out.append((name, spec.label, float(value), spec.unit, {k: round(float(v), 4) for k, v in cls_norms.items()},
                        said + " (typography: an editor can change it; not used for the verdict)"))
    return out
