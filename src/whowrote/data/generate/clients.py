"""One small interface over the providers' official SDKs and the local ``whowrote.llm`` backends.

``make_client(spec, plan)`` returns an object with ``generate(requests) -> list[Reply]``:

- ``openai`` and ``openai-compatible``: the ``openai`` SDK (chat completions; ``base_url`` for
  vLLM, SGLang, llama.cpp, Together, OpenRouter ...);
- ``anthropic``: the ``anthropic`` SDK (messages);
- ``google``: the ``google-genai`` SDK (Gemini ``generateContent``);
- ``transformers`` / ``vllm``: any :class:`whowrote.llm.backends.Backend` (batched, local).

Retries: the SDKs retry rate limits (honouring ``Retry-After``), 408/409/5xx, connection errors and
timeouts with exponential backoff themselves (``max_retries`` / ``HttpRetryOptions``); our own loop
(:func:`with_retries`) only covers what they do not: a 200 whose body is not the expected JSON.
API keys are read from the environment and never stored on the reply, logged or echoed: error
messages pass through :func:`redact`.
"""

from __future__ import annotations

import inspect
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from whowrote.data.generate.plan import ModelSpec, Plan
from whowrote.formats import install_hint
from whowrote.types import WhowroteError

# Finish reasons meaning "cut off at the output budget", as each API spells it.
TRUNCATED = {"length", "max_tokens", "MAX_TOKENS", "model_context_window_exceeded"}


@dataclass(frozen=True)
class Request:
    prompt: str
    max_tokens: int
    system: str | None = None
    seed: int | None = None


@dataclass(frozen=True)
class Reply:
    text: str
    finish_reason: str
    response_id: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    served_model: str | None = None  # the version string the API says answered
    sent: dict[str, Any] | None = None  # the sampling settings actually sent

    @property
    def truncated(self) -> bool:
        return self.finish_reason in TRUNCATED


class AuthError(WhowroteError):
    """The API refused the key (401/403): the whole run stops."""


class RequestError(WhowroteError):
    """The API refused the request itself (400/404/422: unknown model, bad parameter): the run stops."""


class TransientError(Exception):
    """Still failing after every retry (rate limit, 5xx, timeout): this cell fails, a re-run retries it."""


class MalformedReply(TransientError):
    """A success status with a body that is not the API's JSON."""


class Client(Protocol):
    batch_size: int

    def generate(self, requests: Sequence[Request]) -> list[Reply]: ...


T = TypeVar("T")


def with_retries(fn: Callable[[], T], retries: int, initial_delay: float) -> T:
    """``fn()``, retried with full-jitter exponential backoff on :class:`MalformedReply` only."""
    for attempt in range(retries + 1):
        try:
            return fn()
        except MalformedReply:
            if attempt == retries:
                raise
            time.sleep(random.uniform(0, initial_delay * 2 ** attempt))
    raise AssertionError("unreachable")


def redact(message: str, *secrets: str | None) -> str:
    """``message`` on one line, with every secret replaced (servers echo keys in auth errors)."""
    for s in secrets:
        if s and len(s) >= 4:
            message = message.replace(s, "[redacted]")
    return " ".join(message.split())[:300]


def api_key(spec: ModelSpec) -> str | None:
    """The key from the environment variable the model names (or its API's usual one)."""
    env = spec.key_env
    key = os.environ.get(env) if env else None
    if spec.api == "google" and not key and not spec.api_key_env:
        key = os.environ.get("GOOGLE_API_KEY")  # the google-genai SDK's other name for it
    return key


def missing_key(spec: ModelSpec) -> str | None:
    """The environment variable a model needs but that is unset (None when nothing is missing)."""
    if spec.api in ("transformers", "vllm") or (spec.api == "openai-compatible" and not spec.api_key_env):
        return None
    return None if api_key(spec) else (spec.key_env or "")


def _status_error(spec: ModelSpec, status: int | None, message: str, key: str | None) -> Exception:
    detail = redact(message, key)
    if status in (401, 403) or (status == 400 and "api key" in message.lower()):
        # Gemini answers a bad key with 400 API_KEY_INVALID rather than 401. The server's message
        # is left out: servers echo (fragments of) the key in it.
        return AuthError(f"{spec.api} refused the API key in ${spec.key_env or '(none)'} for model "
                         f"{spec.name!r} (HTTP {status}): check the key and its access to this model")
    if status is not None and (status == 429 or status >= 500 or status in (408, 409)):
        return TransientError(f"HTTP {status} after retries: {detail}")
    return RequestError(f"{spec.api} rejected the request for model {spec.name!r} (HTTP {status}): {detail}")


class OpenAIClient:
    """Chat completions through the ``openai`` SDK (OpenAI itself or any compatible server)."""

    batch_size = 1

    def __init__(self, spec: ModelSpec, plan: Plan) -> None:
        import openai

        self.spec, self.plan, self._openai = spec, plan, openai
        self._key = api_key(spec)
        self._client = openai.OpenAI(api_key=self._key or "EMPTY", base_url=spec.base_url,
                                     max_retries=plan.max_retries, timeout=plan.timeout_s)
        # OpenAI's own API wants max_completion_tokens (reasoning models refuse max_tokens);
        # many compatible servers only know max_tokens.
        self._budget_key = "max_completion_tokens" if spec.api == "openai" else "max_tokens"

    def generate(self, requests: Sequence[Request]) -> list[Reply]:
        return [with_retries(lambda r=r: self._one(r), self.plan.max_retries, self.plan.initial_delay_s)
                for r in requests]

    def _one(self, req: Request) -> Reply:
        oa, s = self._openai, self.spec.sampling
        messages = ([{"role": "system", "content": req.system}] if req.system else []) + [
            {"role": "user", "content": req.prompt}]
        kwargs: dict[str, Any] = {k: v for k, v in (("temperature", s.temperature), ("top_p", s.top_p),
                                                    ("seed", req.seed)) if v is not None}
        try:
            out = self._client.chat.completions.create(
                model=self.spec.name, messages=messages, extra_body=self.spec.extra or None,
                **{self._budget_key: req.max_tokens}, **kwargs)
        except oa.APIStatusError as e:
            raise _status_error(self.spec, e.status_code, str(e.message), self._key) from None
        except (oa.APITimeoutError, oa.APIConnectionError) as e:
            raise TransientError(redact(f"{type(e).__name__}: {e}", self._key)) from None
        except (oa.APIResponseValidationError, ValueError) as e:
            raise MalformedReply(redact(f"unreadable response: {e}", self._key)) from None
        if isinstance(out, str) or not getattr(out, "choices", None):
            raise MalformedReply("response has no choices")
        choice = out.choices[0]
        usage = getattr(out, "usage", None)
        details = getattr(usage, "completion_tokens_details", None)
        return Reply(text=choice.message.content or "", finish_reason=str(choice.finish_reason or "stop"),
                     response_id=out.id, prompt_tokens=getattr(usage, "prompt_tokens", None),
                     completion_tokens=getattr(usage, "completion_tokens", None),
                     reasoning_tokens=getattr(details, "reasoning_tokens", None), served_model=out.model,
                     sent=kwargs)


class AnthropicClient:
    batch_size = 1

    def __init__(self, spec: ModelSpec, plan: Plan) -> None:
        import anthropic

        self.spec, self.plan, self._anthropic = spec, plan, anthropic
        self._key = api_key(spec)
        # An explicit timeout also turns off the SDK's refusal of long non-streaming requests.
        self._client = anthropic.Anthropic(api_key=self._key, base_url=spec.base_url,
                                           max_retries=plan.max_retries, timeout=plan.timeout_s)
        self._accepts = set(inspect.signature(self._client.messages.create).parameters)

    def generate(self, requests: Sequence[Request]) -> list[Reply]:
        return [with_retries(lambda r=r: self._one(r), self.plan.max_retries, self.plan.initial_delay_s)
                for r in requests]

    def _one(self, req: Request) -> Reply:
        an, s = self._anthropic, self.spec.sampling
        # Newer Claude models take no sampling settings (SDK 2.x dropped them from create());
        # send them only where this SDK still accepts them, and say in the row what was sent.
        kwargs: dict[str, Any] = {k: v for k, v in (("temperature", s.temperature), ("top_p", s.top_p))
                                  if v is not None and k in self._accepts}
        if req.system:
            kwargs["system"] = req.system
        try:
            out = self._client.messages.create(model=self.spec.name, max_tokens=req.max_tokens,
                                               messages=[{"role": "user", "content": req.prompt}],
                                               extra_body=self.spec.extra or None, **kwargs)
        except an.APIStatusError as e:
            raise _status_error(self.spec, e.status_code, str(e.message), self._key) from None
        except (an.APITimeoutError, an.APIConnectionError) as e:
            raise TransientError(redact(f"{type(e).__name__}: {e}", self._key)) from None
        except (an.APIResponseValidationError, ValueError) as e:
            raise MalformedReply(redact(f"unreadable response: {e}", self._key)) from None
        if isinstance(out, str) or getattr(out, "content", None) is None:
            raise MalformedReply("response has no content")
        text = "".join(b.text for b in out.content if getattr(b, "type", "") == "text")
        usage = getattr(out, "usage", None)
        return Reply(text=text, finish_reason=str(out.stop_reason or "end_turn"), response_id=out.id,
                     prompt_tokens=getattr(usage, "input_tokens", None),
                     completion_tokens=getattr(usage, "output_tokens", None), served_model=out.model,
                     sent={k: v for k, v in kwargs.items() if k != "system"})


class GoogleClient:
    batch_size = 1

    def __init__(self, spec: ModelSpec, plan: Plan) -> None:
        from google import genai
        from google.genai import errors, types

        self.spec, self.plan, self._errors, self._types = spec, plan, errors, types
        self._key = api_key(spec)
        retry = types.HttpRetryOptions(attempts=plan.max_retries + 1, initial_delay=plan.initial_delay_s,
                                       max_delay=60.0)
        http = types.HttpOptions(base_url=spec.base_url, timeout=int(plan.timeout_s * 1000), retry_options=retry)
        self._client = genai.Client(api_key=self._key, http_options=http)

    def generate(self, requests: Sequence[Request]) -> list[Reply]:
        return [with_retries(lambda r=r: self._one(r), self.plan.max_retries, self.plan.initial_delay_s)
                for r in requests]

    def _one(self, req: Request) -> Reply:
        import httpx

        s = self.spec.sampling
        config = {k: v for k, v in (("temperature", s.temperature), ("top_p", s.top_p), ("seed", req.seed),
                                    ("system_instruction", req.system), ("max_output_tokens", req.max_tokens))
                  if v is not None}
        try:
            out = self._client.models.generate_content(
                model=self.spec.name, contents=req.prompt,
                config=self._types.GenerateContentConfig(**{**config, **self.spec.extra}))
        except self._errors.APIError as e:
            raise _status_error(self.spec, e.code, str(e.message or e), self._key) from None
        except httpx.TransportError as e:  # timeouts and refused connections, after the SDK's retries
            raise TransientError(redact(f"{type(e).__name__}: {e}", self._key)) from None
        except ValueError as e:
            raise MalformedReply(redact(f"unreadable response: {e}", self._key)) from None
        if not out.candidates:
            raise MalformedReply("response has no candidates")
        cand = out.candidates[0]
        parts = (cand.content.parts if cand.content else None) or []
        text = "".join(p.text or "" for p in parts if not getattr(p, "thought", False))
        reason = cand.finish_reason
        usage = out.usage_metadata
        return Reply(text=text, finish_reason=str(getattr(reason, "value", reason) or "STOP"),
                     response_id=out.response_id, prompt_tokens=getattr(usage, "prompt_token_count", None),
                     completion_tokens=getattr(usage, "candidates_token_count", None),
                     reasoning_tokens=getattr(usage, "thoughts_token_count", None), served_model=out.model_version,
                     sent={k: v for k, v in config.items() if k in ("temperature", "top_p", "seed")})


class LocalClient:
    """A ``whowrote.llm`` backend (transformers, or vLLM's ``llm/vllm_backend.py``) behind the same
    interface; requests are sampled in batches of ``batch_size``."""

    def __init__(self, spec: ModelSpec, backend: Any) -> None:
        self.spec, self.backend, self.batch_size = spec, backend, spec.batch_size

    def generate(self, requests: Sequence[Request]) -> list[Reply]:
        from whowrote.llm.backends import SamplingParams

        s = self.spec.sampling
        out: list[Reply | None] = [None] * len(requests)
        for budget in sorted({r.max_tokens for r in requests}):  # one generate call per output budget
            idx = [i for i, r in enumerate(requests) if r.max_tokens == budget]
            prompts = [([{"role": "system", "content": requests[i].system}] if requests[i].system else [])
                       + [{"role": "user", "content": requests[i].prompt}] for i in idx]
            params = SamplingParams(temperature=1.0 if s.temperature is None else s.temperature,
                                    top_p=1.0 if s.top_p is None else s.top_p, max_new_tokens=budget, k=1,
                                    seed=requests[idx[0]].seed or 0)
            for i, samples in zip(idx, self.backend.generate(prompts, params), strict=True):
                smp = samples[0]
                out[i] = Reply(text=smp.text, finish_reason=smp.finish_reason, prompt_tokens=smp.prompt_tokens,
                               completion_tokens=smp.completion_tokens, served_model=self.spec.path,
                               sent={"temperature": params.temperature, "top_p": params.top_p, "seed": params.seed})
        return [r for r in out if r is not None]


def local_backend(spec: ModelSpec) -> Any:
    """The ``whowrote.llm`` backend a local model spec names (imports torch / vLLM only here)."""
    if spec.api == "transformers":
        from whowrote.llm.backends import TransformersBackend as backend_cls
    else:
        try:
            from whowrote.llm.vllm_backend import VLLMBackend as backend_cls
            from whowrote.llm.vllm_backend import require_vllm
        except ImportError as e:
            raise WhowroteError(f"model {spec.name!r}: api = \"vllm\" needs whowrote.llm.vllm_backend and "
                                f"vllm installed ({e})") from None
        require_vllm()  # before the options check: without vLLM nothing else can be fixed
    # A plan's `extra` table goes to the backend as keywords: an option that backend lacks (e.g.
    # `device` for vLLM) is one clear line, not a TypeError from inside the constructor.
    allowed = set(inspect.signature(backend_cls).parameters) - {"model", "tokenizer", "llm", "batch_size"}
    unknown = sorted(set(spec.extra) - allowed)
    if unknown:
        raise WhowroteError(f"model {spec.name!r}: extra options {unknown} are not options of the {spec.api} "
                            f"backend (it takes {sorted(allowed)})")
    if spec.api == "transformers":
        return backend_cls(spec.path, batch_size=spec.batch_size, **spec.extra)
    return backend_cls(spec.path, **spec.extra)


def make_client(spec: ModelSpec, plan: Plan, backend: Any = None) -> Client:
    """The client for one plan model (``backend``: an already built local backend, e.g. in tests)."""
    if spec.api in ("transformers", "vllm"):
        return LocalClient(spec, backend if backend is not None else local_backend(spec))
    try:
        cls = {"openai": OpenAIClient, "openai-compatible": OpenAIClient, "anthropic": AnthropicClient,
               "google": GoogleClient}[spec.api]
        return cls(spec, plan)
    except ImportError as e:
        raise WhowroteError(f"model {spec.name!r} needs the {spec.api} SDK: {install_hint('generate')} "
                            f"({e})") from None
