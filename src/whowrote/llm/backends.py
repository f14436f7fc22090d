"""Generation backends: a local transformers model here, an OpenAI-compatible endpoint in endpoint.py.

Every backend takes chat messages and returns ``k`` :class:`Sample` per prompt, and can count
and truncate text in tokens so the harness can fit the input text into a context budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from whowrote.llm.config import DEFAULT_TEMPLATE_KWARGS


@dataclass(frozen=True)
class SamplingParams:
    temperature: float = 0.7  # 0.7 / 0.95: greedy decoding loops on long texts (spec §4.5)
    top_p: float = 0.95
    max_new_tokens: int = 1024
    k: int = 1
    seed: int = 0


@dataclass
class Sample:
    text: str
    finish_reason: str  # "stop" | "length" | "error"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning: str | None = None  # a server's separate reasoning channel, if it used one
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


def stop_ids(tokenizer: Any, model: Any = None) -> set[int]:
    """Every token id that ends a turn (the tokenizer's eos and the generation config's may differ)."""
    ids: set[int] = set()
    for src in (tokenizer, getattr(model, "generation_config", None)):
        eos = getattr(src, "eos_token_id", None)
        if isinstance(eos, int):
            ids.add(eos)
        elif eos:
            ids.update(int(e) for e in eos)
    return ids


def count_with(tokenizer: Any, text: str) -> int:
    """Tokens of ``text`` under ``tokenizer`` (no special tokens)."""
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def truncate_with(tokenizer: Any, text: str, n: int) -> str:
    """``text`` cut to its first ``n`` tokens under ``tokenizer`` (unchanged when it fits)."""
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    return text if len(ids) <= n else tokenizer.decode(ids[: max(0, n)], skip_special_tokens=True)


class Backend(Protocol):
    name: str

    def generate(self, prompts: list[list[dict]], params: SamplingParams) -> list[list[Sample]]: ...

    def count_tokens(self, text: str) -> int: ...

    def truncate_tokens(self, text: str, n: int) -> str: ...

    def prompt_tokens(self, messages: list[dict]) -> int: ...


class ChatTokens:
    """What every local backend does with its tokenizer: render chat prompts (with the template
    switches, e.g. Qwen3's thinking off), count and cut tokens, and report its generation speed.
    Subclasses set ``tokenizer``, ``template_kwargs``, ``new_tokens`` and ``gen_seconds``."""

    tokenizer: Any
    template_kwargs: dict
    new_tokens: int = 0
    gen_seconds: float = 0.0

    def render(self, messages: list[dict]) -> str:
        return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True,
                                                  **self.template_kwargs)

    def count_tokens(self, text: str) -> int:
        return count_with(self.tokenizer, text)

    def truncate_tokens(self, text: str, n: int) -> str:
        return truncate_with(self.tokenizer, text, n)

    def prompt_tokens(self, messages: list[dict]) -> int:
        return self.count_tokens(self.render(messages))

    @property
    def tokens_per_s(self) -> float:
        return self.new_tokens / self.gen_seconds if self.gen_seconds > 0 else 0.0


class TransformersBackend(ChatTokens):
    """Batched sampling with a local causal LM (HF id, local dir or GGUF file)."""

    def __init__(self, model: str | Any, tokenizer: Any = None, *, gguf_file: str | None = None,
                 dtype: str = "bfloat16", device: str | None = None, batch_size: int = 8,
                 template_kwargs: dict | None = None) -> None:
        if isinstance(model, str):
            import torch

            from whowrote.llm.models import load_causal_lm

            device = device or ("cuda" if torch.cuda.is_available() else None)
            self.name = model
            self.model, self.tokenizer = load_causal_lm(model, gguf_file=gguf_file, dtype=dtype, device=device)
        else:  # an already loaded (model, tokenizer), e.g. a tiny test model
            from whowrote.llm.models import fix_tokenizer

            self.name = getattr(getattr(model, "config", None), "name_or_path", "") or type(model).__name__
            self.model, self.tokenizer = model, fix_tokenizer(tokenizer, model)
        self.batch_size = max(1, batch_size)
        # Cumulative generation counters (throughput for eval summaries and STaR reports).
        self.new_tokens = 0
        self.gen_seconds = 0.0
        # Qwen3-style templates: thinking off by default, or the eval truncates almost always
        # (spec §2.5); a given dict is used as it is, so training and eval render the same prompt.
        self.template_kwargs = dict(DEFAULT_TEMPLATE_KWARGS if template_kwargs is None else template_kwargs)

    def generate(self, prompts: list[list[dict]], params: SamplingParams) -> list[list[Sample]]:
        """``params.k`` samples per chat prompt, in input order.

        Prompts are sorted by length so each ``generate`` call pads little. Works on a model that is
        being trained too: it samples in eval mode (restoring train mode after) and, on GPUs,
        under bf16 autocast, so fp32 master weights sample at mixed-precision speed.
        """
        import time

        import torch

        rendered = [self.render(m) for m in prompts]
        order = sorted(range(len(rendered)), key=lambda i: len(rendered[i]), reverse=True)
        out: list[list[Sample]] = [[] for _ in rendered]
        stop = stop_ids(self.tokenizer, self.model)
        device = next(self.model.parameters()).device
        was_training = self.model.training
        self.model.eval()
        started = time.perf_counter()
        try:
            for start in range(0, len(order), self.batch_size):
                idx = order[start:start + self.batch_size]
                enc = self.tokenizer([rendered[i] for i in idx], return_tensors="pt", padding=True,
                                     padding_side="left", add_special_tokens=False).to(device)
                width = enc["input_ids"].shape[1]
                prompt_lens = enc["attention_mask"].sum(dim=1).tolist()
                # Seeded per batch position so a resumed run samples the same way for the same batch.
                torch.manual_seed(params.seed + start)
                sampling = params.temperature > 0
                autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.type == "cuda")
                with torch.inference_mode(), autocast:
                    gen = self.model.generate(
                        **enc, max_new_tokens=params.max_new_tokens, do_sample=sampling,
                        temperature=params.temperature if sampling else None,
                        top_p=params.top_p if sampling else None, top_k=0 if sampling else None,
                        num_return_sequences=params.k, pad_token_id=self.tokenizer.pad_token_id)
                new = gen[:, width:].tolist()
                for row, i in enumerate(idx):
                    for j in range(params.k):
                        ids = new[row * params.k + j]
                        end = next((p for p, t in enumerate(ids) if t in stop), None)
                        body = ids if end is None else ids[:end]
                        n_new = len(body) + (1 if end is not None else 0)
                        self.new_tokens += n_new
                        out[i].append(Sample(
                            text=self.tokenizer.decode(body, skip_special_tokens=True),
                            finish_reason="stop" if end is not None else "length",
                            prompt_tokens=int(prompt_lens[row]), completion_tokens=n_new))
        finally:
            if was_training:
                self.model.train()
            if device.type == "cuda":
                torch.cuda.synchronize()
            self.gen_seconds += time.perf_counter() - started
        return out
