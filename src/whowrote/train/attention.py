"""Causal attention for left-padded batches on SDPA's flash kernel (issue 14: the GRPO step).

A GRPO batch is ``[left pads | prompt | completion | right pads]`` with a padding mask. Given a
mask, PyTorch's ``scaled_dot_product_attention`` cannot use its flash kernel and runs the
memory-efficient one: session 12's profile of a SmolLM2-135M GRPO step (96 rollouts of 2,300 + 256
tokens, 6.8 s) put 2.8 s in that kernel's forwards and backwards (the old-policy pass included); on
the same shape, a train pass with ``sdpa_unpadded`` took 0.83-0.88x the time of masked SDPA.

``sdpa_unpadded`` rolls each row so that its real tokens start at position 0. Every pad then sits
after every real token, where the causal mask already hides it, so SDPA runs with ``is_causal=True``
and no mask, and the output is rolled back. For real tokens this is exactly causal attention under
the padding mask; outputs at pad positions differ (they are finite, and the loss masks them).
Rotary position embeddings are applied before the attention function and depend only on position
differences, so the roll does not change them. Anything else (decoding steps, a KV cache longer
than the queries, sliding windows, non-causal layers, masks whose real tokens are not one
contiguous run per row) goes to transformers' own SDPA function unchanged.

Use it with ``[model] attn_implementation = "sdpa_unpadded"`` in a training config
(:func:`whowrote.train.modeling.load_policy` registers it).
"""

from __future__ import annotations

import weakref
from typing import Any

NAME = "sdpa_unpadded"
_plan_cache: dict[str, Any] = {}  # the last mask's roll plan: every layer of one forward gets that mask


def _roll_plan(mask: Any, batch: int) -> tuple[Any, Any] | None:
    """(gather index into the rolled order, index back) for a 4-D attention mask, or None when
    some row's real tokens are not one contiguous run. Cached for the mask object itself."""
    import torch

    ref = _plan_cache.get("mask")
    if ref is not None and ref() is mask:
        return _plan_cache["plan"]
    valid = mask[:, 0, -1, :]  # the last query sees every real key under a causal padding mask
    valid = valid if valid.dtype == torch.bool else valid == 0  # an additive mask: 0 = attend
    valid = valid.expand(batch, -1)
    length = valid.shape[-1]
    n = valid.sum(-1)
    first = valid.to(torch.int32).argmax(-1)
    pos = torch.arange(length, device=valid.device)
    gather = (pos[None, :] + first[:, None]) % length  # rolled position j holds original j + first
    contiguous = bool((valid.gather(1, gather) == (pos[None, :] < n[:, None])).all())  # one sync per forward
    plan = (gather, (pos[None, :] - first[:, None]) % length) if contiguous else None
    _plan_cache.update(mask=weakref.ref(mask), plan=plan)
    return plan


def _take(x: Any, index: Any) -> Any:
    """``x[b, h, index[b, j], :]`` for (batch, heads, length, dim) tensors."""
    return x.gather(2, index[:, None, :, None].expand(-1, x.shape[1], -1, x.shape[3]))


def sdpa_unpadded_forward(module: Any, query: Any, key: Any, value: Any, attention_mask: Any,
                          dropout: float = 0.0, scaling: float | None = None, is_causal: bool | None = None,
                          **kwargs: Any) -> tuple[Any, None]:
    """A transformers attention function (same signature and output as ``sdpa_attention_forward``)."""
    import torch
    from transformers.integrations.sdpa_attention import repeat_kv, sdpa_attention_forward

    length = query.shape[2]
    causal = is_causal if is_causal is not None else getattr(module, "is_causal", True)
    plan = None
    if (attention_mask is not None and attention_mask.dim() == 4 and causal and length > 1
            and key.shape[2] == length and kwargs.get("sliding_window") is None
            and getattr(module, "sliding_window", None) is None):
        plan = _roll_plan(attention_mask, query.shape[0])
    if plan is None:
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout, scaling=scaling,
                                      is_causal=is_causal, **kwargs)
    gather, back = plan
    groups = getattr(module, "num_key_value_groups", 1)
    q, k, v = _take(query, gather), _take(repeat_kv(key, groups), gather), _take(repeat_kv(value, groups), gather)
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=dropout, scale=scaling, is_causal=True)
    return _take(out, back).transpose(1, 2).contiguous(), None


def register() -> str:
    """Register ``sdpa_unpadded`` with transformers (idempotent); its masks are SDPA's. Returns the name."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(NAME, sdpa_unpadded_forward)
    AttentionMaskInterface.register(NAME, sdpa_mask)
    return NAME
