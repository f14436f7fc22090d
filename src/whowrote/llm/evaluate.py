"""The eval harness: sample k completions per text, parse and score them, write traces and a summary.

Output directory layout:
- ``run.json``: the settings the traces were produced with (a resume must match them);
- ``traces.jsonl``: one record per sample (see :func:`sample_record`), appended per completed
  example (all k samples in one write, flushed and fsynced), so an interrupted run loses at most
  the example in flight;
- ``summary.json``: :func:`whowrote.llm.metrics.summarize` plus the run settings under ``run``.

Resuming (the default when ``traces.jsonl`` exists): a torn last line, any corrupt line (said on
stderr) and examples with fewer than k samples are dropped, done ids are skipped, and the rest is
generated and appended. ``run.json`` records the split file's sha256: a split rewritten at the
same path is refused instead of mixing two versions into one summary.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from itertools import zip_longest
from pathlib import Path
from typing import Any

from whowrote.llm.backends import Backend, Sample, SamplingParams, TransformersBackend
from whowrote.llm.config import RUN_KEYS, EvalConfig
from whowrote.llm.metrics import summarize
from whowrote.llm.prompting import FitResult, fit_messages
from whowrote.task.examples import Example, load_examples
from whowrote.task.parser import has_think, parse_answer, reason_words, reasoning
from whowrote.task.prompts import PROMPT_TEXT, build_messages, variant_labels
from whowrote.task.rewards import reward_terms
from whowrote.types import WhowroteError, file_sha256

TRACES = "traces.jsonl"
SUMMARY = "summary.json"
RUN = "run.json"
# run.json keys added over time: a run written before them resumes under their defaults.
LEGACY_KEYS = ("split_sha256", "chat_template_kwargs", "max_text_tokens")


def load_traces(path: Path, k: int) -> tuple[list[dict], bool]:
    """Complete examples' records from ``path`` and whether the file needs rewriting.

    A torn last line (an interrupted write) is dropped silently; a corrupt line elsewhere is
    skipped with a warning on stderr, keeping every valid trace around it.
    """
    if not path.exists():
        return [], False
    records: list[dict] = []
    bad: list[int] = []
    torn = False
    with path.open(encoding="utf-8", errors="replace", newline="\n") as f:
        for lineno, line in enumerate(f, 1):
            if not line.endswith("\n"):  # torn write at the end of an interrupted run
                torn = True
                break
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                rec = None
            if not isinstance(rec, dict) or "prompt_id" not in rec:
                bad.append(lineno)
                continue
            records.append(rec)
    if bad:
        shown = ", ".join(map(str, bad[:5])) + (" ..." if len(bad) > 5 else "")
        print(f"whowrote: warning: {path}: skipped {len(bad)} corrupt trace line(s) (line {shown}); "
              "their examples are generated again", file=sys.stderr)
    counts: dict[str, int] = {}
    for r in records:
        counts[str(r["prompt_id"])] = counts.get(str(r["prompt_id"]), 0) + 1
    keep = [r for r in records if counts[str(r["prompt_id"])] == k]
    return keep, torn or bool(bad) or len(keep) != len(records)



def _rewrite(path: Path, records: list[dict]) -> None:
    tmp = path.with_suffix(".jsonl.tmp")
    with tmp.open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _check_run(out: Path, cfg: EvalConfig) -> None:
    run_path = out / RUN
    settings = {**cfg.run_settings(), "split_sha256": file_sha256(cfg.split), "prompt_text": PROMPT_TEXT}
    traces = out / TRACES
    # A run that failed before its first trace (bad endpoint, model that did not load) binds nothing.
    if run_path.exists() and traces.exists() and traces.stat().st_size > 0:
        try:
            old = json.loads(run_path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise WhowroteError(f"{run_path} is not valid JSON; use a new --out directory") from None
        if old.get("split_sha256") not in (None, settings["split_sha256"]):
            raise WhowroteError(f"{cfg.split} changed since the traces in {out} were written "
                                f"(sha256 {old['split_sha256'][:12]}... now {settings['split_sha256'][:12]}...); "
                                "use a new --out directory")
        diff = {k: (old.get(k), v) for k, v in settings.items()
                if old.get(k) != v and not (k in LEGACY_KEYS and k not in old)}
        if diff:
            raise WhowroteError(f"{out} holds traces of a different run ({diff}); use a new --out directory")
    run_path.write_text(json.dumps(settings, indent=2) + "\n")


def check_out(out: Path, own: Sequence[str | Path] = ()) -> None:
    """Refuse (nothing changed) a non-empty ``out`` that is not an eval's own run: one holding a
    valid eval ``run.json``, or nothing but ``own`` files (the split ``whowrote eval --edit`` writes there)."""
    from whowrote.data.outdir import check_own_folder  # the project's one output-folder guard

    own_files = [Path(f) for f in own]
    check_own_folder(out, "whowrote eval", lambda d: is_eval_run(d) or _only(d, own_files))


def is_eval_run(out: Path) -> bool:
    """Whether ``out`` holds a ``run.json`` this harness wrote (every setting it records)."""
    from whowrote.data.outdir import json_object

    return set(RUN_KEYS) - set(LEGACY_KEYS) <= (json_object(out / RUN) or {}).keys()


def _only(folder: Path, files: list[Path]) -> bool:
    files = [f for f in files if f.is_file()]
    return all(p.is_file() and any(os.path.samefile(p, f) for f in files) for p in folder.iterdir())


def check_model(cfg: EvalConfig) -> None:
    """A one-line error, before any file is written, for a local model path that does not exist."""
    if cfg.model:
        from whowrote.llm.models import resolve_model

        resolve_model(cfg.model, cfg.gguf_file)


def score_sample(text: str, gold: str, labels: Sequence[str], *, require_reason: bool,
                 truncated: bool) -> dict[str, Any]:
    """The scored fields of a trace record (this harness's and the in-loop eval's): ``pred``,
    ``correct``, ``terms`` and ``reason_words`` (None without a closed ``<reason_why>``)."""
    terms = reward_terms(text, gold, labels=labels, require_reason=require_reason, truncated=truncated)
    return {"pred": parse_answer(text, labels), "correct": terms["correct_answer"] > 0, "terms": terms,
            "reason_words": len(reason_words(text)) if reasoning(text) is not None else None}


def shown_text_features(ex: Example, fit: FitResult) -> dict[str, float] | None:
    """The style features of the text the model was shown (cut as the prompt cut it), measured once
    per example for :func:`claims_fields`; None for multi-text (pair/trio) examples."""
    from whowrote.task.faithfulness import measured

    user = [m for m in fit.messages if m.get("role") == "user"]
    if ex.kind != "single" or not user:
        return None
    return measured(str(user[-1]["content"]))


def claims_fields(completion: str, text: str, features: Mapping[str, float] | None,
                  other: tuple[str, Mapping[str, float]] | None = None) -> dict[str, Any]:
    """``claims_checked`` / ``claims_true`` / ``faithfulness`` of one trace: the rationale's checkable
    style claims (:func:`whowrote.task.faithfulness.check_claims`) against the measured features;
    ``faithfulness`` is None without a checkable claim (or without features). With ``other`` (another
    text and its features), ``faithfulness_other_text``: the share of the same claims true of that
    text, the baseline a rationale that does not read its own text also reaches."""
    from whowrote.task.cues import reason_text
    from whowrote.task.faithfulness import check_claims, rationale_faithfulness

    if features is None:
        return {"claims_checked": None, "claims_true": None, "faithfulness": None, "faithfulness_other_text": None}
    reason = reason_text(completion)
    claims = check_claims(reason, text, features=features)
    n_true = sum(c.true for c in claims)
    base = rationale_faithfulness(reason, other[0], features=other[1]) if claims and other is not None else None
    return {"claims_checked": len(claims), "claims_true": n_true,
            "faithfulness": round(n_true / len(claims), 4) if claims else None,
            "faithfulness_other_text": None if base is None else round(base, 4)}


def sample_record(ex: Example, j: int, s: Sample, fit: FitResult, cfg: EvalConfig, labels: tuple[str, ...],
                  split_name: str, gen_seconds: float, features: Mapping[str, float] | None = None,
                  other: tuple[str, Mapping[str, float]] | None = None) -> dict[str, Any]:
    truncated = s.finish_reason == "length"
    sc = score_sample(s.text, ex.gold, labels, require_reason=cfg.require_reason, truncated=truncated)
    return {
        "prompt_id": ex.id, "sample": j, "split": split_name, "genre": ex.info.get("genre"),
        "gold": ex.gold, "pred": sc["pred"], "correct": sc["correct"], "terms": sc["terms"], "finish_reason": s.finish_reason,
        "truncated": truncated, "prompt_tokens": s.prompt_tokens if s.prompt_tokens is not None else fit.prompt_tokens,
        "completion_tokens": s.completion_tokens, "prompt_truncated": fit.truncated,
        "text_tokens": fit.text_tokens, "kept_tokens": fit.kept_tokens,
        "reason_words": sc["reason_words"], **claims_fields(s.text, ex.text, features, other),
        "think_leak": has_think(s.text), "gen_seconds": round(gen_seconds, 4),
        "completion": s.text, "reasoning": s.reasoning,
    }


def make_backend(cfg: EvalConfig) -> Backend:
    """The run's backend: ``endpoint`` selects the OpenAI-compatible one, else a local model."""
    if cfg.endpoint:
        from whowrote.llm.endpoint import OpenAIBackend

        return OpenAIBackend(cfg.endpoint, cfg.api_model or cfg.model or "default", concurrency=cfg.concurrency,
                             timeout=cfg.timeout, tokenizer=cfg.model, gguf_file=cfg.gguf_file,
                             extra_body={"chat_template_kwargs": dict(cfg.chat_template_kwargs)})
    if not cfg.model:
        raise WhowroteError("give --model (local) or --endpoint (OpenAI-compatible server)")
    return TransformersBackend(cfg.model, gguf_file=cfg.gguf_file, dtype=cfg.dtype, device=cfg.device,
                               batch_size=cfg.batch_size, template_kwargs=cfg.chat_template_kwargs)


def sample_examples(todo: Sequence[tuple[int, Example]], backend: Backend, cfg: EvalConfig,
                    labels: tuple[str, ...], split_name: str,
                    on_batch: Callable[[list[dict], int], None] | None = None) -> list[dict]:
    """Sample, score and record ``todo`` (``(index in the split, example)`` pairs) in batches of
    ``cfg.batch_size`` texts: the one sampling loop of ``whowrote eval`` and the in-loop eval.

    ``on_batch(records, n_done)`` runs after every batch (the CLI writes and fsyncs there).
    """
    records: list[dict] = []
    step = max(cfg.batch_size, cfg.concurrency if cfg.endpoint else 1)
    for start in range(0, len(todo), step):
        batch = todo[start:start + step]
        fits = []
        for _, ex in batch:
            try:
                fits.append(fit_messages(build_messages(ex.text, cfg.variant, cfg.cheatsheet, labels),
                                         backend, cfg.max_prompt_tokens, cfg.max_text_tokens))
            except ValueError as e:
                raise WhowroteError(str(e)) from e
        params = SamplingParams(cfg.temperature, cfg.top_p, cfg.max_new_tokens, cfg.k, cfg.seed + batch[0][0])
        t0 = time.perf_counter()
        samples = backend.generate([fit.messages for fit in fits], params)
        per = (time.perf_counter() - t0) / (len(batch) * cfg.k)
        feats = [shown_text_features(ex, fit) for (_, ex), fit in zip(batch, fits, strict=True)]  # once per text
        others = other_texts(batch, feats)
        batch_recs = [sample_record(ex, j, s, fit, cfg, labels, split_name, per, f, o)
                      for (_, ex), fit, f, o, ss in zip(batch, fits, feats, others, samples, strict=True)
                      for j, s in enumerate(ss)]
        records.extend(batch_recs)
        if on_batch:
            on_batch(batch_recs, start + len(batch))
    return records


def other_texts(batch: Sequence[tuple[int, Example]], feats: Sequence[Mapping[str, float] | None]
                ) -> list[tuple[str, Mapping[str, float]] | None]:
    """Each example's baseline text for ``faithfulness_other_text``: the next measured text of the
    batch (:func:`whowrote.task.faithfulness.next_distinct`); None when the batch has no other."""
    from whowrote.task.faithfulness import next_distinct

    by_text = {ex.text: f for (_, ex), f in zip(batch, feats, strict=True) if f is not None}
    nxt = next_distinct(list(by_text))
    return [(nxt[ex.text], by_text[nxt[ex.text]]) if nxt.get(ex.text, ex.text) != ex.text else None
            for _, ex in batch]


def interleave(examples: Sequence[Example], labels: Sequence[str]) -> list[Example]:
    """Examples in file order per gold label, interleaved label by label (C, P, G, C, P, G, ...),
    so the first N are as provider-balanced as the split allows (what ``limit`` keeps)."""
    pools = {lab: [e for e in examples if e.gold == lab] for lab in labels}
    rest = [e for e in examples if e.gold not in pools]  # pair/trio rows keep their order
    out = [e for row in zip_longest(*pools.values()) for e in row if e is not None]
    return out + rest


def run_eval(cfg: EvalConfig, backend: Backend | None = None,
             on_progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Run (or resume) an eval; returns the summary that was written to ``summary.json``."""
    if cfg.k < 1 or cfg.max_new_tokens < 1:
        raise WhowroteError("k and max_new_tokens must be at least 1")
    if not cfg.timeout > 0:
        raise WhowroteError(f"timeout must be > 0 seconds, got {cfg.timeout}")
    labels = variant_labels(cfg.variant, cfg.labels)
    examples = load_examples(cfg.split, labels)
    if cfg.limit:
        examples = interleave(examples, labels)[:cfg.limit]
    out = Path(cfg.out)
    check_out(out, [cfg.split])
    if backend is None:
        check_model(cfg)
    out.mkdir(parents=True, exist_ok=True)
    _check_run(out, cfg)
    traces = out / TRACES
    records, dirty = load_traces(traces, cfg.k)
    if dirty:
        _rewrite(traces, records)
    done = {str(r["prompt_id"]) for r in records}
    todo = [(i, ex) for i, ex in enumerate(examples) if ex.id not in done]
    # Similar lengths in one batch waste less compute on padding; order does not affect resume.
    todo.sort(key=lambda t: -len(t[1].text))
    if todo:
        backend = backend or make_backend(cfg)
    with traces.open("a", encoding="utf-8") as f:
        def write(recs: list[dict], n_done: int) -> None:
            # All k samples of a text in one flushed, fsynced write: a kill loses at most a batch.
            f.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs))
            f.flush()
            os.fsync(f.fileno())
            if on_progress:
                on_progress(len(done) + n_done, len(examples))

        if todo:
            records += sample_examples(todo, backend, cfg, labels, Path(cfg.split).stem, write)
    summary = summarize(records, labels, cfg.k)
    summary["run"] = {**cfg.run_settings(), "backend": getattr(backend, "name", None) if backend else None,
                      "labels": list(labels), "n_examples_in_split": len(examples),
                      "complete": len({str(r['prompt_id']) for r in records}) == len(examples),
                      "traces": str(traces)}
    (out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n")
    return summary
