"""Where a GRPO step's time goes, in the run's own logs (issue 14: a step of 96 rollouts took 7.2 s
against a target of 3 s, and nothing said which part to cut).

TRL logs ``step_time`` (the whole step) and times ``sync_weights`` and ``vLLM.generate`` only for
W&B, MLflow or Trackio. :func:`time_phases` times, on the trainer instance (no TRL class or module
is patched), the calls a step is made of, into TRL's own per-step metrics, which TRL averages
and logs with the rest (so they reach ``metrics.jsonl``):

- ``time/rollouts_s``: ``_generate_and_score_completions``, everything before the optimisation:
  the weight sync, the sampling, the rewards, the old-policy log-probability pass (and, for the
  research recipes, the teacher's);
- ``time/vllm_sync_s`` and ``time/vllm_generate_s``: the parts of it on the vLLM engine, when
  there is one (an in-loop eval on the colocated engine syncs through the same call).

The optimisation is ``step_time`` less ``time/rollouts_s`` when each optimizer step makes one
generation batch (``steps_per_generation`` = ``gradient_accumulation_steps``, TRL's default, which
``whowrote.train.grpo.grpo_batch_plan`` sets: all of a step's rollouts are sampled at once).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from torch.profiler import record_function

# the spans time_phases times (and labels for whowrote.train.profiling)
PHASE_KEYS = ("time/rollouts_s", "time/vllm_sync_s", "time/vllm_generate_s")


def _timed(fn: Callable[..., Any], trainer: Any, key: str) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            with record_function(key):  # a named span in a torch.profiler trace (run.profile_steps)
                return fn(*args, **kwargs)
        finally:
            mode = "train" if getattr(trainer.model, "training", True) else "eval"
            trainer._metrics[mode][key].append(time.perf_counter() - t0)

    return wrapper


def time_phases(trainer: Any) -> Any:
    """Time ``trainer``'s rollouts (and its vLLM engine's sync and sampling) into its logged
    metrics; a trainer without TRL's ``_metrics`` (not a GRPO trainer) is returned as it is."""
    metrics = getattr(trainer, "_metrics", None)
    if not isinstance(metrics, dict) or not hasattr(trainer, "_generate_and_score_completions"):
        return trainer
    trainer._generate_and_score_completions = _timed(trainer._generate_and_score_completions, trainer,
                                                     PHASE_KEYS[0])
    engine = getattr(trainer, "vllm_generation", None)
    if engine is not None:
        for name, key in (("sync_weights", PHASE_KEYS[1]), ("generate", PHASE_KEYS[2])):
            if callable(getattr(engine, name, None)):
                setattr(engine, name, _timed(getattr(engine, name), trainer, key))
    return trainer
