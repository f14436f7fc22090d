"""In-loop evaluation of the policy being trained, through the eval harness itself.

The harness's sampling loop (:func:`whowrote.llm.evaluate.sample_examples`), trace records and
summary (:func:`whowrote.llm.metrics.summarize`) are used unchanged, so an in-loop eval, a
``whowrote eval`` run and ``whowrote train evaluate`` write the same traces and the same summary
keys, and score with the same parser, gate and finished-only rule as the GRPO reward.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from whowrote.llm.backends import TransformersBackend
from whowrote.llm.config import EvalConfig
from whowrote.llm.evaluate import sample_examples
from whowrote.llm.metrics import summarize
from whowrote.task.examples import Example
from whowrote.train.config import InLoopEval
from whowrote.train.data import Row


def harness_config(ev: InLoopEval, labels: Sequence[str], *, split: str = "", out: str = "",
                   model: str | None = None, seed: int = 0, dtype: str = "bfloat16",
                   chat_template_kwargs: dict | None = None, max_text_tokens: int | None = None,
                   limit: int | None = None) -> EvalConfig:
    """The harness settings an ``[eval]`` section stands for (its ``batch_size`` counts sequences)."""
    return EvalConfig(split=split, out=out, model=model, variant=ev.variant or "3way", k=ev.k,
                      max_new_tokens=ev.max_new_tokens, temperature=ev.temperature, top_p=ev.top_p, seed=seed,
                      batch_size=max(1, ev.batch_size // max(1, ev.k)), dtype=dtype,
                      require_reason=ev.require_reason, labels=tuple(labels), max_text_tokens=max_text_tokens,
                      limit=limit, **({"chat_template_kwargs": dict(chat_template_kwargs)}
                                      if chat_template_kwargs is not None else {}))


def colocated_llm(trainer: Any) -> Any | None:
    """The trainer's colocated vLLM engine holding this step's weights, or None (then HF generate).

    TRL's GRPO trainer syncs the policy into its engine only when it next generates, so the weights
    are pushed here first (``vllm_generation.sync_weights``, marked as loaded for this step, so the
    next rollout does not push them again). A server-mode engine (other GPUs, other weights until
    the next sync) or one in sleep mode (weights offloaded between rollouts) is not used.
    """
    gen = getattr(trainer, "vllm_generation", None)
    if gen is None or getattr(gen, "mode", "") != "colocate" or getattr(gen, "enable_sleep_mode", False):
        return None
    step = trainer.state.global_step
    if getattr(trainer, "_last_loaded_step", None) != step:
        gen.sync_weights()
        trainer._last_loaded_step = step
    return gen.llm


def evaluate_policy(model: Any, tokenizer: Any, rows: Sequence[Row], hcfg: EvalConfig, *,
                    text_field: str = "text", label_field: str = "provider",
                    llm: Any = None) -> tuple[dict[str, Any], list[Row]]:
    """(summary, harness trace records) for the live ``model`` on ``rows``; with ``llm`` (a vLLM
    engine holding the same weights, :func:`colocated_llm`) the samples come from it instead."""
    examples = [Example(str(r.get("id", i)), str(r[text_field]), str(r[label_field])) for i, r in enumerate(rows)]
    backend: Any
    if llm is not None:
        from whowrote.llm.vllm_backend import VLLMBackend

        backend = VLLMBackend("colocated", llm=llm, tokenizer=tokenizer, template_kwargs=hcfg.chat_template_kwargs)
    else:
        backend = TransformersBackend(model, tokenizer, batch_size=hcfg.batch_size,
                                      template_kwargs=hcfg.chat_template_kwargs)
    labels = tuple(hcfg.labels)
    records = sample_examples(list(enumerate(examples)), backend, hcfg, labels, "val")
    summary = summarize(records, labels, k=hcfg.k)
    summary["variant"] = hcfg.variant
    summary["sampling"] = {"temperature": hcfg.temperature, "top_p": hcfg.top_p,
                           "max_new_tokens": hcfg.max_new_tokens, "k": hcfg.k}
    summary["tokens_per_s"] = round(backend.tokens_per_s, 1)
    summary["gen_seconds"] = round(backend.gen_seconds, 2)
    summary["engine"] = "vllm-colocated" if llm is not None else "transformers"
    return summary, records
