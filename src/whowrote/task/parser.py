"""Reading a model's answer out of its completion (research spec §2.3).

The strict rules (:func:`parse_answer`) are the ones the reward, the ``parsed_ok``/``pred_*``
diagnostics, traces and pass@k all share, so that eval numbers and training rewards agree:

1. the body is the content of the first ``<answer>...</answer>`` (case-insensitive, across
   newlines), upper-cased; without a closed answer tag it is the **last 400 characters**;
2. collect every word-bounded label in the body (a set);
3. exactly one distinct label -> that label; zero or several -> ``None`` (a parse failure).

So naming two providers in the answer is a miss even if one is right, repeating one label is
fine, and ``<reason_why>`` is never read unless it falls in the fallback window of a truncated
completion. Only ASCII letters are upper-cased and labels must be word-bounded in the Unicode sense:
a Cyrillic "С" in "СLAUDE" (or a dotless "ı" in "GEMıNI") is not a label. :func:`parse_pred` is the lenient variant of the reference probe scripts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from whowrote.types import PROVIDERS

TAIL_CHARS = 400  # fallback window for single-label answers
TRIO_TAIL_CHARS = 500  # trio answers are longer (three slot lines)
_TAG_RES = {tag: (re.compile(f"<{tag}>", re.IGNORECASE), re.compile(f"</{tag}>", re.IGNORECASE))
            for tag in ("answer", "reason_why")}


def first_block(text: str, tag: str) -> str | None:
    """Content of the first closed ``<tag>...</tag>`` (case-insensitive, across newlines), or None.

    Same result as searching ``<tag>(.*?)</tag>`` with DOTALL, in linear time: that pattern
    retries from every opening tag, which is quadratic on a completion that repeats ``<answer>``
    without closing it (64 KB took 22 s). If the first opening tag has no closing tag after it,
    no later one has either.
    """
    open_re, close_re = _TAG_RES[tag]
    m = open_re.search(text)
    if not m:
        return None
    end = close_re.search(text, m.end())
    return text[m.end():end.start()] if end else None
_THINK_RE = re.compile(r"<think>(.*?)(</think>|$)", re.IGNORECASE | re.DOTALL)
_WORD_RE = re.compile(r"[A-Za-z]+")
_SLOTS = ("A", "B", "C")


def _label_alternatives(labels: Sequence[str]) -> str:
    # Longest first, so that a label which is a prefix of another never wins by accident.
    return "|".join(re.escape(lab.upper()) for lab in sorted(labels, key=len, reverse=True))


def _label_regex(labels: Sequence[str]) -> re.Pattern[str]:
    # Unicode-aware boundaries (like \b): a label glued to letters of any script is not a word.
    return re.compile(rf"(?<!\w)(?:{_label_alternatives(labels)})(?!\w)")


# Markdown emphasis, code marks and quotes a model may wrap around a slot or its label
# ("**A:** CLAUDE", "A: **CLAUDE**", "A: `CLAUDE`"); they are not letters, so they never glue.
_WRAP = r"[\s*`\"'\u201c\u201d\u2018\u2019]*"


_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def ascii_upper(text: str) -> str:
    """Upper-case ASCII letters only.

    ``str.upper`` maps some non-ASCII look-alikes onto ASCII (dotless "ı" -> "I", so "GEMıNI"
    would become GEMINI); a look-alike must never count as a label.
    """
    return text.translate(_ASCII_UPPER)


def answer_body(completion: str, tail: int = TAIL_CHARS) -> str:
    """Upper-cased ``<answer>`` content, else the upper-cased last ``tail`` characters."""
    body = first_block(completion or "", "answer")
    return ascii_upper(body if body is not None else (completion or "")[-tail:])


def labels_in(body: str, labels: Sequence[str] = PROVIDERS) -> set[str]:
    """The distinct word-bounded labels named in ``body`` (already upper-cased)."""
    return set(_label_regex(labels).findall(body))


def parse_answer(completion: str, labels: Sequence[str] = PROVIDERS) -> str | None:
    """The single provider the completion answers, or ``None`` when it does not parse."""
    if not isinstance(completion, str) or not completion:
        return None
    found = labels_in(answer_body(completion), labels)
    return next(iter(found)) if len(found) == 1 else None


def parse_pred(completion: str, labels: Sequence[str] = PROVIDERS) -> str | None:
    """Lenient parser of the reference probe scripts (spec §4.4), for comparison only.

    Exactly one label inside ``<answer>`` wins; otherwise the first label found anywhere in
    the text, trying the labels in the given order; otherwise ``None``.
    """
    if not isinstance(completion, str) or not completion:
        return None
    body = first_block(completion, "answer")
    if body is not None:
        found = labels_in(ascii_upper(body), labels)
        if len(found) == 1:
            return next(iter(found))
    upper = ascii_upper(completion)
    for lab in labels:
        if _label_regex([lab]).search(upper):
            return lab
    return None


def parse_slots(completion: str, slots: Sequence[str] = ("A", "B"), labels: Sequence[str] = PROVIDERS,
                tail: int | None = None) -> dict[str, str | None]:
    """Pair/trio answers: slot X = first ``X: LABEL`` (``:``, ``=`` or ``-``) in the answer body.

    The label is word-bounded at both ends like :func:`parse_answer`'s (``A: CLAUDE.`` and
    ``A: CLAUDE`` at a line end count, ``A: CLAUDEish`` does not); Markdown emphasis, code marks
    and quotes around the slot or the label are allowed (``**A:** CLAUDE``, ``A: **CLAUDE**``).

    The fallback tail is 400 characters for pairs and 500 for trios, as in the reference.
    """
    if tail is None:
        tail = TRIO_TAIL_CHARS if len(slots) >= 3 else TAIL_CHARS
    body = answer_body(completion or "", tail)
    alts = _label_alternatives(labels)
    out: dict[str, str | None] = {}
    for s in slots:
        # Both ends word-bounded, as in parse_answer: "A: CLAUDEish" or "A: CHATGPTX" name no label.
        m = re.search(rf"(?<!\w){re.escape(s)}(?!\w){_WRAP}[:=\-]{_WRAP}(?<!\w)({alts})(?!\w)", body)
        out[s] = m.group(1) if m else None
    return out


def parse_pair(completion: str, labels: Sequence[str] = PROVIDERS) -> dict[str, str | None]:
    return parse_slots(completion, ("A", "B"), labels)


def parse_trio(completion: str, labels: Sequence[str] = PROVIDERS) -> dict[str, str | None]:
    return parse_slots(completion, _SLOTS, labels)


def decode_slot_gold(gold: str) -> dict[str, str]:
    """``"A=CLAUDE;B=GEMINI"`` -> ``{"A": "CLAUDE", "B": "GEMINI"}``."""
    out: dict[str, str] = {}
    for part in str(gold).split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip().upper()] = v.strip().upper()
    return out


def task_type(gold: str, info: dict | None = None) -> str:
    """Route from the gold string (verifiers may not pass ``info``): trio, pair or single."""
    g = str(gold).upper()
    if "A=" in g and "B=" in g and "C=" in g:
        return "trio"
    if "A=" in g and "B=" in g and ";" in g:
        return "pair"
    t = (info or {}).get("task_type") if isinstance(info, dict) else None
    return t if t in ("trio", "pair") else "single"


def reasoning(completion: str) -> str | None:
    """Content of the first *closed* ``<reason_why>`` block, or ``None``."""
    body = first_block(completion or "", "reason_why")
    return body.strip() if body is not None else None


def reason_words(completion: str) -> list[str]:
    """Lower-cased ``[A-Za-z]+`` words of the closed reasoning block (empty if none)."""
    r = reasoning(completion)
    return [w.lower() for w in _WORD_RE.findall(r)] if r else []


def has_think(completion: str) -> bool:
    """True if the completion opened a ``<think>`` block (the "thinking leak")."""
    return bool(_THINK_RE.search(completion or ""))


def _part_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # multimodal parts: keep the text parts, joined with spaces
        texts = [_get(p, "text") or "" for p in content if _get(p, "type") in ("text", None)]
        return " ".join(t for t in texts if t)
    return str(content)


def _get(obj: Any, key: str) -> Any:
    # Messages arrive as dicts (saved rollouts) or objects (live scoring): both must work.
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def completion_text(completion: Any, *, with_reasoning: bool = True) -> str:
    """Plain text of a completion given as a string or as a list of chat messages.

    Takes every assistant message (all messages if none is marked assistant) and joins each
    one's ``reasoning_content`` and ``content``.
    """
    if completion is None:
        return ""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict) or not isinstance(completion, Sequence):
        completion = [completion]
    msgs = [m for m in completion if _get(m, "role") == "assistant"] or list(completion)
    chunks = []
    for m in msgs:
        parts = [_part_text(_get(m, "reasoning_content")) if with_reasoning else "", _part_text(_get(m, "content"))]
        chunks.append("\n".join(p for p in parts if p))
    return "\n".join(c for c in chunks if c)


def final_content(completion: Any) -> str:
    """Content of the last assistant message (what a verifiers ``Parser`` reads)."""
    if isinstance(completion, str) or completion is None:
        return completion or ""
    if isinstance(completion, dict):
        completion = [completion]
    msgs = [m for m in completion if _get(m, "role") == "assistant"] or list(completion)
    return _part_text(_get(msgs[-1], "content")) if msgs else ""
