"""Per recipe/checkpoint statistics of eval trace files (research spec §5.8, extended).

A *source* is one labelled trace file. It can be given as

- a ``whowrote eval`` output folder (``traces.jsonl`` + ``run.json``, whose ``split`` names the
  texts) or its ``traces.jsonl``;
- an in-loop eval's ``<run>/evals/stepNNNNN.traces.jsonl`` (the texts come from the run's
  ``config.<stage>.toml`` ``data.val``);
- any JSONL whose records carry the text themselves (``text`` or ``blog``, the research layout);

optionally as ``NAME=PATH`` to choose the label. Records are the harness's: ``gold``, ``pred``,
``correct``, ``truncated``, ``completion`` and an id (``id`` or ``prompt_id``). Without a text
(or for pair/trio records, whose block mixes several texts) the cue, length and repetition
statistics are still computed; faithfulness and echo are None. Unlike the research script, a source
with fewer than 10 rationales is reported rather than skipped (``n_with_reason`` says how many).
"""

from __future__ import annotations

import json
import statistics
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from whowrote.formats import TEXT_COLUMNS
from whowrote.task.cues import (
    CUE_FAMILIES,
    count_families,
    cue_families,
    echo,
    is_rationale,
    reason_text,
    repetition,
    text_ngrams,
    tone,
)
from whowrote.task.faithfulness import check_claims, measured, next_distinct
from whowrote.types import WhowroteError


@dataclass
class Source:
    name: str
    path: Path  # the JSONL file
    split: Path | None = None  # where the texts are, when records lack them
    records: list[dict] = field(default_factory=list)


def resolve_source(spec: str, split: Path | None = None) -> Source:
    """``[NAME=]PATH`` -> a :class:`Source` (file found, label chosen, split located)."""
    name, _, raw = spec.partition("=") if "=" in spec and not Path(spec).exists() else ("", "", spec)
    path = Path(raw)
    if path.is_dir():
        path = path / "traces.jsonl"
    if not path.is_file():
        raise WhowroteError(f"trace file not found: {path}")
    if not name:
        if path.parent.name == "evals" and path.name.startswith("step"):
            step = int("".join(c for c in path.name.split(".")[0] if c.isdigit()) or 0)
            name = f"{path.parent.parent.name}@{step}"
        else:
            name = path.parent.name if path.name == "traces.jsonl" else path.stem
    return Source(name, path, split or _split_of(path))


def _split_of(path: Path) -> Path | None:
    run_json = path.parent / "run.json"
    if run_json.is_file():
        split = _load_meta(run_json, json.loads, "JSON").get("split")
        if split is not None and not isinstance(split, str):
            raise WhowroteError(f"{run_json}: 'split' must be a path string, got {type(split).__name__}")
        return Path(split) if split else None
    if path.parent.name == "evals":
        for cfg in sorted(path.parent.parent.glob("config.*.toml")):
            data = _load_meta(cfg, tomllib.loads, "TOML").get("data") or {}
            val = data.get("val") if isinstance(data, dict) else None
            if val is not None and not isinstance(val, str):
                raise WhowroteError(f"{cfg}: data.val must be a path string, got {type(val).__name__}")
            if val:
                return Path(val)
    return None


def _load_meta(path: Path, parse: Callable[[str], Any], kind: str) -> dict[str, Any]:
    """A run's run.json / config.*.toml as a table; anything else is a one-line error naming the file."""
    try:
        data = parse(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise WhowroteError(f"{path}: not valid UTF-8 text ({e.reason})") from None
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as e:
        raise WhowroteError(f"{path}: invalid {kind} ({str(e).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise WhowroteError(f"{path}: must hold a {kind} object, got {type(data).__name__}")
    return data


# Field -> the JSON types a trace record may hold there (None: absent or null).
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "completion": (str,), "gold": (str,), "pred": (str,), "correct": (bool, int, float), "truncated": (bool, int, float)}


def _check_fields(rec: dict, where: str) -> None:
    for key, types in _FIELD_TYPES.items():
        value = rec.get(key)
        if value is not None and not isinstance(value, types):
            want = "string" if types == (str,) else "boolean or number"
            raise WhowroteError(f"{where}: '{key}' must be a {want}, got {type(value).__name__}")


def read_records(path: Path) -> list[dict]:
    """Trace records, streamed; a torn last line (an interrupted run) is skipped, other bad lines refused."""
    try:
        return _read_records(path)
    except UnicodeDecodeError as e:  # decoded in blocks: the offset is not a line's
        raise WhowroteError(f"{path}: not valid UTF-8 text ({e.reason})") from None


def _read_records(path: Path) -> list[dict]:
    out: list[dict] = []
    pending: tuple[int, str] | None = None  # a bad line is fatal only if another line follows it
    with path.open(encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if pending is not None:
                raise WhowroteError(f"{path}:{pending[0]}: not a JSON line")
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                if line.endswith("\n"):
                    raise WhowroteError(f"{path}:{i}: not a JSON line") from None
                pending = (i, line)
                continue
            if not isinstance(rec, dict) or "completion" not in rec:
                raise WhowroteError(f"{path}:{i}: not a trace record (no 'completion')")
            _check_fields(rec, f"{path}:{i}")
            out.append(rec)
    if not out:
        raise WhowroteError(f"{path}: no trace records")
    return out


def split_texts(split: Path | None, required: bool = False) -> dict[str, str]:
    """``{id: text}`` of a split; a missing split is an error when ``required`` (given by the user)."""
    if split is None or not split.is_file():
        if required and split is not None:
            raise WhowroteError(f"split file not found: {split}")
        return {}
    from whowrote.task.examples import load_examples

    return {ex.id: ex.text for ex in load_examples(split)}


def _text_of(rec: dict, texts: dict[str, str]) -> str | None:
    for k in TEXT_COLUMNS:
        if isinstance(rec.get(k), str):
            return rec[k]
    for k in ("id", "prompt_id"):
        if k in rec and str(rec[k]) in texts:
            return texts[str(rec[k])]
    return None


def _median(xs: Iterable[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return round(float(statistics.median(vals)), 4) if vals else None


def _mean(xs: Iterable[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return round(float(statistics.fmean(vals)), 4) if vals else None


def _examples(rows: Sequence[dict], n: int = 3) -> list[str]:
    """The spec's pick: 25-110 words first, then more cue hits, then closest to 60 words; no repeats."""
    ranked = sorted(rows, key=lambda r: (25 <= r["words"] <= 110, len(r["families"]), -abs(r["words"] - 60)),
                    reverse=True)
    seen: set[str] = set()
    out = []
    for r in ranked:
        if r["reason"][:50] not in seen:
            seen.add(r["reason"][:50])
            out.append(r["reason"])
        if len(out) == n:
            break
    return out


def analyze_records(records: Sequence[dict], texts: dict[str, str] | None = None) -> dict[str, Any]:
    """The statistics of one source (see docs/research-recipes.md for every key)."""
    texts = texts or {}
    feats_cache: dict[str, dict[str, float]] = {}  # k samples share one text: measure it once
    grams_cache: dict[str, set] = {}
    rows = []
    checked: list[tuple[dict[str, Any], str]] = []  # (row, its text) for the other-text baseline
    for rec in records:
        reason = reason_text(str(rec.get("completion") or ""))
        # A pair/trio block is several texts: a claim cannot be checked against their mixture.
        text = _text_of(rec, texts) if "=" not in str(rec.get("gold", "")) else None
        row: dict[str, Any] = {"gold": rec.get("gold"), "pred": rec.get("pred") or "", "correct": bool(rec.get("correct")),
                               "truncated": bool(rec.get("truncated")), "reason": reason,
                               "words": len(reason.split()), "rationale": is_rationale(reason)}
        if row["rationale"]:
            row.update(families=cue_families(reason), **tone(reason), repetition=repetition(reason))
            if text is not None:
                if text not in feats_cache:
                    feats_cache[text], grams_cache[text] = measured(text), text_ngrams(text)
                row["claims"] = check_claims(reason, text, features=feats_cache[text])
                row["echo"] = echo(reason, grams_cache[text])
                checked.append((row, text))
        rows.append(row)
    # The baseline: each rationale's claims checked against the next example's text. A rationale that
    # says nothing about its own text (typical numbers, stock phrases) scores the same on both.
    following = next_distinct(list(feats_cache))
    if len(following) >= 2:
        for row, text in checked:
            other = following[text]
            row["claims_other"] = check_claims(row["reason"], other, features=feats_cache[other])
    return summarize_rows(rows, texts_found=sum(_text_of(r, texts) is not None for r in records))


def summarize_rows(rows: Sequence[dict], texts_found: int = 0) -> dict[str, Any]:
    n = len(rows)
    rats = [r for r in rows if r["rationale"]]
    claims = [c for r in rats for c in r.get("claims", [])]
    by_family: dict[str, dict[str, int]] = {}
    for c in claims:
        entry = by_family.setdefault(c.family, {"n": 0, "true": 0})
        entry["n"] += 1
        entry["true"] += int(c.true)
    faith = [sum(c.true for c in r["claims"]) / len(r["claims"]) for r in rats if r.get("claims")]
    faith_other = [sum(c.true for c in r["claims_other"]) / len(r["claims_other"]) for r in rats
                   if r.get("claims_other")]
    preds: dict[str, int] = {}
    for r in rows:
        preds[r["pred"] or "<none>"] = preds.get(r["pred"] or "<none>", 0) + 1
    per_provider = {}
    for gold in sorted({str(r["gold"]) for r in rows}):
        good = [r for r in rats if str(r["gold"]) == gold and r["correct"]]
        per_provider[gold] = {"n_correct": len(good),
                              "cue_families": dict(list(count_families(r["reason"] for r in good).items())[:6]),
                              "examples": _examples(good)}
    return {
        "n": n,
        "accuracy": round(sum(r["correct"] for r in rows) / n, 4) if n else None,
        "truncation_rate": round(sum(r["truncated"] for r in rows) / n, 4) if n else None,
        "pred_dist": dict(sorted(preds.items())),
        "n_with_reason": len(rats),
        "median_reason_words": _median(r["words"] for r in rats),
        "reason_words": [r["words"] for r in rats],
        "concrete_fraction": round(sum(bool(r["families"]) for r in rats) / len(rats), 4) if rats else None,
        "confident_fraction": round(sum(r["confident"] for r in rats) / len(rats), 4) if rats else None,
        "hedged_fraction": round(sum(r["hedged"] for r in rats) / len(rats), 4) if rats else None,
        "cue_families": count_families(r["reason"] for r in rats),
        "median_repetition": _median(r["repetition"] for r in rats),
        "median_echo": _median(r.get("echo") for r in rats),
        "texts_found": texts_found,
        "n_checked": len(faith),
        "n_claims": len(claims),
        "faithfulness": _mean(faith),
        "faithfulness_other_text": _mean(faith_other),
        "claims_true_share": round(sum(c.true for c in claims) / len(claims), 4) if claims else None,
        "claims_by_family": dict(sorted(by_family.items())),
        "per_provider": per_provider,
    }


def analyze_sources(specs: Sequence[str], split: Path | None = None) -> dict[str, dict[str, Any]]:
    """``{name: statistics}`` in the order given; names must be distinct."""
    out: dict[str, dict[str, Any]] = {}
    cache: dict[Path, dict[str, str]] = {}
    for spec in specs:
        src = resolve_source(spec, split)
        if src.name in out:
            raise WhowroteError(f"two trace sources are both called {src.name!r}; label them NAME=PATH")
        if src.split is not None and src.split not in cache:
            cache[src.split] = split_texts(src.split, required=src.split == split)
        stats = analyze_records(read_records(src.path), cache.get(src.split, {}) if src.split else {})
        stats["path"], stats["split"] = str(src.path), str(src.split) if src.split else None
        out[src.name] = stats
    return out


FAMILIES: tuple[str, ...] = tuple(CUE_FAMILIES)
