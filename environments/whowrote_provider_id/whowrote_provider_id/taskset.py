"""The task as a ``verifiers`` v1 taskset (``verifiers>=0.4``, the API prime-rl loads).

verifiers v1 loads a taskset by *id*: it imports the installed package named by the id
(``whowrote-provider-id`` -> ``whowrote_provider_id``) and takes the one ``Taskset`` subclass its
``__all__`` exports. This package is that: ``pip install environments/whowrote_provider_id``.

Scoring is :mod:`whowrote.task.rewards`, unchanged: ``correct_answer`` (weight 1.0: the gated,
finished-only correctness minus ``truncation_penalty`` on truncated rollouts) and the weight-0
diagnostics as metrics (``parsed_ok``, ``reason_ok``, ``finished``, ``pred_<label>``, ``truncated``).
The reply scored is ``trace.last_reply`` (the root agent's final answer).

The harness is verifiers' ``null`` harness (a plain chat loop: one request, one reply), exported
here so that it is the taskset's default and no ``[env.agent.harness]`` pin is needed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import verifiers.v1 as vf
from pydantic import model_validator
from verifiers.v1.harnesses.null.harness import NullHarness

from whowrote.task.cheatsheet import cheatsheet_from_style_model
from whowrote.task.examples import Example, load_examples
from whowrote.task.prompts import BINARY_LABELS, system_prompt
from whowrote.task.rewards import DIAGNOSTIC_TERMS, MIN_REASON_WORDS, reward_terms
from whowrote.types import PROVIDERS
from whowrote.typography import to_ascii

TASKSET_ID = "whowrote-provider-id"
LABEL_SCHEMES = {"binary": BINARY_LABELS, "provider3": PROVIDERS}
DATA_DIR_VARS = ("WHOWROTE_DATA_DIR", "BLOG_DATA_DIR")


class WhowroteData(vf.TaskData):
    answer: str
    """Gold: a provider label, or ``A=..;B=..[;C=..]`` for pair/trio rows."""
    task_type: str = "single"


class WhowroteTaskConfig(vf.TaskConfig):
    labels: list[str] = list(PROVIDERS)
    require_reason: bool = False
    min_reason_words: int = MIN_REASON_WORDS
    truncation_penalty: float = 0.0
    """Subtracted from the reward of a truncated rollout (the reference runs used 0.5)."""
    score_unfinished: bool = False
    """False: a truncated, looping or unclosed reply earns no accuracy reward."""


class WhowroteTask(vf.Task[WhowroteData, vf.State, WhowroteTaskConfig]):
    @property
    def key(self) -> str:
        return self.data.id or self.hash

    def terms(self, trace: vf.Trace) -> dict[str, float]:
        c = self.config
        return reward_terms(trace.last_reply, self.data.answer, labels=tuple(c.labels),
                            require_reason=c.require_reason, min_reason_words=c.min_reason_words,
                            truncated=trace.is_truncated, truncation_penalty=c.truncation_penalty,
                            score_unfinished=c.score_unfinished, info={"task_type": self.data.task_type})

    @vf.reward(weight=1.0)
    async def correct_answer(self, trace: vf.Trace) -> float:
        return self.terms(trace)["reward"]

    @vf.metric
    async def diagnostics(self, trace: vf.Trace) -> dict[str, float]:
        t = self.terms(trace)
        return {k: v for k, v in t.items() if k in (*DIAGNOSTIC_TERMS, "truncated") or k.startswith("pred_")}


class WhowroteTasksetConfig(vf.TasksetConfig):
    task: WhowroteTaskConfig = WhowroteTaskConfig()
    split: str = "train"
    """A split name (``<data_dir>/<split>.jsonl``) or a path to a JSONL file."""
    data_dir: str | None = None
    """Default: $WHOWROTE_DATA_DIR, else $BLOG_DATA_DIR, else ./data/splits."""
    label_scheme: str = "provider3"
    prompt_variant: str = "default"
    cheatsheet: bool | str = False
    """True: tells from whowrote's style model; a string: that cheatsheet text."""
    answer_only: bool = False
    limit: int | None = None

    @model_validator(mode="after")
    def _check(self) -> WhowroteTasksetConfig:
        if self.label_scheme not in LABEL_SCHEMES:
            raise ValueError(f"label_scheme must be one of {sorted(LABEL_SCHEMES)}, got {self.label_scheme!r}")
        if self.prompt_variant not in ("default", "lexical"):
            raise ValueError(f"prompt_variant must be 'default' or 'lexical', got {self.prompt_variant!r}")
        if self.prompt_variant == "lexical" and (self.label_scheme != "provider3" or self.answer_only):
            raise ValueError("prompt_variant='lexical' needs label_scheme='provider3' and answer_only=False")
        if self.answer_only and self.label_scheme != "provider3":
            raise ValueError("answer_only needs label_scheme='provider3'")
        return self


def split_path(split: str, data_dir: str | None = None) -> Path:
    p = Path(split)
    if p.suffix == ".jsonl" or p.is_file():
        return p
    base = data_dir or next((os.environ[v] for v in DATA_DIR_VARS if os.environ.get(v)), "data/splits")
    return Path(base) / f"{split}.jsonl"


def _cheatsheet_text(value: bool | str) -> str | None:
    if value is True:
        return cheatsheet_from_style_model()
    return value or None


def _row_system(ex: Example, cfg: WhowroteTasksetConfig, labels: tuple[str, ...], cheat: str | None) -> str:
    if ex.kind == "pair":
        pair = [lab for lab in PROVIDERS if lab in set(ex.gold.replace(";", "=").split("="))]
        return system_prompt("pair", pair, cheat)  # canonical order: no leak
    if ex.kind == "trio":
        return system_prompt("trio", labels, cheat)
    if cfg.answer_only:
        variant = "answer_only"
    elif cfg.prompt_variant == "lexical":
        variant = "lexical"
    else:
        variant = "binary" if cfg.label_scheme == "binary" else "3way"
    return system_prompt(variant, labels, cheat)


class WhowroteTaskset(vf.Taskset[WhowroteTask, WhowroteTasksetConfig]):
    def __init__(self, config: vf.TasksetConfig | None = None) -> None:
        # vf.load_taskset(vf.TasksetConfig(id=...)) hands over the plain base config: narrow it
        # (and validate our fields) instead of failing later on a missing attribute.
        if not isinstance(config, WhowroteTasksetConfig):
            config = WhowroteTasksetConfig.model_validate(config.model_dump() if config is not None else {})
        super().__init__(config)

    def load(self):
        cfg = self.config
        labels = LABEL_SCHEMES[cfg.label_scheme]
        cheat = _cheatsheet_text(cfg.cheatsheet)
        task_cfg = cfg.task.model_copy(update={"labels": list(labels)})
        for ex in load_examples(split_path(cfg.split, cfg.data_dir), labels, cfg.limit):
            if ex.prompt:  # per-row messages are used as they are; no env system prompt
                if cfg.answer_only:
                    raise ValueError("answer_only cannot be combined with per-row prompts")
                # the texts in ASCII typography, as build_messages writes them (whowrote.task.prompts)
                prompt = [dict(m, content=to_ascii(str(m.get("content", "")))) if m.get("role") == "user" else dict(m)
                          for m in ex.prompt]
                if cheat:
                    first = next((m for m in prompt if m.get("role") == "system"), None)
                    if first is not None:
                        first["content"] = f"{first['content']}\n\n{cheat}"
                data = WhowroteData(id=ex.id, prompt=prompt, answer=ex.gold, task_type=ex.kind)
            else:
                data = WhowroteData(id=ex.id, prompt=to_ascii(ex.text), system_prompt=_row_system(ex, cfg, labels, cheat),
                                    answer=ex.gold, task_type=ex.kind)
            yield WhowroteTask(data, task_cfg)


class WhowroteHarness(NullHarness):
    """verifiers' plain chat loop, exported so it is this taskset's default harness."""


def load_environment(config: Any = None, *, split: str = "train", data_dir: str | None = None,
                     label_scheme: str = "provider3", require_reason: bool = False,
                     min_reason_words: int = MIN_REASON_WORDS, cheatsheet: bool | str = False,
                     answer_only: bool = False, prompt_variant: str = "default",
                     limit: int | None = None, truncation_penalty: float = 0.0,
                     score_unfinished: bool = False) -> vf.Env:
    """The environment: pass a ``vf.EnvConfig``/dict, or the spec §2.1 keyword arguments."""
    if config is None:
        config = {"taskset": {
            "id": TASKSET_ID, "split": split, "data_dir": data_dir, "label_scheme": label_scheme,
            "cheatsheet": cheatsheet, "answer_only": answer_only, "prompt_variant": prompt_variant,
            "limit": limit,
            "task": {"require_reason": require_reason, "min_reason_words": min_reason_words,
                     "truncation_penalty": truncation_penalty, "score_unfinished": score_unfinished},
        }}
    return vf.load_environment(vf.resolve_env_config(config))
