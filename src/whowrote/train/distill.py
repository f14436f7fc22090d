"""The research system's other RL recipes on TRL's GRPOTrainer (spec §3.3-3.4, §3.6.4).

:class:`ResearchGRPOTrainer` subclasses ``trl.GRPOTrainer`` and changes two hooks only:

- ``_generate_and_score_completions``: after TRL's rollouts and Dr.GRPO advantages, optionally the
  research truncation penalty on the *advantage* (``-0.5`` on truncated rollouts, no re-centring)
  and, for the teacher modes, the teacher's per-token log-probabilities: the same live model
  scores the student's completion under the cheatsheet prompt (:mod:`whowrote.train.splice`);
- ``_compute_loss``: the research losses (:mod:`whowrote.train.losses`) for ``mode``:
  ``opcd`` (teacher gap as the advantage), ``rlsd`` / ``rlsd_anchored`` (sign of the verifier's
  advantage, weight from the teacher), or ``rl`` with the decayed surprisal bonus; ``rl`` without
  a bonus is TRL's own loss, untouched.

Recipes (``[research]`` section of a TOML config, next to the usual sections; see
configs/research/smollm2_opcd.toml and docs/research-recipes.md):

- OPCD / RLSD / RLSD-anchored: ``mode`` + ``cheatsheet`` (the teacher's only; student prompts and
  evals stay plain), optionally ``truncation_safe_reward`` (a cut-off completion earns nothing);
- cheatsheet GRPO (Design B): ``mode = "rl"``, ``cheatsheet_in_prompt = true``;
- pure-accuracy GRPO: ``mode = "rl"``, ``grpo.variant = "answer_only"``, ``surprisal_coef = 0.02``,
  ``truncation_advantage_penalty = 0.5``, ``grpo.max_completion_length = 32``.

With a cheatsheet, the run ends with the *internalization check*: the final policy evaluated on
val with and without the cheatsheet (``internalization.json``; traces under ``internalization/``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whowrote.train.config import TrainConfig, _apply, config_from_dict, load_raw
from whowrote.types import WhowroteError

MODES: tuple[str, ...] = ("rl", "opcd", "rlsd", "rlsd_anchored")
TEACHER_MODES: tuple[str, ...] = ("opcd", "rlsd", "rlsd_anchored")


@dataclass
class ResearchRecipe:
    mode: str = "rl"  # rl / opcd / rlsd / rlsd_anchored (spec §3.3 training_mode)
    cheatsheet: str = ""  # "" none; "default" (task.cheatsheet.DEFAULT_CHEATSHEET); "style" (from the style model); or a file
    cheatsheet_in_prompt: bool = False  # Design B: the policy sees the cheatsheet in its train prompts
    surprisal_coef: float = 0.0  # research 0.02; rare-token bonus on the advantage (mode rl only)
    surprisal_decay: bool = True  # hold to hold_frac of max_steps, then linear to floor at end_frac
    surprisal_hold_frac: float = 0.4
    surprisal_end_frac: float = 0.8
    surprisal_floor: float = 0.0
    truncation_advantage_penalty: float = 0.0  # research 0.5: on the advantage, no re-centring
    truncation_safe_reward: bool = False  # a truncated completion's reward is capped at 0
    internalization_check: bool = True  # with a cheatsheet: final val accuracy with and without it


def load_research_config(path: str | Path | None = None,
                         overrides: Sequence[str] = ()) -> tuple[TrainConfig, ResearchRecipe]:
    """A run config whose ``[research]`` section (and ``--set research.*``) becomes a ResearchRecipe."""
    raw = load_raw(path, overrides)
    recipe = ResearchRecipe()
    _apply(recipe, raw.pop("research", {}), "research")
    check_recipe(recipe)
    return config_from_dict(raw), recipe


def check_recipe(r: ResearchRecipe) -> None:
    """The research config validation: teacher modes need a cheatsheet, rl with one needs it in the prompt."""
    if r.mode not in MODES:
        raise WhowroteError(f"research.mode must be one of {', '.join(MODES)}, not {r.mode!r}")
    if r.mode in TEACHER_MODES and not r.cheatsheet:
        raise WhowroteError(f"research.mode = {r.mode!r} needs research.cheatsheet (the teacher's context)")
    if r.mode in TEACHER_MODES and r.cheatsheet_in_prompt:
        raise WhowroteError("the teacher modes keep student prompts plain: drop research.cheatsheet_in_prompt")
    if r.cheatsheet_in_prompt and not r.cheatsheet:
        raise WhowroteError("research.cheatsheet_in_prompt needs research.cheatsheet")
    if r.mode in TEACHER_MODES and r.surprisal_coef:
        raise WhowroteError("research.surprisal_coef applies to mode 'rl' only")


def resolve_cheatsheet(spec: str) -> str:
    if not spec:
        return ""
    from whowrote.task.cheatsheet import DEFAULT_CHEATSHEET, cheatsheet_from_style_model

    if spec == "default":
        return DEFAULT_CHEATSHEET
    if spec == "style":
        return cheatsheet_from_style_model()
    p = Path(spec)
    if not p.is_file():
        raise WhowroteError(f"research.cheatsheet: not 'default', 'style' or a file: {spec}")
    return p.read_text(encoding="utf-8")


def research_records(rows: Sequence[dict], *, variant: str, cheatsheet: str | None, labels: Sequence[str],
                     text_field: str = "text", label_field: str = "provider") -> list[dict]:
    """GRPO prompt records; curriculum rows (with a ``variant`` column) get their own prompts."""
    from whowrote.task.curricula import curriculum_messages
    from whowrote.task.prompts import build_messages

    out = []
    for r in rows:
        if r.get("task_type") and r.get("variant"):
            if cheatsheet:
                raise WhowroteError("curriculum rows carry their own prompts; the cheatsheet goes with plain rows")
            prompt = curriculum_messages(r)
        else:
            prompt = build_messages(str(r[text_field]), variant=variant, cheatsheet=cheatsheet, labels=labels)
        out.append({"prompt": prompt, "gold": r[label_field]})
    return out


def truncation_safe(func: Callable[..., list[float]], stop: Iterable[int] | None = None) -> Callable[..., list[float]]:
    """The reward capped at 0 on truncated completions: a ``truncated`` column, else TRL's
    ``completion_ids`` read with the model's ``stop`` ids (the test the reward itself uses)."""
    from whowrote.task.trl_rewards import truncated_flags

    stops = frozenset(int(i) for i in stop) if stop else None

    def wrapped(completions: list[Any], **kwargs: Any) -> list[float]:
        rewards = func(completions=completions, **kwargs)
        truncs = truncated_flags(kwargs, len(completions), stops)
        return [min(r, 0.0) if t else r for r, t in zip(rewards, truncs, strict=True)]

    wrapped.__name__ = wrapped.__qualname__ = func.__name__
    return wrapped


def truncated_rows(completion_ids: Any, completion_mask: Any, stop: set[int]) -> Any:
    """(B,) bool: no stop token among a completion's kept tokens, i.e. it hit the length cap."""
    import torch

    stops = torch.tensor(sorted(stop), device=completion_ids.device)
    return ~(torch.isin(completion_ids, stops) & completion_mask.bool()).any(dim=1)


def _trainer_class() -> type:
    from trl import GRPOTrainer

    from whowrote.train import losses

    class ResearchGRPOTrainer(GRPOTrainer):
        """GRPOTrainer with the research advantages, teacher log-probabilities and losses."""

        def __init__(self, *args: Any, research: ResearchRecipe, cheatsheet: str = "",
                     probe_texts: Sequence[str] = (), variant: str = "3way",
                     labels: Sequence[str] = (), stop: set[int] | None = None, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.research, self._stop = research, stop or {self.processing_class.eos_token_id}
            self.splice = None
            if research.mode in TEACHER_MODES:
                from whowrote.train.splice import build_splice

                self.splice = build_splice(self.processing_class, cheatsheet, probe_texts, variant=variant,
                                           labels=tuple(labels) or ("CLAUDE", "CHATGPT", "GEMINI"),
                                           template_kwargs=self.chat_template_kwargs)

        def _generate_and_score_completions(self, inputs: list[dict]) -> dict[str, Any]:
            out = super()._generate_and_score_completions(inputs)
            r = self.research
            if r.truncation_advantage_penalty and self.model.training:
                trunc = truncated_rows(out["completion_ids"], out["completion_mask"], self._stop)
                out["advantages"] = losses.truncation_advantages(out["advantages"], trunc, r.truncation_advantage_penalty)
            if self.splice is not None:
                out["teacher_per_token_logps"] = self._teacher_logps(out)
            return out

        def _teacher_logps(self, out: dict[str, Any]) -> Any:
            import torch

            pad = self.processing_class.pad_token_id
            prompts = [ids[m.bool()].tolist() for ids, m in zip(out["prompt_ids"], out["prompt_mask"], strict=True)]
            teacher = [self.splice.teacher_ids(p) for p in prompts]
            width = max(len(t) for t in teacher)
            dev = out["prompt_ids"].device
            ids = torch.tensor([[pad] * (width - len(t)) + t for t in teacher], device=dev)
            mask = torch.tensor([[0] * (width - len(t)) + [1] * len(t) for t in teacher], device=dev)
            comp, comp_mask = out["completion_ids"], out["completion_mask"]
            with torch.no_grad():
                logps, _, _ = self._get_per_token_logps_and_entropies(
                    self.model, torch.cat([ids, comp], dim=1), torch.cat([mask, comp_mask], dim=1), comp.size(1),
                    batch_size=self.args.per_device_train_batch_size)
            return logps

        def _compute_loss(self, model: Any, inputs: dict[str, Any]) -> Any:
            r = self.research
            if r.mode == "rl" and not r.surprisal_coef:
                return super()._compute_loss(model, inputs)
            import torch

            comp, comp_mask = inputs["completion_ids"], inputs["completion_mask"]
            logp, _, _ = self._get_per_token_logps_and_entropies(
                model, torch.cat([inputs["prompt_ids"], comp], dim=1),
                torch.cat([inputs["prompt_mask"], comp_mask], dim=1), comp.size(1))
            # The sampler's log-probs: vLLM's when TRL has them (unscorable tokens NaN -> the trainer's),
            # else the trainer's at sampling time, else (on-policy) the current ones, detached.
            logp_inf = inputs.get("sampling_per_token_logps")
            if logp_inf is None:
                logp_inf = inputs.get("old_per_token_logps")
            logp_inf = logp.detach() if logp_inf is None else torch.where(torch.isnan(logp_inf), logp.detach(), logp_inf)
            mask, adv = comp_mask.to(logp.dtype), inputs["advantages"]
            if r.mode == "rl":
                coef = (losses.surprisal_coef(self.state.global_step, self.args.max_steps, r.surprisal_coef,
                                              r.surprisal_hold_frac, r.surprisal_end_frac, r.surprisal_floor)
                        if r.surprisal_decay else r.surprisal_coef)
                per_token, metrics = losses.dppo_loss(logp, logp_inf, losses.surprisal_advantages(adv, logp_inf, coef),
                                                      mask)
                metrics["surprisal_coef"] = coef
            elif r.mode == "opcd":
                per_token, metrics = losses.opcd_loss(logp, logp_inf, inputs["teacher_per_token_logps"], mask)
            else:
                per_token, metrics = losses.rlsd_loss(logp, logp_inf, inputs["teacher_per_token_logps"], adv, mask,
                                                      anchored=r.mode == "rlsd_anchored")
            mode = "train" if self.model.training else "eval"
            loss = (per_token * mask).sum() / (per_token.size(0) * self.max_completion_length)
            if mode == "train":
                loss = loss / self.current_gradient_accumulation_steps
            for k, v in metrics.items():
                self._metrics[mode][f"research/{k}"].append(float(v))
            return loss

    return ResearchGRPOTrainer


def internalization_check(model: Any, tokenizer: Any, rows: Sequence[dict], cfg: TrainConfig, cheatsheet: str,
                          out: Path, step: int) -> dict[str, Any]:
    """Val accuracy of the policy after ``step`` training steps with and without the cheatsheet (the eval
    harness, traces kept under ``internalization/stepNNNNN/``). The step names the folder because the
    harness resumes the traces it finds: a run resumed over several calls would otherwise reuse the first
    call's traces for later weights (session 9 did, until this)."""
    from whowrote.llm.backends import TransformersBackend
    from whowrote.llm.evaluate import run_eval
    from whowrote.train.data import write_rows
    from whowrote.train.evaluation import harness_config

    ev, d = cfg.eval, cfg.data
    here = out / "internalization" / f"step{step:05d}"
    split = write_rows(here / "val.jsonl",
                       [{"id": str(r.get("id", i)), "text": r[d.text_field], "provider": r[d.label_field],
                         "genre": r.get("genre", ""), "topic": r.get("topic", ""), "category": r.get("category", ""),
                         "model": r.get("model", "")} for i, r in enumerate(rows)])
    hcfg = harness_config(dataclasses.replace(ev, variant=ev.variant or cfg.grpo.variant), d.labels, split=str(split),
                          seed=cfg.run.seed, dtype=cfg.model.dtype, chat_template_kwargs=cfg.model.chat_template_kwargs)
    backend = TransformersBackend(model, tokenizer, batch_size=hcfg.batch_size, template_kwargs=hcfg.chat_template_kwargs)
    result: dict[str, Any] = {"step": step}
    for name, sheet in (("with_cheatsheet", cheatsheet), ("without_cheatsheet", None)):
        summary = run_eval(dataclasses.replace(hcfg, out=str(here / name), cheatsheet=sheet),
                           backend=backend)
        result[name] = {k: summary.get(k) for k in ("accuracy", "macro_recall", "truncation_rate", "pred_share")}
    result["internalized_share"] = (round(result["without_cheatsheet"]["accuracy"] / result["with_cheatsheet"]["accuracy"], 4)
                                    if result["with_cheatsheet"]["accuracy"] else None)
    (out / "internalization.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def run_research(cfg: TrainConfig, recipe: ResearchRecipe, *, stage: str = "research",
                 train_rows: list[dict] | None = None) -> Path:
    """One research recipe run (see the module docstring); returns the final model dir."""
    import os

    from whowrote.llm.backends import stop_ids
    from whowrote.train.callbacks import ZeroTrainableGuard
    from whowrote.train.data import read_rows, to_dataset
    from whowrote.train.grpo import build_grpo_config, reward_funcs, seed_colocated_sampler
    from whowrote.train.runner import Prepared, run_recipe

    check_recipe(recipe)
    if (recipe.mode != "rl" or recipe.surprisal_coef) and (cfg.grpo.beta or cfg.grpo.entropy_coef):
        raise WhowroteError("the research losses have no reference KL or TRL entropy bonus: "
                            "set grpo.beta = 0 and grpo.entropy_coef = 0 (use research.surprisal_coef)")
    cheat = resolve_cheatsheet(recipe.cheatsheet)
    if train_rows is None and cfg.data.train:
        rows = read_rows(cfg.data.train)
        if rows and rows[0].get("task_type"):  # a curriculum: its order and per-row tasks are the point
            from whowrote.task.curricula import STEP_ROWS

            if cfg.grpo.prompts_per_step != STEP_ROWS or not cfg.grpo.balanced_batches:
                raise WhowroteError(f"{cfg.data.train} is a curriculum of {STEP_ROWS}-row steps: set "
                                    f"grpo.prompts_per_step = {STEP_ROWS} and grpo.balanced_batches = true (order kept)")
            train_rows = rows
    g, d = cfg.grpo, cfg.data
    built: dict[str, Any] = {}  # the trainer and its data, for the internalization check after training

    def build(prep: Prepared, cbs: list[Any]) -> Any:
        stop = stop_ids(prep.tokenizer, prep.model)
        funcs = reward_funcs(cfg, stop)  # the [grpo] reward settings, built as plain GRPO builds them
        if recipe.truncation_safe_reward:
            funcs[0] = truncation_safe(funcs[0], stop)
        if recipe.mode != "opcd":  # OPCD's gradient is the teacher gap: equal rewards do not make a step idle
            cbs = [*cbs, ZeroTrainableGuard(g.zero_trainable_patience, prep.out)]
        records = research_records(prep.train_rows, variant=g.variant, labels=d.labels,
                                   cheatsheet=cheat if recipe.cheatsheet_in_prompt else None,
                                   text_field=d.text_field, label_field=d.label_field)
        trainer = _trainer_class()(
            model=prep.model, reward_funcs=funcs,
            args=build_grpo_config(cfg, funcs, world_size=int(os.environ.get("WORLD_SIZE", "1"))),
            train_dataset=to_dataset(records), processing_class=prep.tokenizer, callbacks=cbs,
            research=recipe, cheatsheet=cheat, probe_texts=[str(r[d.text_field]) for r in prep.train_rows[:12]],
            variant=g.variant, labels=d.labels, stop=stop)
        seed_colocated_sampler(trainer)
        (prep.out / f"research.{stage}.json").write_text(json.dumps(dataclasses.asdict(recipe), indent=2) + "\n")
        built.update(prep=prep, trainer=trainer)
        return trainer

    eval_cfg = dataclasses.replace(cfg.eval, variant=cfg.eval.variant or g.variant,
                                   require_reason=cfg.eval.require_reason or g.require_reason)
    final = run_recipe(cfg, stage, build, eval_cfg=eval_cfg, train_rows=train_rows)
    prep, trainer = built["prep"], built["trainer"]
    if cheat and recipe.internalization_check and prep.val_rows and trainer.is_world_process_zero():
        internalization_check(prep.model, prep.tokenizer, prep.val_rows, cfg, cheat, prep.out,
                              step=trainer.state.global_step)
    return final
