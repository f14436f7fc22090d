"""The prime-rl block in docs/eval.md parses under prime-rl's schema.

prime-rl (and its slim schema package ``prime-rl-configs``) is not on the package index this
project installs from and needs Python 3.12, so the source classes the block goes through are
copied here, field for field, from PrimeIntellect-ai/prime-rl at commit
559b44772e471d1538537b8805cc77f3824a5e64, ``packages/prime-rl-configs/src/prime_rl/configs/orchestrator.py``
(``EnvConfig``, ``TrainSourceConfig``, ``EvalSourceConfig``, ``TrainSamplingConfig``,
``EvalSamplingConfig``; algorithm and curriculum blocks are kept opaque). Their ``env`` field is
verifiers' own ``EnvConfig``, narrowed exactly as prime-rl narrows it
(``vf.resolve_env_field(data, vf.narrowed_env_annotation(cls))``): that part is the real schema,
down to ``agent.runtime.type`` and every taskset/task field of ours.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Literal

import pytest

vf = pytest.importorskip("verifiers.v1", reason="verifiers (the optional extra) is not installed")
from pydantic import Field, SerializeAsAny, ValidationError, model_validator  # noqa: E402
from pydantic_config import BaseConfig  # noqa: E402  (verifiers' and prime-rl's config base)

DOC = Path(__file__).resolve().parents[2] / "docs" / "eval.md"


class TrainSamplingConfig(BaseConfig):
    temperature: float = Field(1.0, ge=0, le=2.0)
    max_completion_tokens: int | None = None
    extra_body: dict[str, Any] = {}


class EvalSamplingConfig(BaseConfig):
    temperature: float | None = Field(None, ge=0, le=2.0)
    top_p: float | None = None
    top_k: int | None = None
    min_p: float | None = Field(None, ge=0)
    max_completion_tokens: int | None = None
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    extra_body: dict[str, Any] = {}


class EnvConfig(BaseConfig):
    env: SerializeAsAny[vf.EnvConfig] = vf.SingleAgentEnvConfig()
    serve: vf.ServeConfig = vf.ServeConfig()
    name: str | None = None
    ratio: float = Field(1.0, gt=0)

    @model_validator(mode="before")
    @classmethod
    def _resolve_env(cls, data):
        return vf.resolve_env_field(data, vf.narrowed_env_annotation(cls))

    @model_validator(mode="after")
    def validate_env(self):
        if not (self.env.env_id or ""):
            raise ValueError('no env configured — set env = { taskset = { id = "<id>" } }')
        return self


class TrainSourceConfig(EnvConfig):
    sampling: TrainSamplingConfig = TrainSamplingConfig()
    group_size: int = Field(1, ge=1)
    algo: dict[str, Any] | None = None
    curriculum: dict[str, Any] | None = None


class EvalSourceConfig(EnvConfig):
    sampling: EvalSamplingConfig = EvalSamplingConfig()
    num_examples: int = -1
    group_size: int = Field(1, ge=1)
    interval: int = Field(100, ge=1)


class TrainConfig(BaseConfig):
    source: list[TrainSourceConfig] = Field(default_factory=list)
    sampling: TrainSamplingConfig = TrainSamplingConfig()


class EvalConfig(BaseConfig):
    source: list[EvalSourceConfig] = Field(default_factory=list)


class Orchestrator(BaseConfig):  # only the two sections the block sets
    train: TrainConfig = TrainConfig()
    eval: EvalConfig | None = None


def doc_block() -> dict:
    blocks = re.findall(r"```toml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    block = next(b for b in blocks if "[[orchestrator.train.source]]" in b)
    return tomllib.loads(block)


def test_docs_prime_rl_block_validates():
    cfg = Orchestrator.model_validate(doc_block()["orchestrator"])
    (train,) = cfg.train.source
    assert type(train.env.taskset).__name__ == "WhowroteTasksetConfig"
    assert train.env.taskset.split == "train" and train.env.taskset.task.require_reason is True
    assert train.env.agent.runtime.type == "subprocess"
    (ev,) = cfg.eval.source
    assert ev.env.taskset.split == "val" and ev.env.agent.runtime.type == "subprocess"
    # Thinking off on both paths (spec §2.5), as whowrote's own backends send it.
    for s in (cfg.train.sampling, ev.sampling):
        assert s.extra_body["chat_template_kwargs"] == {"enable_thinking": False}


@pytest.mark.parametrize("mutate", [
    lambda raw: raw["train"]["source"][0]["env"]["agent"]["runtime"].update(type="nope"),
    lambda raw: raw["train"]["source"][0]["env"]["taskset"].update(splt="val"),
    lambda raw: raw["train"]["source"][0]["env"]["taskset"]["task"].update(require_reasons=True),
    lambda raw: raw["train"].update(source={"env": raw["train"]["source"][0]["env"]}),  # [..] not [[..]]
    lambda raw: raw.update(env=raw["train"]["source"][0]["env"]),  # the old top-level [env] block
])
def test_the_schema_copy_rejects_what_prime_rl_rejects(mutate):
    raw = doc_block()["orchestrator"]
    mutate(raw)
    with pytest.raises((ValidationError, ValueError)):
        Orchestrator.model_validate(raw)
