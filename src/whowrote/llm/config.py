"""The eval harness's settings (``whowrote eval``, the in-loop eval, ``whowrote train evaluate``).

Its own small, stdlib-only module so the CLI can read the defaults without importing the harness
(``whowrote predict`` start-up pays for every module the CLI imports).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from whowrote.types import PROVIDERS

# Qwen3-style chat templates: thinking off by default on every path (spec §2.5).
DEFAULT_TEMPLATE_KWARGS = {"enable_thinking": False}

# Settings that change what a trace means: a resume with different values is refused.
RUN_KEYS = ("model", "gguf_file", "endpoint", "api_model", "split", "variant", "k", "max_new_tokens",
            "max_prompt_tokens", "temperature", "top_p", "seed", "cheatsheet", "require_reason", "limit",
            "chat_template_kwargs", "max_text_tokens")


@dataclass
class EvalConfig:
    split: str
    out: str
    model: str | None = None
    gguf_file: str | None = None
    endpoint: str | None = None
    api_model: str | None = None
    variant: str = "3way"
    k: int = 4
    max_new_tokens: int = 1024
    max_prompt_tokens: int | None = None  # cut the text so the rendered prompt fits
    max_text_tokens: int | None = None  # cut the text to this many tokens first (training's data.max_text_tokens)
    temperature: float = 0.7
    top_p: float = 0.95
    seed: int = 0
    batch_size: int = 8
    limit: int | None = None  # the first N texts, interleaved by provider (balanced)
    dtype: str = "bfloat16"
    device: str | None = None
    cheatsheet: str | None = None
    require_reason: bool = False
    concurrency: int = 8
    timeout: float = 600.0
    labels: tuple[str, ...] = field(default=PROVIDERS)
    chat_template_kwargs: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_TEMPLATE_KWARGS))

    def run_settings(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: d[k] for k in RUN_KEYS}
