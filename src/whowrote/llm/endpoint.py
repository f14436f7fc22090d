"""An OpenAI-compatible chat-completions backend (vLLM, SGLang, llama.cpp server, hosted APIs).

Requests go through the official ``openai`` SDK (``pip install '.[llm]'`` in the whowrote checkout), pointed at the
server by ``base_url``:

- the SDK retries connection errors, timeouts, 408/409/429 and 5xx with its jittered exponential
  backoff (honouring ``Retry-After``), ``retries`` times;
- a 200 whose body is not a chat completion (an HTML error page from a proxy, a JSON of another
  shape) is retried the same number of times, then reported in one line;
- ``n = k`` samples per request (then one request per missing sample when a server ignores ``n``
  and answers fewer choices); requests run in a thread pool of ``concurrency`` workers;
- ``chat_template_kwargs.enable_thinking = false`` is sent by default (a vLLM extension that
  other servers ignore): with thinking on, Qwen3-style models truncate almost every eval sample;
- token budgeting uses a local tokenizer when one is given (``tokenizer``: HF id, dir or GGUF),
  else a 4-characters-per-token estimate, which is conservative for English prose.
"""

from __future__ import annotations

import os
import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from whowrote.formats import install_hint
from whowrote.llm.backends import Sample, SamplingParams, count_with, truncate_with
from whowrote.llm.config import DEFAULT_TEMPLATE_KWARGS
from whowrote.types import WhowroteError

CHARS_PER_TOKEN = 4


def split_total(total: int, weights: list[int]) -> list[int]:
    """Integers proportional to ``weights`` that sum to ``total`` (largest remainder)."""
    raw = [total * w / sum(weights) for w in weights]
    out = [int(x) for x in raw]
    for i in sorted(range(len(raw)), key=lambda i: out[i] - raw[i])[: total - sum(out)]:
        out[i] += 1
    return out


def _openai() -> Any:
    try:
        import openai
    except ImportError:
        raise WhowroteError(f"the endpoint backend needs the openai package: {install_hint('llm')}") from None
    return openai


def base_url(url: str) -> str:
    """The SDK's ``base_url`` (ending in ``/v1``) for a server URL given with or without the path."""
    if not url.lower().startswith(("http://", "https://")):
        raise WhowroteError(f"endpoint {url!r} is not an http:// or https:// URL")
    base = url.rstrip("/")
    base = base.removesuffix("/chat/completions")
    return base if base.endswith("/v1") else base + "/v1"


class BadResponse(Exception):
    """A 200 whose body is not a chat completion."""


def _as_dict(resp: Any) -> dict:
    # Without strict validation the SDK hands back the raw text for a non-JSON 200 and an
    # unvalidated model for JSON of another shape; check the shape ourselves.
    data = resp.model_dump(warnings=False) if hasattr(resp, "model_dump") else resp
    if not isinstance(data, dict):
        raise BadResponse(f"not JSON: {str(data)[:80]!r}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not all(
            isinstance(c, dict) and isinstance(c.get("message"), dict) for c in choices):
        raise BadResponse(f"no chat-completion choices in {str(data)[:80]!r}")
    return data


class OpenAIBackend:
    def __init__(self, url: str, api_model: str, *, api_key: str | None = None, concurrency: int = 8,
                 timeout: float = 600.0, retries: int = 5, extra_body: dict | None = None,
                 tokenizer: Any = None, gguf_file: str | None = None) -> None:
        if not timeout > 0:
            raise WhowroteError(f"the endpoint timeout must be > 0 seconds, got {timeout}")
        self.base = base_url(url)
        openai = _openai()
        self.client = openai.OpenAI(base_url=self.base, timeout=timeout, max_retries=retries,
                                    api_key=api_key if api_key is not None else os.environ.get("OPENAI_API_KEY") or "none")
        self.name = api_model
        self.api_model = api_model
        self.concurrency = max(1, concurrency)
        self.retries = retries
        self.extra_body = ({"chat_template_kwargs": dict(DEFAULT_TEMPLATE_KWARGS)} if extra_body is None
                           else extra_body)
        self.tokenizer = None
        if tokenizer is not None:
            if isinstance(tokenizer, str):
                from whowrote.llm.models import load_tokenizer

                try:
                    tokenizer = load_tokenizer(tokenizer, gguf_file)
                except (OSError, ValueError):
                    tokenizer = None  # fall back to the character estimate
            self.tokenizer = tokenizer

    # -- token budgeting -------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        if self.tokenizer is not None:
            return count_with(self.tokenizer, text)
        return -(-len(text) // CHARS_PER_TOKEN)

    def truncate_tokens(self, text: str, n: int) -> str:
        if self.tokenizer is not None:
            return truncate_with(self.tokenizer, text, n)
        return text[: max(0, n) * CHARS_PER_TOKEN]

    def prompt_tokens(self, messages: list[dict]) -> int:
        if self.tokenizer is not None and getattr(self.tokenizer, "chat_template", None):
            rendered = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
            return self.count_tokens(rendered)
        return sum(self.count_tokens(str(m.get("content", ""))) + 4 for m in messages)

    # -- generation ------------------------------------------------------------------------
    def _create(self, **body: Any) -> dict:
        """One chat completion as a dict; the SDK retries transport errors, we retry bad bodies."""
        openai = _openai()
        last = ""
        for attempt in range(self.retries + 1):
            try:
                return _as_dict(self.client.chat.completions.create(**body))
            except BadResponse as e:
                last = f"bad response ({e})"
            except openai.APIStatusError as e:
                retryable = e.status_code in (408, 409, 429) or e.status_code >= 500
                what = f"HTTP {e.status_code}: {str(e.message)[:200]}"
                if not retryable:
                    raise WhowroteError(f"endpoint {self.base} refused the request: {what}") from None
                raise WhowroteError(f"endpoint {self.base} failed after {self.retries + 1} attempts: {what}") from None
            except openai.APIConnectionError as e:  # includes timeouts
                raise WhowroteError(f"endpoint {self.base} failed after {self.retries + 1} attempts: "
                                    f"{type(e).__name__}: {e}") from None
            if attempt < self.retries:
                time.sleep(random.uniform(0, 0.5 * 2 ** attempt))  # full jitter, as the SDK does
        raise WhowroteError(f"endpoint {self.base} failed after {self.retries + 1} attempts: {last}")

    def _one(self, messages: list[dict], params: SamplingParams, seed: int) -> list[Sample]:
        body = {"model": self.api_model, "messages": messages, "n": params.k,
                "temperature": params.temperature, "top_p": params.top_p,
                "max_tokens": params.max_new_tokens, "seed": seed, "extra_body": self.extra_body}
        out = self._samples(self._create(**body))
        # A server that ignores ``n`` answers fewer choices: draw the rest one request each.
        for extra in range(1, params.k):
            if len(out) >= params.k or not out:
                break
            out += self._samples(self._create(**{**body, "n": 1, "seed": seed + extra * 1_000_003}))
        if len(out) < params.k:
            raise WhowroteError(f"endpoint returned {len(out)} choices for n={params.k}")
        return out[: params.k]

    def _samples(self, data: dict) -> list[Sample]:
        """The choices of one response as samples (usage is per response: split by text length)."""
        choices = sorted(data["choices"], key=lambda c: c.get("index") or 0)
        usage = data.get("usage") or {}
        total = usage.get("completion_tokens")
        texts = [c["message"].get("content") or "" for c in choices]
        counts = (split_total(int(total), [max(1, len(t)) for t in texts]) if total is not None and texts
                  else [self.count_tokens(t) for t in texts])
        out = []
        for c, text, tokens in zip(choices, texts, counts, strict=True):
            msg = c["message"]
            fr = c.get("finish_reason") or "stop"
            out.append(Sample(text=text, finish_reason="length" if fr == "length" else fr,
                              prompt_tokens=usage.get("prompt_tokens"), completion_tokens=tokens,
                              reasoning=msg.get("reasoning_content") or msg.get("reasoning")))
        return out

    def generate(self, prompts: list[list[dict]], params: SamplingParams) -> list[list[Sample]]:
        with ThreadPoolExecutor(self.concurrency) as pool:
            futures = [pool.submit(self._one, m, params, params.seed + i) for i, m in enumerate(prompts)]
            return [f.result() for f in futures]
