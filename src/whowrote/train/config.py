"""Typed run configs for every recipe, loadable from TOML (``configs/*.toml``).

One file describes one run. Sections map one-to-one onto the dataclasses below; every field has
a default, so a config only states what it changes. ``--set section.key=value`` on the command
line overrides a field after the file is read (values are parsed as TOML literals, so
``--set grpo.lr=2e-6`` and ``--set data.labels=["CLAUDE","CHATGPT"]`` both work).

Defaults are the *small-model* settings used on one GPU here (SmolLM2-135M); the research
system's full-scale values are in ``configs/qwen35_9b_*.toml`` and quoted in the field comments.
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from whowrote.types import PROVIDERS, WhowroteError


@dataclass
class ModelConfig:
    name_or_path: str = ""  # HF id, local directory, or a directory/file holding a .gguf
    gguf_file: str = ""  # file name inside name_or_path when it is a GGUF checkpoint
    dtype: str = "bfloat16"  # "float32" on CPU tests; bf16 everywhere on GPUs
    gradient_checkpointing: bool = False  # the 9B recipe turns this on (spec §3.1)
    # "" = transformers' default ("flash_attention_2" at 9B scale); "sdpa_unpadded" = SDPA's flash
    # kernel on left-padded batches (whowrote.train.attention; GRPO's optimisation pass)
    attn_implementation: str = ""
    # Passed to the chat template everywhere this run renders a prompt (SFT data, GRPO rollouts,
    # in-loop eval, STaR), so training and eval prompts match; Qwen3.5 needs thinking off (spec §2.5).
    chat_template_kwargs: dict[str, Any] = field(default_factory=lambda: {"enable_thinking": False})


@dataclass
class DataConfig:
    train: str = ""  # JSONL(.gz) with at least text + provider columns (``whowrote data split``)
    val: str = ""  # in-loop / final eval split
    text_field: str = "text"
    label_field: str = "provider"
    labels: list[str] = field(default_factory=lambda: list(PROVIDERS))
    max_text_tokens: int = 2048  # texts cut to this many tokens (spec: bodies <= 3000 tokens at 9B)
    n_train: int = 0  # 0 = every usable row; else a provider-balanced subset of this size
    balance: bool = True  # subsample train to equal counts per provider
    seed: int = 0


@dataclass
class InLoopEval:
    """``[eval]``: when and how the policy is evaluated during training. The sampling fields are
    the harness's (:class:`whowrote.llm.config.EvalConfig`, built by
    :func:`whowrote.train.evaluation.harness_config`); the rest is the training loop's."""

    every_steps: int = 0  # 0 = only before and after training; research: every 4 RL steps
    n_val: int = 0  # 0 = the whole val split; else a provider-balanced subset
    variant: str = ""  # prompt variant for eval; "" = the recipe's own variant (3way for base evals)
    k: int = 1  # samples per text (pass@k); research in-loop eval used group 2
    temperature: float = 0.7  # spec §4.5: greedy eval causes deliberation loops
    top_p: float = 0.95
    max_new_tokens: int = 256  # research: 4096
    batch_size: int = 64  # prompts per generate() call
    # "auto": a GRPO run's colocated vLLM engine (this step's weights synced into it) when it has one,
    # else HF generate; "transformers": always HF generate (session 5: 40-60 s per 120-text eval)
    engine: str = "auto"
    require_reason: bool = False  # score with the reasoning gate (gated accuracy)
    select_metric: str = "accuracy"  # summary key used for best-checkpoint selection
    stop_on_collapse: bool = True  # early stop when the collapse detector fires
    save_best: bool = True  # keep the best-val weights in <output_dir>/best
    write_traces: bool = True  # per-example JSONL of every eval


@dataclass
class RunConfig:
    output_dir: str = "runs/default"
    seed: int = 0
    resume: str = "auto"  # "auto" = last checkpoint in output_dir if any; "" = fresh; or a path
    logging_steps: int = 1
    save_steps: int = 0  # 0 = no intermediate checkpoints (only final + best)
    save_total_limit: int = 2
    report_to: str = "none"  # "wandb" only when asked for
    bf16: str = "auto"  # "auto" = bf16 when a CUDA device is present
    save_final: bool = True  # write the final weights to <output_dir>/final
    max_minutes: float = 0.0  # > 0: stop cleanly (final eval + save) after this much training wall time
    # optimizer steps in a row whose gradients hold a NaN/inf that are skipped (weights and optimizer
    # state left untouched, as AMP's GradScaler does) before the run stops as diverged; 0 = stop at once
    max_nonfinite_skips: int = 3
    # > 0: torch.profiler records this many optimizer steps from step 2 and writes profile.txt/.json
    # into output_dir (whowrote.train.profiling; slows those steps, so a measuring run's switch)
    profile_steps: int = 0


@dataclass
class SFTRecipe:
    target: str = "answer_only"  # "answer_only": <answer>GOLD</answer>; "rationale": the row's rationale field
    variant: str = ""  # prompt variant; "" = answer_only for answer targets, 3way for rationales
    rationale_field: str = "rationale"
    lr: float = 1e-4  # research 9B: 1e-5 cosine
    epochs: float = 2.0
    max_steps: int = -1  # > 0 overrides epochs (research: 200 steps; cold start 60)
    batch_size: int = 8  # per device; research: 16 (micro 1)
    grad_accum: int = 1
    scheduler: str = "cosine"
    warmup_steps: int = 0  # research: 20 (10 for cold start)
    weight_decay: float = 0.01
    max_grad_norm: float = 1.0
    # [sft.trl]: any SFTConfig field, spelled as TRL spells it, passed straight through (it wins
    # over the fields above), e.g. [sft.trl] neftune_noise_alpha = 5
    trl: dict[str, Any] = field(default_factory=dict)


@dataclass
class GRPORecipe:
    """The research "control" recipe (spec §3.2) mapped onto TRL's GRPOConfig (see docs/train.md)."""

    variant: str = "3way"
    num_generations: int = 8  # G; research: 8 (early) or 12
    prompts_per_step: int = 12  # batch = G * prompts_per_step rollouts; research 96/8 or 144/12
    micro_batch: int = 0  # completions per forward/backward; 0 = the whole step in one micro-batch
    lr: float = 1e-6
    max_steps: int = 40
    max_completion_length: int = 256  # research: 4096
    temperature: float = 1.0
    top_p: float = 1.0
    loss_type: str = "dr_grpo"  # sum over tokens / constant: no length bias (Dr.GRPO)
    scale_rewards: str = "none"  # A = r - mean(r), no std division (Dr.GRPO)
    beta: float = 0.0  # no reference-policy KL, as in the research recipe
    epsilon: float = 0.2  # PPO clip; the research DPPO mask used 0.2 on probability differences
    require_reason: bool = False  # multiplicative reasoning gate (>= 12 distinct words)
    truncation_penalty: float = 0.0  # subtracted from the reward of truncated rollouts (0.5 in research)
    score_unfinished: bool = False  # False: truncated / looping / unclosed completions earn no accuracy reward
    # a wrong answer naming a class the step's rollouts over-answer loses up to this much reward, and
    # a completion without a finished answer the most any wrong one loses
    # (whowrote.task.trl_rewards.majority_penalties): against the one-class drift of GRPO at 0.5B
    majority_penalty: float = 0.0
    # TRL reward weight of faithful_claims: the share of a finished rationale's checkable style claims
    # true of its text (whowrote.task.trl_rewards.faithfulness_func); 0 = off (the metric is still evaluated)
    faithfulness_weight: float = 0.0
    # with faithfulness_weight: pay a claim only if it is true of the text and not of another text of the
    # batch (grounded_claims; at 0.5B the plain share was as high against another text)
    faithfulness_grounded: bool = False
    entropy_coef: float = 0.0  # TRL's entropy bonus (research: surprisal bonus 0.02, decayed)
    mask_truncated_completions: bool = False  # DAPO-style: truncated rollouts give no gradient
    balanced_batches: bool = True  # each step's prompts are provider-balanced (data order kept)
    zero_trainable_patience: int = 10  # abort after this many consecutive all-zero-advantage steps
    warmup_steps: int = 0
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    use_vllm: bool = False  # generate with vLLM (TRL's vllm-serve server or colocated)
    vllm_mode: str = "server"  # "server": `trl vllm-serve` on other GPUs; "colocate": same GPUs
    vllm_server_base_url: str = ""  # e.g. "http://localhost:8300"; "" = TRL's host/port defaults
    # [grpo.trl]: any GRPOConfig field, spelled as TRL spells it, passed straight through (it wins
    # over the fields above), e.g. [grpo.trl] vllm_gpu_memory_utilization = 0.3
    trl: dict[str, Any] = field(default_factory=dict)


STAR_MODES = ("star", "hint", "goldcond", "tells", "fallback")
LM_FREE_STAR_MODES = ("tells", "fallback")  # built from the texts alone: no model is loaded


@dataclass
class StarRecipe:
    """STaR self-distillation data (spec §1.9 D3), gold-conditioned rationales (D1), and the two
    cold starts built without the LM: the style model's measured tells ("tells") and the fixed D1
    sentence for every text ("fallback")."""

    # "star": plain prompt, gold only gates; "hint": + cheatsheet; "goldcond": a note states the gold;
    # "tells": rationale = the bundled style model's measured tells supporting the gold (no LM);
    # "fallback": rationale = the fixed D1 fallback sentence for every text (no LM)
    mode: str = "star"
    variant: str = "3way"
    k: int = 4  # samples per text (research: 3)
    temperature: float = 0.7
    top_p: float = 0.95
    max_new_tokens: int = 256  # research: 400
    min_correct: int = 0  # 0 = max(2, ceil(k/2)) as in the research builder
    require_majority: bool = True  # majority vote must equal gold
    min_words: int = 12
    max_words: int = 110
    min_unique_frac: float = 0.5
    reject_label_in_reason: bool = True  # a rationale naming a provider label leaks the answer
    cap_per_class: int = -1  # -1 = cap at the smallest class (balanced); 0 = no cap; else this cap
    round2: str = ""  # retry round-1 rejects: "hint" (cheatsheet, research D3) or "goldcond" (D1-style); "" = none
    fallback_rationale: bool = False  # goldcond only: unclean rationales become the D1 fallback sentence
    fallback_round: str = ""  # "goldcond": run when fewer than min_rows survive (with the D1 fallback sentence)
    min_rows: int = 0  # capped rows below which fallback_round runs
    out: str = ""  # JSONL of kept SFT rows; "" = <output_dir>/star.jsonl
    backend: str = "transformers"  # "vllm": sample on vLLM (GPU) from model.name_or_path's folder
    tells_min: int = 2  # mode "tells": texts with fewer supporting tells are dropped (counted in the stats)
    tells_max: int = 4  # mode "tells": at most this many tells (one sentence each) per rationale
    style_model: str = ""  # mode "tells": a saved style model (whowrote train-probe); "" = the bundled one
    # mode "tells": open the rationale with the verdict ("The writing reads as CLAUDE's."), tells after it,
    # so the SFT teaches the decision before any measurement the LM would have to make up
    verdict_first: bool = False


@dataclass
class ColdStartRecipe:
    sft_max_steps: int = 60  # research: 60 steps (under one epoch) on STaR traces
    generate: bool = True  # build the STaR data first (else data.train already holds rationales)
    stages: list[str] = field(default_factory=lambda: ["star", "sft", "grpo"])  # run only these (resume)


@dataclass
class TrainConfig:
    model: ModelConfig = field(default_factory=ModelConfig)
    data: DataConfig = field(default_factory=DataConfig)
    eval: InLoopEval = field(default_factory=InLoopEval)
    run: RunConfig = field(default_factory=RunConfig)
    sft: SFTRecipe = field(default_factory=SFTRecipe)
    grpo: GRPORecipe = field(default_factory=GRPORecipe)
    star: StarRecipe = field(default_factory=StarRecipe)
    coldstart: ColdStartRecipe = field(default_factory=ColdStartRecipe)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _apply(section: Any, values: dict[str, Any], where: str) -> None:
    known = {f.name: f for f in dataclasses.fields(section)}
    for key, value in values.items():
        if key not in known:
            raise WhowroteError(f"unknown config key {where}.{key}; known: {sorted(known)}")
        current = getattr(section, key)
        # TOML ints are fine where floats are expected (lr = 1 would be odd but legal).
        if isinstance(current, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if current is not None and not isinstance(value, type(current)):
            raise WhowroteError(f"{where}.{key} must be {type(current).__name__}, got {value!r}")
        setattr(section, key, value)


def config_from_dict(raw: dict[str, Any]) -> TrainConfig:
    cfg = TrainConfig()
    for name, values in raw.items():
        if not hasattr(cfg, name):
            raise WhowroteError(f"unknown config section [{name}]")
        if not isinstance(values, dict):
            raise WhowroteError(f"[{name}] must be a table of settings, got {name} = {values!r}")
        _apply(getattr(cfg, name), values, name)
    validate(cfg)
    return cfg


# (section.key, test, what it must be): checked on load, before torch or TRL is imported, so a
# bad value is one line in a fraction of a second instead of a traceback after the model loads
# (or a run that "trains" at lr 0 and saves an untrained final model).
_RULES: tuple[tuple[str, Any, str], ...] = (
    ("sft.lr", lambda v: math.isfinite(v) and v > 0, "a finite number > 0"),
    ("sft.epochs", lambda v: math.isfinite(v) and v >= 1, "a finite number >= 1"),
    ("sft.batch_size", lambda v: v >= 1, "at least 1"),
    ("sft.grad_accum", lambda v: v >= 1, "at least 1"),
    ("sft.warmup_steps", lambda v: v >= 0, ">= 0"),
    ("sft.weight_decay", lambda v: math.isfinite(v) and v >= 0, "a finite number >= 0"),
    ("sft.max_grad_norm", lambda v: math.isfinite(v) and v > 0, "a finite number > 0"),
    ("grpo.lr", lambda v: math.isfinite(v) and v > 0, "a finite number > 0"),
    ("grpo.num_generations", lambda v: v >= 2, "at least 2 (a group needs two rollouts)"),
    ("grpo.prompts_per_step", lambda v: v >= 1, "at least 1"),
    ("grpo.micro_batch", lambda v: v >= 0, ">= 0 (0 = the whole step)"),
    ("grpo.max_steps", lambda v: v >= 1, "at least 1"),
    ("grpo.max_completion_length", lambda v: v >= 1, "at least 1"),
    ("grpo.temperature", lambda v: math.isfinite(v) and v > 0, "a finite number > 0"),
    ("grpo.top_p", lambda v: 0 < v <= 1, "in (0, 1]"),
    ("grpo.truncation_penalty", lambda v: math.isfinite(v) and v >= 0, "a finite number >= 0"),
    ("grpo.majority_penalty", lambda v: math.isfinite(v) and v >= 0, "a finite number >= 0"),
    ("grpo.faithfulness_weight", lambda v: math.isfinite(v) and v >= 0, "a finite number >= 0"),
    ("grpo.max_grad_norm", lambda v: math.isfinite(v) and v > 0, "a finite number > 0"),
    ("eval.k", lambda v: v >= 1, "at least 1"),
    ("eval.max_new_tokens", lambda v: v >= 1, "at least 1"),
    ("eval.batch_size", lambda v: v >= 1, "at least 1"),
    ("eval.temperature", lambda v: math.isfinite(v) and v >= 0, "a finite number >= 0"),
    ("eval.top_p", lambda v: 0 < v <= 1, "in (0, 1]"),
    ("eval.every_steps", lambda v: v >= 0, ">= 0"),
    ("eval.engine", lambda v: v in ("auto", "transformers"), 'one of "auto", "transformers"'),
    ("star.k", lambda v: v >= 1, "at least 1"),
    ("star.max_new_tokens", lambda v: v >= 1, "at least 1"),
    ("star.mode", lambda v: v in STAR_MODES, f"one of {', '.join(STAR_MODES)}"),
    ("star.tells_min", lambda v: v >= 1, "at least 1"),
    ("star.tells_max", lambda v: v >= 1, "at least 1"),
    ("coldstart.sft_max_steps", lambda v: v >= 1, "at least 1"),
    ("run.max_minutes", lambda v: math.isfinite(v) and v >= 0, "a finite number >= 0"),
    ("run.max_nonfinite_skips", lambda v: v >= 0, ">= 0"),
    ("run.profile_steps", lambda v: v >= 0, ">= 0 (0 = off)"),
)


def validate(cfg: TrainConfig) -> TrainConfig:
    """Raise a one-line WhowroteError for the first out-of-range value (see ``_RULES``)."""
    for dotted, ok, want in _RULES:
        section, key = dotted.split(".")
        value = getattr(getattr(cfg, section), key)
        if not ok(value):
            raise WhowroteError(f"{dotted} must be {want}, got {value!r}")
    if cfg.star.tells_min > cfg.star.tells_max:
        raise WhowroteError(f"star.tells_min ({cfg.star.tells_min}) must be <= star.tells_max ({cfg.star.tells_max})")
    if cfg.sft.max_steps == 0 or cfg.sft.max_steps < -1:
        raise WhowroteError(f"sft.max_steps must be -1 (use sft.epochs) or at least 1, got {cfg.sft.max_steps}")
    if cfg.grpo.faithfulness_grounded and not cfg.grpo.faithfulness_weight:
        raise WhowroteError("grpo.faithfulness_grounded needs grpo.faithfulness_weight > 0 (it shapes that reward)")
    _validate_task(cfg)
    return cfg


SFT_TARGETS = ("answer_only", "rationale")


def check_balanced_steps(cfg: TrainConfig) -> None:
    """Provider-balanced GRPO steps need ``prompts_per_step`` a multiple of the labels (also checked
    where the batch plan is made, for configs built in code without :func:`validate`)."""
    n = len(cfg.data.labels)
    if cfg.grpo.balanced_batches and cfg.grpo.prompts_per_step % n:
        raise WhowroteError(f"grpo.prompts_per_step={cfg.grpo.prompts_per_step} must be a multiple of "
                            f"{n} labels for provider-balanced steps (grpo.balanced_batches)")


def _validate_task(cfg: TrainConfig) -> None:
    """The labels, prompt variant and SFT target: checked here, not after the model has loaded."""
    from whowrote.task.prompts import SINGLE_VARIANTS  # stdlib-only, like this module

    labels = cfg.data.labels
    if (not all(isinstance(v, str) and v in PROVIDERS for v in labels) or len(set(labels)) != len(labels)
            or len(labels) < 2):
        raise WhowroteError(f"data.labels must be at least 2 distinct of {', '.join(PROVIDERS)}, got {labels!r}")
    if cfg.grpo.variant not in SINGLE_VARIANTS:
        raise WhowroteError(f"grpo.variant must be one of {', '.join(SINGLE_VARIANTS)}, got {cfg.grpo.variant!r}")
    check_balanced_steps(cfg)
    if cfg.sft.target not in SFT_TARGETS:
        raise WhowroteError(f"sft.target must be one of {', '.join(SFT_TARGETS)}, got {cfg.sft.target!r}")


def parse_override(item: str) -> tuple[str, str, Any]:
    """``section.key=value`` -> (section, key, value); the value is read as a TOML literal."""
    if "=" not in item or "." not in item.split("=", 1)[0]:
        raise WhowroteError(f"override {item!r} must look like section.key=value")
    dotted, raw = item.split("=", 1)
    section, key = dotted.strip().split(".", 1)
    try:
        value = tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()  # a bare word is a string: --set model.name_or_path=runs/x
    return section, key, value


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> TrainConfig:
    return config_from_dict(load_raw(path, overrides))


def load_raw(path: str | Path | None = None, overrides: Sequence[str] | None = None) -> dict[str, Any]:
    """The TOML file as a dict with the ``--set SECTION.KEY=VALUE`` overrides applied (one-line errors)."""
    raw: dict[str, Any] = {}
    if path:
        p = Path(path)
        if not p.is_file():
            raise WhowroteError(f"config file not found: {p}")
        try:
            with p.open("rb") as fh:
                raw = tomllib.load(fh)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise WhowroteError(f"{p}: invalid TOML: {e}") from None
    for item in overrides or []:
        section, key, value = parse_override(item)
        if not isinstance(raw.setdefault(section, {}), dict):
            raise WhowroteError(f"[{section}] must be a table of settings, got {section} = {raw[section]!r}")
        target = raw[section]
        *tables, key = key.split(".")  # grpo.trl.beta=0.1 sets a key of the [grpo.trl] table
        for name in tables:
            target = target.setdefault(name, {})
            if not isinstance(target, dict):
                raise WhowroteError(f"override {item!r}: {section}.{name} is not a table")
        target[key] = value
    return raw


def dump_toml(cfg: TrainConfig) -> str:
    """The resolved config as TOML (written beside every run for reproducibility)."""
    lines: list[str] = []
    for section, values in cfg.to_dict().items():
        lines.append(f"[{section}]")
        for key, value in values.items():
            lines.append(f"{key} = {_toml_value(value)}")
        lines.append("")
    return "\n".join(lines)


def _toml_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    escaped = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
