"""Batched sampling from an in-memory policy: k completions per chat prompt.

Used by the in-loop eval callback and the STaR generator, which both need to sample from the
model *being trained* (the eval harness loads its own model from disk or calls an endpoint).
Prompts are sorted by length so each ``generate`` call pads little; results come back in input
order. A completion counts as truncated when it used ``max_new_tokens`` without an eos token.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass
class Sample:
    text: str
    n_tokens: int
    truncated: bool


@dataclass
class SampleStats:
    prompts: int = 0
    samples: int = 0
    new_tokens: int = 0
    seconds: float = 0.0

    @property
    def tokens_per_s(self) -> float:
        return self.new_tokens / self.seconds if self.seconds > 0 else 0.0


def render_prompts(tokenizer: Any, messages: Sequence[list[dict]]) -> list[str]:
    return [tokenizer.apply_chat_template(m, tokenize=False, add_generation_prompt=True) for m in messages]


def _eos_ids(tokenizer: Any, model: Any) -> set[int]:
    ids: set[int] = set()
    for src in (getattr(model, "generation_config", None), tokenizer):
        eos = getattr(src, "eos_token_id", None)
        if isinstance(eos, int):
            ids.add(eos)
        elif eos:
            ids.update(int(e) for e in eos)
    return ids


def sample(model: Any, tokenizer: Any, messages: Sequence[list[dict]], *, k: int = 1,
           temperature: float = 0.7, top_p: float = 0.95, max_new_tokens: int = 256,
           batch_size: int = 64, seed: int = 0, stats: SampleStats | None = None) -> list[list[Sample]]:
    """k samples for each chat prompt, in input order. ``temperature`` 0 means greedy."""
    import torch

    prompts = render_prompts(tokenizer, messages)
    eos = _eos_ids(tokenizer, model)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else min(eos or {0})
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]), reverse=True)
    out: list[list[Sample]] = [[] for _ in prompts]
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    torch.manual_seed(seed)
    started = time.perf_counter()
    n_new = 0
    # Rows per generate call: batch_size prompts x k samples, so memory does not grow with k.
    per_call = max(1, batch_size // max(1, k)) if k > 1 else batch_size
    try:
        for start in range(0, len(order), per_call):
            idx = order[start:start + per_call]
            enc = tokenizer([prompts[i] for i in idx], return_tensors="pt", padding=True,
                            padding_side="left", add_special_tokens=False).to(device)
            gen_kwargs: dict[str, Any] = {"max_new_tokens": max_new_tokens, "num_return_sequences": k,
                                          "pad_token_id": pad_id, "use_cache": True}
            if temperature > 0:
                gen_kwargs.update(do_sample=True, temperature=temperature, top_p=top_p, top_k=0)
            else:
                gen_kwargs.update(do_sample=False)
            # fp32 master weights (training) sample under bf16 autocast on GPUs: same as the trainer's
            # mixed precision, several times faster than fp32 matmuls.
            autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.type == "cuda")
            with torch.inference_mode(), autocast:
                seqs = model.generate(**enc, **gen_kwargs)
            new = seqs[:, enc["input_ids"].shape[1]:].tolist()
            for j, ids in enumerate(new):
                prompt_idx = idx[j // k]
                cut = next((p for p, t in enumerate(ids) if t in eos), None)
                body = ids if cut is None else ids[:cut]
                n_new += len(body) + (0 if cut is None else 1)
                out[prompt_idx].append(Sample(text=tokenizer.decode(body, skip_special_tokens=True),
                                              n_tokens=len(body), truncated=cut is None))
    finally:
        if was_training:
            model.train()
    if stats is not None:
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        stats.prompts += len(prompts)
        stats.samples += len(prompts) * k
        stats.new_tokens += n_new
        stats.seconds += time.perf_counter() - started
    return out
