"""TrainerCallbacks shared by every recipe: metrics files, periodic eval, best-val, guardrails.

- :class:`MetricsFileCallback` appends every ``on_log`` record to ``metrics.jsonl`` (the curves,
  CSV and W&B-free run record all read this file).
- :class:`PeriodicEvalCallback` evaluates the live policy on val at step 0, every
  ``eval.every_steps`` and at the end; keeps the best weights in ``<output_dir>/best`` (ties go to
  the earliest step, step 0 never counts, as in spec §4.1) and stops training when the collapse
  detector fires (spec §4.5).
- :class:`ZeroTrainableGuard` stops GRPO after N consecutive steps in which every group had equal
  rewards, i.e. no gradient (the research guardrail, spec §3.2).
- :class:`TimeLimitCallback` stops training after ``run.max_minutes`` of wall time, so a job with a
  hard limit (a cluster slot, a 10-minute device call) still ends with its final eval and weights.

Evaluation runs on the main process only; with DDP the inner module is used directly. Under FSDP
set ``eval.every_steps = 0`` and evaluate the saved checkpoint instead (docs/train.md).
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from transformers import TrainerCallback, TrainerControl, TrainerState, TrainingArguments

from whowrote.llm.collapse import detect_collapse
from whowrote.llm.config import EvalConfig
from whowrote.train.config import InLoopEval
from whowrote.train.curves import latest_attempts, load_metrics
from whowrote.train.data import Row, write_rows
from whowrote.train.evaluation import colocated_llm, evaluate_policy, harness_config
from whowrote.types import WhowroteError


def append_jsonl(path: Path, record: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")


def mark_attempt(path: Path, stage: str, step: int) -> None:
    """Append the ``kind=start`` record that opens an attempt of ``stage`` at ``step`` (0: a fresh
    start, else the checkpoint it resumed from), once: both callbacks below call this."""
    mark = {"stage": stage, "kind": "start", "step": step}
    recs = load_metrics(path)
    if not recs or recs[-1] != mark:
        append_jsonl(path, mark)


class MetricsFileCallback(TrainerCallback):
    """Every logged dict, stamped with step, epoch, wall time and the stage name; a ``kind=start``
    record opens each attempt (fresh or resumed), so the curves can drop what a resume redid."""

    def __init__(self, output_dir: str | Path, stage: str) -> None:
        self.path = Path(output_dir) / "metrics.jsonl"
        self.stage = stage
        self.t0 = time.time()

    def on_train_begin(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                       **kwargs: Any) -> None:
        if state.is_world_process_zero:
            mark_attempt(self.path, self.stage, state.global_step)

    def on_log(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
               logs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        if logs and state.is_world_process_zero:
            rec = {"stage": self.stage, "kind": "train", "step": state.global_step, "epoch": state.epoch,
                   "time_s": round(time.time() - self.t0, 2)}
            rec.update({k: v for k, v in logs.items() if isinstance(v, int | float | str)})
            append_jsonl(self.path, rec)


def collapse_kinds(findings: Sequence[dict[str, Any]]) -> list[str]:
    """The kinds ("truncation", "class", "format") with at least one finding of severity ``collapse``."""
    return sorted({f["kind"] for f in findings if f["severity"] == "collapse"})


def _unwrap(model: Any) -> Any:
    return getattr(model, "module", model)


class PeriodicEvalCallback(TrainerCallback):
    def __init__(self, *, rows: Sequence[Row], cfg: InLoopEval, labels: Sequence[str], output_dir: str | Path,
                 stage: str, tokenizer: Any, seed: int = 0, text_field: str = "text",
                 label_field: str = "provider", harness: EvalConfig | None = None) -> None:
        self.rows, self.cfg = list(rows), cfg
        self.harness = harness or harness_config(cfg, labels)  # sampling settings (the eval harness's)
        self.out = Path(output_dir)
        self.stage, self.tokenizer, self.seed = stage, tokenizer, seed
        self.text_field, self.label_field = text_field, label_field
        # A resumed run continues its eval history (best so far, collapse trend): this stage's evals
        # as the earlier attempts left them (a fresh start forgets all before it, a resume those after it).
        recs = latest_attempts(load_metrics(self.out / "metrics.jsonl"))
        self.history = [r for r in recs if r.get("stage") == stage and r.get("kind") == "eval"]
        self.best = max((r for r in self.history if r["step"] > 0),
                        key=lambda r: (r.get(cfg.select_metric, 0.0), -r["step"]), default=None)
        self.done_steps = {r["step"] for r in self.history}
        self.collapse: dict[str, Any] | None = None
        self.trainer: Any = None  # set by the runner once built: its colocated vLLM engine samples evals

    def _align_history(self, step: int) -> None:
        """Forget evals the restarted run will redo: all of them on a fresh start (step 0), else
        those after the checkpoint it resumed from (their weights were lost with the crash)."""
        mark_attempt(self.out / "metrics.jsonl", self.stage, step)
        if step == 0:
            if self.history:
                self.history, self.best, self.done_steps = [], None, set()
            return
        self.history = [r for r in self.history if r["step"] <= step]
        self.done_steps = {r["step"] for r in self.history}

    def run_eval(self, model: Any, step: int, *, final: bool = False) -> dict[str, Any]:
        hcfg = dataclasses.replace(self.harness, seed=self.seed + step)
        llm = colocated_llm(self.trainer) if self.cfg.engine == "auto" and self.trainer is not None else None
        summary, traces = evaluate_policy(_unwrap(model), self.tokenizer, self.rows, hcfg, llm=llm,
                                          text_field=self.text_field, label_field=self.label_field)
        rec = {"stage": self.stage, "kind": "eval", "step": step, "final": final, **summary}
        append_jsonl(self.out / "metrics.jsonl", rec)
        self.history.append(rec)
        self.done_steps.add(step)
        evals = self.out / "evals"
        evals.mkdir(parents=True, exist_ok=True)
        (evals / f"step{step:05d}.json").write_text(json.dumps(rec, indent=2))
        if self.cfg.write_traces:
            write_rows(evals / f"step{step:05d}.traces.jsonl", traces)
        return rec

    def _after_eval(self, rec: dict[str, Any], model: Any, control: TrainerControl) -> None:
        metric = self.cfg.select_metric
        if rec["step"] > 0 and (self.best is None or rec.get(metric, 0.0) > self.best.get(metric, 0.0)):
            self.best = rec
            if self.cfg.save_best:
                best = self.out / "best"
                _unwrap(model).save_pretrained(best)
                self.tokenizer.save_pretrained(best)
                (best / "eval.json").write_text(json.dumps(rec, indent=2))
        findings = [f.to_dict() for f in detect_collapse(self.history)]
        kinds = collapse_kinds(findings)
        if kinds:
            # A collapse the starting policy already had (e.g. a base model that always answers one
            # class) is recorded but does not stop the run: the guard is for collapse *caused* by training.
            first = self.history[0]
            start = collapse_kinds([f.to_dict() for f in detect_collapse([first, first])]) \
                if first["step"] < rec["step"] else []
            new_kinds = [k for k in kinds if k not in start]
            self.collapse = {"step": rec["step"], "new": bool(new_kinds), "kinds": kinds, "findings": findings}
            append_jsonl(self.out / "metrics.jsonl", {"stage": self.stage, "kind": "collapse", **self.collapse})
            if self.cfg.stop_on_collapse and new_kinds:
                control.should_training_stop = True
        elif findings:  # warnings only (rising truncation, a dominant or vanishing class): recorded, no stop
            append_jsonl(self.out / "metrics.jsonl", {"stage": self.stage, "kind": "warning", "step": rec["step"],
                                                      "findings": findings})

    def on_train_begin(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                       model: Any = None, **kwargs: Any) -> None:
        if not state.is_world_process_zero:
            return
        self._align_history(state.global_step)
        if state.global_step not in self.done_steps:
            rec = self.run_eval(model, state.global_step)
            if state.global_step > 0:  # resumed mid-run: this eval can be the best so far
                self._after_eval(rec, model, control)

    def on_step_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                    model: Any = None, **kwargs: Any) -> None:
        every = self.cfg.every_steps
        if every > 0 and state.global_step % every == 0 and state.is_world_process_zero \
                and state.global_step not in self.done_steps:
            self._after_eval(self.run_eval(model, state.global_step), model, control)

    def on_train_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                     model: Any = None, **kwargs: Any) -> None:
        if not state.is_world_process_zero:
            return
        if state.global_step not in self.done_steps:
            self._after_eval(self.run_eval(model, state.global_step, final=True), model, control)
        final = next(r for r in reversed(self.history) if r["step"] == state.global_step)
        report = {"stage": self.stage, "final": final, "best": self.best, "collapse": self.collapse}
        (self.out / "final_eval.json").write_text(json.dumps(report, indent=2))


class ZeroTrainableGuard(TrainerCallback):
    """Stop after ``patience`` consecutive logged steps whose groups all had zero reward spread."""

    def __init__(self, patience: int = 10, output_dir: str | Path | None = None) -> None:
        self.patience, self.streak = patience, 0
        self.out = Path(output_dir) if output_dir else None

    def on_log(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
               logs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        if not logs or "frac_reward_zero_std" not in logs or self.patience <= 0:
            return
        self.streak = self.streak + 1 if logs["frac_reward_zero_std"] >= 0.999 else 0
        if self.streak >= self.patience:
            control.should_training_stop = True
            if self.out is not None and state.is_world_process_zero:
                append_jsonl(self.out / "metrics.jsonl", {"kind": "abort", "step": state.global_step,
                                                          "reason": f"{self.streak} zero-trainable steps"})


class NonFiniteGuard(TrainerCallback):
    """Skip an optimizer step whose gradients hold a NaN or inf; stop with one line when it persists.

    A NaN in one backward pass (session 4's 0.5B SFTs: finite losses, then NaN from step 26 or 34)
    would otherwise reach the weights and the Adam moments, the run would train on for many steps,
    save them as "final", and the next sampling eval would die in a CUDA assert (docs/gpu-notes.md).
    As AMP's ``GradScaler`` does, such a step is skipped before ``optimizer.step()``: every gradient
    is dropped (``torch.optim`` leaves parameters without a gradient untouched), a ``kind=skip``
    record names the step, and training goes on. ``max_skips`` skipped steps in a row, or a
    non-finite logged loss/grad norm of a step that was not skipped, stop the run: no NaN final.

    Where it came from: HF clips before ``on_pre_optimizer_step``, so by then one NaN has spread to
    every gradient. A post-accumulate hook on each parameter notes, as backward produces it, whether
    its gradient is finite (a tensor, no device sync; read once, only for a bad step), so the skip
    record names the micro-batch and the first parameters, in backward order, whose gradient went
    non-finite: the layers nearest the loss where it arose.
    """

    KEYS = ("loss", "grad_norm")

    def __init__(self, output_dir: str | Path | None = None, max_skips: int = 3) -> None:
        self.out = Path(output_dir) if output_dir else None
        self.max_skips = max_skips
        self.in_a_row = 0
        self.skipped: set[int] = set()
        self._flags: list[tuple[str, Any]] = []  # (parameter, finite?) per hook call this step, in order
        self._handles: list[Any] = []

    def on_train_begin(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                       model: Any = None, **kwargs: Any) -> None:
        if model is not None and not self._handles:
            self.watch(model)

    def on_train_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                     **kwargs: Any) -> None:
        for h in self._handles:
            h.remove()
        self._handles = []

    def watch(self, model: Any) -> None:
        """Hook every trainable parameter (``on_train_begin`` does this for a Trainer)."""
        import torch

        def hook_for(name: str) -> Any:
            def hook(p: Any) -> None:
                self._flags.append((name, torch.isfinite(p.grad).all()))
            return hook

        self._handles = [p.register_post_accumulate_grad_hook(hook_for(n))
                         for n, p in model.named_parameters() if p.requires_grad]

    @staticmethod
    def _origin(flags: list[tuple[str, Any]]) -> dict[str, Any]:
        """The micro-batch and the first parameters whose gradient went non-finite (backward order)."""
        import torch

        if not flags:
            return {}
        ok = torch.stack([f for _, f in flags]).tolist()
        seen: dict[str, int] = {}
        first: list[str] = []
        micro = None
        for (name, _), fine in zip(flags, ok, strict=True):
            k = seen[name] = seen.get(name, -1) + 1  # how many micro-batches this parameter saw before
            if not fine and micro is None:
                micro = k
            if not fine and k == micro and len(first) < 5:
                first.append(name)
        return {"micro_batch": micro, "first_nonfinite": first} if micro is not None else {}

    def _record(self, state: TrainerState, rec: dict[str, Any]) -> None:
        if self.out is not None and state.is_world_process_zero:
            append_jsonl(self.out / "metrics.jsonl", rec)

    def _stop(self, state: TrainerState, what: str) -> None:
        self._record(state, {"kind": "abort", "step": state.global_step, "reason": f"non-finite {what}"})
        raise WhowroteError(f"training diverged at step {state.global_step} ({what}); no final weights are "
                            f"saved: lower the learning rate or raise warmup (checkpoints before this step "
                            f"are kept)")

    def on_pre_optimizer_step(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                              model: Any = None, **kwargs: Any) -> None:
        import torch

        named = [(n, p.grad) for n, p in (model.named_parameters() if model is not None else ()) if p.grad is not None]
        # one device sync for all tensors; gradients are all-reduced already, so every rank agrees
        finite = torch.stack([torch.linalg.vector_norm(g.float()) for _, g in named]).isfinite() if named else None
        flags, self._flags = self._flags, []  # this step's hook records; the next step starts afresh
        if finite is None or bool(finite.all()):
            self.in_a_row = 0
            return
        origin = self._origin(flags)
        where = [named[i][0] for i in (~finite).nonzero().flatten().tolist()]
        step = state.global_step + 1  # the step this optimizer update would complete
        self.in_a_row += 1
        if self.in_a_row > self.max_skips:
            state.global_step = step
            self._stop(state, f"grad_norm = nan ({self.in_a_row} steps in a row)")
        for p in model.parameters():
            p.grad = None
        self.skipped.add(step)
        # HF clips before this hook: with max_grad_norm > 0 one non-finite gradient makes the total
        # norm, and so every clipped gradient, non-finite, and this list names every parameter;
        # `origin` (the hooks, before clipping) names where it arose, step_rows.py the step's rows
        self._record(state, {"kind": "skip", "step": step, "reason": "non-finite gradient",
                             "in_a_row": self.in_a_row, "n_params": len(where), "params": where[:5], **origin})

    def on_log(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
               logs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        bad = [k for k in self.KEYS if isinstance((logs or {}).get(k), (int, float)) and not math.isfinite(logs[k])]
        if bad and state.global_step not in self.skipped:
            self._stop(state, ", ".join(f"{k} = {logs[k]}" for k in bad))  # type: ignore[index]


class TimeLimitCallback(TrainerCallback):
    """Stop cleanly once ``max_minutes`` of training wall time have passed (checked after each step).

    A step is not started when the last one says it would end past the limit: steps of 20-40 s
    (several runs sharing a GPU) otherwise overran the limit by most of a step, and a job under a
    hard ``timeout`` was killed while writing its final weights (docs/gpu-notes.md, session 5).
    Under torch.distributed rank 0's clock decides and is broadcast, so every rank stops at the same
    step (ranks deciding on their own clocks could split and hang in the next collective).
    """

    def __init__(self, max_minutes: float, output_dir: str | Path | None = None) -> None:
        self.limit_s = max_minutes * 60.0
        self.out = Path(output_dir) if output_dir else None
        self.t0 = self.step_t0 = time.time()

    def on_train_begin(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                       **kwargs: Any) -> None:
        self.t0 = self.step_t0 = time.time()

    def on_step_begin(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                      **kwargs: Any) -> None:
        self.step_t0 = time.time()

    def on_step_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl,
                    **kwargs: Any) -> None:
        if self.limit_s <= 0 or control.should_training_stop:
            return
        now = time.time()
        over = now - self.t0 + (now - self.step_t0) >= self.limit_s  # would the next step end past it?
        import torch.distributed as dist

        if dist.is_available() and dist.is_initialized():
            import torch

            flag = torch.tensor([float(over)], device=args.device)
            dist.broadcast(flag, src=0)
            over = bool(flag.item())
        if over:
            control.should_training_stop = True
            # with intermediate checkpoints on, the stop leaves one, so `run.resume = "auto"` can go on
            # from this step in the next job (a 10-minute device call, a cluster slot)
            control.should_save = args.save_strategy == "steps"
            if self.out is not None and state.is_world_process_zero:
                append_jsonl(self.out / "metrics.jsonl", {"kind": "abort", "step": state.global_step,
                                                          "reason": f"time limit {self.limit_s / 60:g} min"})
