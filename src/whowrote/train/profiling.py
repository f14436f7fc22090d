"""Profile a few training steps with ``torch.profiler`` (issue 14: what fills a GRPO step?).

``run.profile_steps = N`` (default 0, off) records optimizer steps 2 … N + 1 (step 1 pays the
kernel compiles and the vLLM engine's warm-up) and, when they are done, writes into the run folder:

- ``profile.txt``: the operators by self time (device time on a GPU, CPU time otherwise), the
  profiler's own table, then the same grouped by input shape (session 12's profile counted six
  attention forwards per step where two passes of two micro-batches make four; the shapes say
  which pass the others belong to);
- ``profile.json``: the same top operators as numbers, and the spans that
  :mod:`whowrote.train.phases` labels (``time/rollouts_s``, ``time/vllm_generate_s``…), so a step's
  rollouts can be told from its optimisation inside one trace.

Session 11 measured a SmolLM2 GRPO step at 6.9–7.2 s: 3.3 s of rollouts and 3.6–3.9 s of
optimisation, against 1.7 s for the same forward, backward and AdamW timed alone. This names the
operators behind the gap. Profiling slows the steps it records, so it is a separate run's
switch, never on by default.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from whowrote.train.phases import PHASE_KEYS

FIRST_STEP = 2  # step 1 holds compiles and engine warm-up
TOP = 40


def _device_us(evt: Any, attr: str) -> float:
    """``self_device_time_total`` / ``device_time_total`` (older torch: ``cuda``), in µs; 0 without."""
    for name in (attr, attr.replace("device", "cuda")):
        value = getattr(evt, name, None)
        if isinstance(value, int | float):
            return float(value)
    return 0.0


def summarize(prof: Any, on_device: bool) -> tuple[str, dict[str, Any]]:
    """(the profiler's table, a JSON-able summary) of a finished ``torch.profiler.profile``."""
    events = prof.key_averages()
    sort = "self_device_time_total" if on_device else "self_cpu_time_total"
    try:
        table = events.table(sort_by=sort, row_limit=TOP)
    except (AttributeError, KeyError, ValueError):  # an older torch spells device time "cuda"
        sort = "self_cuda_time_total" if on_device else "self_cpu_time_total"
        table = events.table(sort_by=sort, row_limit=TOP)
    by_shape = prof.key_averages(group_by_input_shape=True).table(sort_by=sort, row_limit=TOP)
    table = f"{table}\n\nby input shape:\n{by_shape}"

    def row(evt: Any) -> dict[str, Any]:
        return {"name": evt.key, "count": int(evt.count), "self_cpu_ms": evt.self_cpu_time_total / 1e3,
                "cpu_total_ms": evt.cpu_time_total / 1e3,
                "self_device_ms": _device_us(evt, "self_device_time_total") / 1e3,
                "device_total_ms": _device_us(evt, "device_time_total") / 1e3}

    rows = [row(e) for e in events]
    key = "self_device_ms" if on_device else "self_cpu_ms"
    top = sorted((r for r in rows if r["name"] not in PHASE_KEYS), key=lambda r: -r[key])[:TOP]
    phases = {r["name"]: r for r in rows if r["name"] in PHASE_KEYS}
    return table, {"sorted_by": key, "top": top, "phases": phases}


class ProfileCallback(TrainerCallback):
    """Record optimizer steps ``FIRST_STEP`` … ``FIRST_STEP + steps - 1``; write the summary after the
    last (or at the end of training, if it stops first)."""

    def __init__(self, output_dir: str | Path, steps: int) -> None:
        if steps < 1:
            raise ValueError(f"profile steps must be >= 1, got {steps}")
        self.out, self.steps = Path(output_dir), steps
        self.prof: Any = None

    def on_step_begin(self, args, state, control, **kwargs):
        if self.prof is None and state.global_step + 1 == FIRST_STEP:  # once: the step count only grows
            import torch

            acts = [torch.profiler.ProfilerActivity.CPU]
            if torch.cuda.is_available():
                acts.append(torch.profiler.ProfilerActivity.CUDA)
            self.prof = torch.profiler.profile(activities=acts, record_shapes=True)
            self.prof.__enter__()

    def on_step_end(self, args, state, control, **kwargs):
        if self.prof is not None and state.global_step >= FIRST_STEP + self.steps - 1:
            self._finish(state.global_step)

    def on_train_end(self, args, state, control, **kwargs):
        if self.prof is not None:
            self._finish(state.global_step)

    def _finish(self, last_step: int) -> None:
        import torch

        prof, self.prof = self.prof, None
        prof.__exit__(None, None, None)
        table, summary = summarize(prof, torch.cuda.is_available())
        summary["steps"] = [FIRST_STEP, last_step]
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "profile.txt").write_text(f"optimizer steps {FIRST_STEP}-{last_step}\n{table}\n")
        (self.out / "profile.json").write_text(json.dumps(summary, indent=1) + "\n")
