"""The task as a ``verifiers`` v1 taskset (``verifiers>=0.4``, the API prime-rl loads).

verifiers v1 loads a taskset by *id*: it imports the module named by the id and takes the one
``Taskset`` subclass its ``__all__`` exports. Ids must be top-level module names (a dotted id
fails inside verifiers' plugin import), so this module registers itself as
``whowrote_provider_id`` when imported; a top-level shim package of that name makes the id
importable in fresh worker processes too (see docs/eval.md).

Scoring is :mod:`whowrote.task.rewards`, unchanged: ``correct_answer`` (weight 1.0, with the
optional multiplicative reasoning gate) and the weight-0 diagnostics as metrics
(``parsed_ok``, ``reason_ok``, ``pred_<label>``, ``truncated``).

The harness is verifiers' ``null`` harness (a plain chat loop: one request, one reply), exported
here so that it is the taskset's default and no ``[env.agent.harness]`` pin is needed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import verifiers.v1 as vf
from pydantic import model_validator
from verifiers.v1.harnesses.null.harness import NullHarness

from whowrote.task.cheatsheet import cheatsheet_from_style_model
from whowrote.task.examples import Example, load_examples
from whowrote.task.prompts import BINARY_LABELS, system_prompt
from whowrote.task.rewards import MIN_REASON_WORDS, reward_terms
from whowrote.types import PROVIDERS

TASKSET_ID = "whowrote_provider_id"
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


def trace_completion(trace: Any) -> list[dict]:
    """The trace's model replies as plain message dicts (what our parsers read)."""
    msgs = list(getattr(trace, "assistant_messages", []) or [])
    if not msgs:
        msgs = [m for m in (getattr(trace, "messages", []) or []) if getattr(m, "role", None) == "assistant"]
    return [{"role": "assistant", "content": getattr(m, "content", None),
             "reasoning_content": getattr(m, "reasoning_content", None)} for m in msgs]


class WhowroteTask(vf.Task[WhowroteData, vf.State, WhowroteTaskConfig]):
    @property
    def key(self) -> str:
        return self.data.id or self.hash

    def terms(self, trace: Any) -> dict[str, float]:
        truncated = bool(getattr(trace, "is_truncated", False))
        return reward_terms(trace_completion(trace), self.data.answer, labels=tuple(self.config.labels),
                            require_reason=self.config.require_reason,
                            min_reason_words=self.config.min_reason_words, truncated=truncated,
                            info={"task_type": self.data.task_type})

    @vf.reward(weight=1.0)
    async def correct_answer(self, trace: Any) -> float:
        return self.terms(trace)["correct_answer"]

    @vf.metric
    async def diagnostics(self, trace: Any) -> dict[str, float]:
        t = self.terms(trace)
        return {k: v for k, v in t.items() if k in ("parsed_ok", "reason_ok", "truncated") or k.startswith("pred_")}


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
    def load(self):
        cfg = self.config
        labels = LABEL_SCHEMES[cfg.label_scheme]
        cheat = _cheatsheet_text(cfg.cheatsheet)
        task_cfg = cfg.task.model_copy(update={"labels": list(labels)})
        for ex in load_examples(split_path(cfg.split, cfg.data_dir), labels, cfg.limit):
            if ex.prompt:  # per-row messages are used as they are; no env system prompt
                if cfg.answer_only:
                    raise ValueError("answer_only cannot be combined with per-row prompts")
                prompt = [dict(m) for m in ex.prompt]
                if cheat:
                    first = next((m for m in prompt if m.get("role") == "system"), None)
                    if first is not None:
                        first["content"] = f"{first['content']}\n\n{cheat}"
                data = WhowroteData(id=ex.id, prompt=prompt, answer=ex.gold, task_type=ex.kind)
            else:
                data = WhowroteData(id=ex.id, prompt=ex.text, system_prompt=_row_system(ex, cfg, labels, cheat),
                                    answer=ex.gold, task_type=ex.kind)
            yield WhowroteTask(data, task_cfg)


class WhowroteHarness(NullHarness):
    """verifiers' plain chat loop, exported so it is this taskset's default harness."""


def load_environment(config: Any = None, *, split: str = "train", data_dir: str | None = None,
                     label_scheme: str = "provider3", require_reason: bool = False,
                     min_reason_words: int = MIN_REASON_WORDS, cheatsheet: bool | str = False,
                     answer_only: bool = False, prompt_variant: str = "default",
                     limit: int | None = None) -> vf.Env:
    """The environment: pass a ``vf.EnvConfig``/dict, or the spec §2.1 keyword arguments."""
    if config is None:
        config = {"taskset": {
            "id": TASKSET_ID, "split": split, "data_dir": data_dir, "label_scheme": label_scheme,
            "cheatsheet": cheatsheet, "answer_only": answer_only, "prompt_variant": prompt_variant,
            "limit": limit,
            "task": {"require_reason": require_reason, "min_reason_words": min_reason_words},
        }}
    return vf.load_environment(vf.resolve_env_config(config))


# verifiers imports tasksets by a top-level module name; make ours resolvable in this process.
sys.modules.setdefault(TASKSET_ID, sys.modules[__name__])

__all__ = ["WhowroteHarness", "WhowroteTaskset", "load_environment"]
