"""An OpenAI-compatible chat-completions backend (vLLM, SGLang, llama.cpp server, hosted APIs).

- ``n = k`` samples per request (then one request per missing sample when a server
  ignores ``n`` and answers fewer choices); requests run in a thread pool of ``concurrency`` workers;
- retries with exponential backoff on connection errors, timeouts, 408/409/425/429 and 5xx;
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

from whowrote.llm.backends import Sample, SamplingParams, count_with, truncate_with
from whowrote.types import WhowroteError

RETRY_STATUS = {408, 409, 425, 429}
CHARS_PER_TOKEN = 4


def split_total(total: int, weights: list[int]) -> list[int]:
    """Integers proportional to ``weights`` that sum to ``total`` (largest remainder)."""
    raw = [total * w / sum(weights) for w in weights]
    out = [int(x) for x in raw]
    for i in sorted(range(len(raw)), key=lambda i: out[i] - raw[i])[: total - sum(out)]:
        out[i] += 1
    return out


class OpenAIBackend:
    def __init__(self, url: str, api_model: str, *, api_key: str | None = None, concurrency: int = 8,
                 timeout: float = 600.0, retries: int = 5, backoff: float = 1.0,
                 extra_body: dict | None = None, tokenizer: Any = None, gguf_file: str | None = None) -> None:
        if not url.lower().startswith(("http://", "https://")):
            raise WhowroteError(f"endpoint {url!r} is not an http:// or https:// URL")
        self.base = url.rstrip("/")
        if not self.base.endswith("/chat/completions"):
            self.base = self.base + ("/chat/completions" if self.base.endswith("/v1") else "/v1/chat/completions")
        self.name = api_model
        self.api_model = api_model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.concurrency = max(1, concurrency)
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.extra_body = {"chat_template_kwargs": {"enable_thinking": False}} if extra_body is None else extra_body
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
    def _post(self, client: Any, body: dict) -> dict:
        import httpx

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        last = ""
        for attempt in range(self.retries + 1):
            try:
                resp = client.post(self.base, json=body, headers=headers, timeout=self.timeout)
                if resp.status_code == 200:
                    return resp.json()
                last = f"HTTP {resp.status_code}: {resp.text[:200]}"
                if resp.status_code not in RETRY_STATUS and resp.status_code < 500:
                    raise WhowroteError(f"endpoint {self.base} refused the request: {last}")
            except (httpx.TransportError, httpx.TimeoutException) as e:
                last = f"{type(e).__name__}: {e}"
            if attempt < self.retries:
                # Full jitter keeps many workers from retrying in lock-step against a busy server.
                time.sleep(random.uniform(0, self.backoff * 2 ** attempt))
        raise WhowroteError(f"endpoint {self.base} failed after {self.retries + 1} attempts: {last}")

    def _one(self, client: Any, messages: list[dict], params: SamplingParams, seed: int) -> list[Sample]:
        body = {"model": self.api_model, "messages": messages, "n": params.k,
                "temperature": params.temperature, "top_p": params.top_p,
                "max_tokens": params.max_new_tokens, "seed": seed, **self.extra_body}
        out = self._samples(self._post(client, body))
        # A server that ignores ``n`` answers fewer choices: draw the rest one request each.
        for extra in range(1, params.k):
            if len(out) >= params.k or not out:
                break
            out += self._samples(self._post(client, {**body, "n": 1, "seed": seed + extra * 1_000_003}))
        if len(out) < params.k:
            raise WhowroteError(f"endpoint returned {len(out)} choices for n={params.k}")
        return out[: params.k]

    def _samples(self, data: dict) -> list[Sample]:
        """The choices of one response as samples (usage is per response: split by text length)."""
        choices = sorted(data.get("choices") or [], key=lambda c: c.get("index", 0))
        usage = data.get("usage") or {}
        total = usage.get("completion_tokens")
        texts = [(c.get("message") or {}).get("content") or "" for c in choices]
        counts = (split_total(int(total), [max(1, len(t)) for t in texts]) if total is not None and texts
                  else [self.count_tokens(t) for t in texts])
        out = []
        for c, text, tokens in zip(choices, texts, counts, strict=True):
            msg = c.get("message") or {}
            fr = c.get("finish_reason") or "stop"
            out.append(Sample(text=text, finish_reason="length" if fr == "length" else fr,
                              prompt_tokens=usage.get("prompt_tokens"), completion_tokens=tokens,
                              reasoning=msg.get("reasoning_content") or msg.get("reasoning")))
        return out

    def generate(self, prompts: list[list[dict]], params: SamplingParams) -> list[list[Sample]]:
        import httpx

        limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
        with httpx.Client(limits=limits) as client, ThreadPoolExecutor(self.concurrency) as pool:
            futures = [pool.submit(self._one, client, m, params, params.seed + i) for i, m in enumerate(prompts)]
            return [f.result() for f in futures]
