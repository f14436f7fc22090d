"""The optimisation half of a GRPO step on one GPU, without TRL: is it what keeps the step over 3 s?

Issue 14 asks for a GRPO step of 96 rollouts in <= 3 s; session 7 measured 7.2 s with TRL and
vLLM colocated, and nothing said how much of it is sampling. This times, on random weights of the
model's shape (only the shape matters), what TRL's step does after the rollouts, with the
SmolLM2 GRPO config's batch (96 sequences of ``--prompt-len`` + ``--completion`` tokens, micro-batches
of ``--micro``, one AdamW step; fp32 weights, no gradient checkpointing, as ``configs/smollm2_grpo.toml``),
with bf16 autocast (what the runs use: ``run.bf16 = "auto"`` turns it on on a GPU) and in pure fp32:

- ``train_bf16`` / ``train_fp32``: forward + backward of every micro-batch (the loss on the
  completion tokens' log-probabilities only, the logits made for those positions only, as TRL's
  ``logits_to_keep`` does) and the optimizer step;
- ``logps_bf16`` / ``logps_fp32``: the no-grad log-probability pass over the same batch (TRL's
  old-policy pass for the vLLM importance-sampling correction);
- ``train_bf16w`` / ``logps_bf16w`` (asked for with ``--modes``): the same on a bf16 copy of the
  weights without autocast (``model.dtype = "bfloat16"``: no fp32 master weights, so no casts);
- ``train_bf16_ckpt``: ``train_bf16`` with gradient checkpointing (the backward recomputes each
  layer's forward), what every SmolLM2 run did until session 13: TRL's configs default
  ``gradient_checkpointing`` to True and whowrote passed it only when on.

``--left-pad N`` gives row ``b`` a random number of left pad tokens in ``[0, N]`` and passes the
padding mask, as TRL's left-padded prompts do; ``--attn`` names the attention implementations to
compare on that batch (``sdpa`` with the mask runs the memory-efficient kernel; ``sdpa_unpadded``,
``whowrote.train.attention``, the flash kernel). Each mode then runs once per implementation, and
the JSON records the largest difference of the completion log-probabilities from the first one.

Contenders interleaved, ``--reps`` each after one warm-up, medians in the JSON (``--out``).

    python scripts/gpu/bench_train_pass.py --reps 2 --micro 8 --out results/session10/train_pass.json
    python scripts/gpu/bench_train_pass.py --reps 3 --micro 16 --left-pad 600 --modes train_bf16 logps_bf16 --attn sdpa sdpa_unpadded --out results/session12/attention/attention_mb16.json
    python scripts/gpu/bench_train_pass.py --shape tiny --prompts 4 --prompt-len 16 --completion 8 --micro 2 --out /tmp/t.json
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import statistics
import time
from pathlib import Path
from typing import Any

from bench_generate import SHAPES as MODEL_SHAPES  # the same folder: the public configs of the two models

SHAPES = {**MODEL_SHAPES, "tiny": dict(model_type="llama", hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                       num_attention_heads=4, num_key_value_heads=2, vocab_size=256,
                                       max_position_embeddings=256, tie_word_embeddings=True)}  # CPU tests
MODES = ("train_fp32", "train_bf16", "logps_fp32", "logps_bf16")  # the default set
BF16_WEIGHTS = ("train_bf16w", "logps_bf16w")
CHECKPOINTED = ("train_bf16_ckpt",)


def completion_logps(model: Any, ids: Any, completion: int, mask: Any = None) -> Any:
    """Log-probabilities of the last ``completion`` tokens of each row (logits for those only)."""
    import torch

    logits = model(input_ids=ids, attention_mask=mask, logits_to_keep=completion + 1).logits[:, :-1].float()
    return torch.log_softmax(logits, dim=-1).gather(-1, ids[:, -completion:, None]).squeeze(-1)


def micro_batches(batch: Any, mask: Any, micro: int) -> Any:
    """``(ids, mask)`` of each micro-batch of ``micro`` rows (the mask None when there is none)."""
    for a in range(0, len(batch), micro):
        yield batch[a:a + micro], None if mask is None else mask[a:a + micro]


def one_pass(model: Any, opt: Any, batch: Any, micro: int, completion: int, mode: str, mask: Any = None) -> float:
    """Seconds of one step of ``mode`` over ``batch`` (``mask``: its padding mask, or None;
    synchronised before and after)."""
    import torch

    cuda = batch.is_cuda
    bf16 = mode.removesuffix("_ckpt").endswith("bf16")
    autocast = torch.autocast("cuda" if cuda else "cpu", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()
    if cuda:
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    if mode.startswith("train"):
        opt.zero_grad(set_to_none=True)
        for ids, m in micro_batches(batch, mask, micro):
            with autocast:
                lp = completion_logps(model, ids, completion, m)
            (-lp.mean() * (len(ids) / len(batch))).backward()
        opt.step()
    else:
        with torch.no_grad(), autocast:
            for ids, m in micro_batches(batch, mask, micro):
                completion_logps(model, ids, completion, m)
    if cuda:
        torch.cuda.synchronize()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", choices=sorted(SHAPES), default="smollm2-135m")
    ap.add_argument("--prompts", type=int, default=96, help="sequences per step (12 prompts x 8 rollouts)")
    ap.add_argument("--prompt-len", type=int, default=2300)
    ap.add_argument("--completion", type=int, default=256)
    ap.add_argument("--micro", type=int, default=16)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--modes", nargs="+", choices=MODES + BF16_WEIGHTS + CHECKPOINTED, default=list(MODES))
    ap.add_argument("--left-pad", type=int, default=0, metavar="N",
                    help="up to N left pad tokens per row (random), with the padding mask passed")
    ap.add_argument("--attn", nargs="+", default=["sdpa"], choices=("eager", "sdpa", "sdpa_unpadded"),
                    help="attention implementations to compare")
    a = ap.parse_args()

    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    from whowrote.train.attention import register

    register()
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    torch.backends.cuda.matmul.allow_tf32 = False  # torch's default, which whowrote's trainers keep (no tf32 argument)
    torch.manual_seed(0)
    spec = dict(SHAPES[a.shape])
    model = AutoModelForCausalLM.from_config(AutoConfig.for_model(spec.pop("model_type"), **spec)).to(dev).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-6)
    if any(m in BF16_WEIGHTS for m in a.modes):  # a bf16 copy of the same weights, its own optimizer
        model_w = copy.deepcopy(model).to(torch.bfloat16)
        opt_w = torch.optim.AdamW(model_w.parameters(), lr=1e-6)
    g = torch.Generator().manual_seed(0)
    batch = torch.randint(1, SHAPES[a.shape]["vocab_size"], (a.prompts, a.prompt_len + a.completion), generator=g)
    mask = None
    if a.left_pad > 0:
        pads = torch.randint(0, min(a.left_pad, a.prompt_len - 1) + 1, (a.prompts,), generator=g)
        mask = (torch.arange(batch.shape[1])[None, :] >= pads[:, None]).long()
        batch, mask = (batch * mask).to(dev), mask.to(dev)
    batch = batch.to(dev)
    runs = [(m, attn) for m in a.modes for attn in a.attn]

    def name(m: str, attn: str) -> str:
        return m if len(a.attn) == 1 else f"{m}/{attn}"

    def timed(m: str, attn: str) -> float:
        mdl, op = (model_w, opt_w) if m in BF16_WEIGHTS else (model, opt)
        mdl.config._attn_implementation = attn
        # transformers >= 5.2x names it activation checkpointing (the old names warn)
        enable, disable = ((mdl.activation_checkpointing_enable, mdl.activation_checkpointing_disable)
                           if hasattr(mdl, "activation_checkpointing_enable") else
                           (mdl.gradient_checkpointing_enable, mdl.gradient_checkpointing_disable))
        if m in CHECKPOINTED:
            enable()
        if getattr(mdl, "is_activation_checkpointing", False) or getattr(mdl, "is_gradient_checkpointing", False):
            checkpointed.add(name(m, attn))
        try:
            return one_pass(mdl, op, batch, a.micro, a.completion, m, mask)
        finally:
            if m in CHECKPOINTED:
                disable()

    times: dict[str, list[float]] = {name(m, attn): [] for m, attn in runs}
    checkpointed: set[str] = set()  # contenders that really ran with checkpointing on
    for m, attn in runs:  # warm-up (kernels, allocator)
        timed(m, attn)
    for _ in range(a.reps):
        for m, attn in runs:
            times[name(m, attn)].append(timed(m, attn))
    diffs = {}
    if len(a.attn) > 1:  # the same weights, no grad: how far each implementation's log-probs are from the first's
        with torch.no_grad(), torch.autocast("cuda" if dev == "cuda" else "cpu", dtype=torch.bfloat16):
            lps = {}
            for attn in a.attn:
                model.config._attn_implementation = attn
                lps[attn] = torch.cat([completion_logps(model, ids, a.completion, m)
                                       for ids, m in micro_batches(batch, mask, a.micro)])
        diffs = {attn: float((lps[attn] - lps[a.attn[0]]).abs().max()) for attn in a.attn[1:]}
    res = {"shape": a.shape, "device": torch.cuda.get_device_name() if dev == "cuda" else "cpu",
           "torch": torch.__version__, "batch": [a.prompts, a.prompt_len + a.completion], "micro": a.micro,
           "left_pad_max": a.left_pad, "pad_tokens": 0 if mask is None else int((mask == 0).sum()),
           "tf32": False, "median_s": {m: statistics.median(v) for m, v in times.items()}, "times_s": times,
           "max_abs_logp_diff_vs_first_attn": diffs, "checkpointed": sorted(checkpointed),
           "peak_gib": torch.cuda.max_memory_allocated() / 2**30 if dev == "cuda" else None}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(res, indent=1) + "\n")
    print(" ".join(f"{m} {s:.3f}s" for m, s in res["median_s"].items()), f"peak {res['peak_gib']} GiB", diffs)

if __name__ == "__main__":
    main()
