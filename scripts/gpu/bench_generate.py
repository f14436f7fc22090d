"""Rollout throughput on one GPU: vLLM against HF ``generate``, side by side in one process.

The shape of one GRPO step / eval batch (issue 14): ``--prompts`` prompts of ``--prompt-len`` random
token ids -> exactly ``--new`` sampled tokens each (temperature 0.7, top_p 0.95; eos ignored, so every
contender produces the same number of tokens). Random weights with the real model's config are
enough for throughput. Contenders run interleaved, ``--reps`` times each, fresh prompts every
repetition (vLLM's prefix cache is off as well), and the table reports medians:

- ``vllm``: ``vllm.LLM`` (v1 engine, bf16, CUDA graphs + torch.compile as vLLM defaults to);
- ``hf_mask``: ``model.generate`` with an attention mask, as ``TransformersBackend`` calls it;
- ``hf_nomask``: the same without the mask (once per run: it is only a reference point);
- ``vllm_t``: the same engine sampling with temperature only (top_p 1, top_k off), as TRL's GRPO
  rollouts do by default; vLLM then skips its top-k/top-p kernel (``--temperature-only``).

Both vLLM contenders are warmed up at the full batch shape first: session 3's warm-up on 8 prompts
left the Triton top-k/top-p kernel to compile inside the first timed repetition (5,300 tok/s
against 14,000-19,500 after it).

    python scripts/gpu/bench_generate.py --shape smollm2-135m --out results/vllm/bench_smollm2.json

The floor printed beside the numbers is the memory-bandwidth bound of the decode phase
(weights + the whole KV cache read once per step at ``--bandwidth`` bytes/s).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SHAPES = {  # the public configs of the two models (only the shape matters for throughput)
    "smollm2-135m": dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=576,
                         intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
                         num_key_value_heads=3, vocab_size=49152, max_position_embeddings=8192,
                         rope_theta=100000.0, rms_norm_eps=1e-5, tie_word_embeddings=True,
                         bos_token_id=1, eos_token_id=2, hidden_act="silu"),
    "qwen2.5-0.5b": dict(architectures=["Qwen2ForCausalLM"], model_type="qwen2", hidden_size=896,
                         intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14,
                         num_key_value_heads=2, vocab_size=151936, max_position_embeddings=32768,
                         rope_theta=1000000.0, rms_norm_eps=1e-6, tie_word_embeddings=True,
                         bos_token_id=151643, eos_token_id=151645, hidden_act="silu",
                         sliding_window=None, use_sliding_window=False, max_window_layers=21),
}


def random_model(shape: str, out: Path) -> Path:
    """Save a randomly initialised bf16 checkpoint of ``shape`` (once) and return its folder."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    if (out / "config.json").exists():
        return out
    spec = dict(SHAPES[shape])
    cfg = AutoConfig.for_model(spec.pop("model_type"), **spec)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16)
    model.save_pretrained(out)
    return out


def decode_floor(shape: str, prompts: int, prompt_len: int, new: int, bandwidth: float) -> float:
    """New tokens/s if each decode step only read the weights and the KV cache once."""
    s = SHAPES[shape]
    d, layers = s["hidden_size"], s["num_hidden_layers"]
    head = d // s["num_attention_heads"]
    n_params = layers * (2 * d * d + 2 * d * s["num_key_value_heads"] * head + 3 * d * s["intermediate_size"]) \
        + s["vocab_size"] * d
    kv_per_token = 2 * s["num_hidden_layers"] * s["num_key_value_heads"] * head * 2  # K and V, bf16
    mean_ctx = prompt_len + new / 2
    step_bytes = 2 * n_params + prompts * mean_ctx * kv_per_token
    return prompts * bandwidth / step_bytes


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", choices=sorted(SHAPES), default="smollm2-135m")
    ap.add_argument("--model", default="", help="checkpoint folder; default: random weights in --work")
    ap.add_argument("--work", default="/tmp/bench_models")
    ap.add_argument("--prompts", type=int, default=96)
    ap.add_argument("--prompt-len", type=int, default=2300)
    ap.add_argument("--new", type=int, default=256)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--gpu-mem", type=float, default=0.5, help="vLLM's share of GPU memory")
    ap.add_argument("--bandwidth", type=float, default=4.3e12, help="bytes/s (measured copy rate on an H200)")
    ap.add_argument("--temperature-only", action="store_true", help="also time vllm_t (top_p 1)")
    ap.add_argument("--hf-reps", type=int, default=-1, help="HF repetitions (default: --reps)")
    ap.add_argument("--no-hf-nomask", action="store_true", help="skip the maskless HF reference")
    ap.add_argument("--max-num-batched-tokens", type=int, default=0,
                    help="vLLM's scheduler token budget per step (0: vLLM's default, 16,384 on an H200); the "
                         "96 x 2,300-token prefill takes 14 steps at the default")
    ap.add_argument("--out", default="")
    a = ap.parse_args()

    import torch
    from transformers import AutoModelForCausalLM
    from vllm import LLM, SamplingParams
    from vllm.inputs import TokensPrompt

    path = Path(a.model) if a.model else random_model(a.shape, Path(a.work) / a.shape)
    vocab = SHAPES[a.shape]["vocab_size"]
    gen = torch.Generator().manual_seed(0)

    def fresh_prompts() -> torch.Tensor:
        return torch.randint(100, vocab - 100, (a.prompts, a.prompt_len), generator=gen)

    t0 = time.perf_counter()
    llm = LLM(model=str(path), dtype="bfloat16", skip_tokenizer_init=True, seed=0, gpu_memory_utilization=a.gpu_mem,
              max_model_len=a.prompt_len + a.new + 16, enable_prefix_caching=False,
              **({"max_num_batched_tokens": a.max_num_batched_tokens} if a.max_num_batched_tokens else {}))
    vllm_start = time.perf_counter() - t0
    t0 = time.perf_counter()
    hf = AutoModelForCausalLM.from_pretrained(str(path), dtype=torch.bfloat16).cuda().eval()
    hf.generation_config.eos_token_id = None  # exactly --new tokens, like ignore_eos below
    hf_load = time.perf_counter() - t0
    sp = SamplingParams(temperature=0.7, top_p=0.95, max_tokens=a.new, ignore_eos=True, seed=0)
    sp_t = SamplingParams(temperature=0.7, top_p=1.0, top_k=-1, max_tokens=a.new, ignore_eos=True, seed=0)

    def run_vllm(ids: torch.Tensor, params: Any = sp) -> int:
        outs = llm.generate([TokensPrompt(prompt_token_ids=row.tolist()) for row in ids], params, use_tqdm=False)
        return sum(len(o.outputs[0].token_ids) for o in outs)

    def run_hf(ids: torch.Tensor, mask: bool) -> int:
        x = ids.cuda()
        kw = {"attention_mask": torch.ones_like(x)} if mask else {}
        with torch.inference_mode():
            out = hf.generate(x, **kw, max_new_tokens=a.new, do_sample=True,
                              temperature=0.7, top_p=0.95, top_k=0, pad_token_id=0)
        torch.cuda.synchronize()
        return int(out.shape[0] * (out.shape[1] - x.shape[1]))

    contenders: dict[str, Callable[[torch.Tensor], int]] = {
        "vllm": run_vllm, "hf_mask": lambda ids: run_hf(ids, True), "hf_nomask": lambda ids: run_hf(ids, False)}
    if a.temperature_only:
        contenders["vllm_t"] = lambda ids: run_vllm(ids, sp_t)
    if a.no_hf_nomask:
        del contenders["hf_nomask"]
    # warm-up at the full shape (vLLM compiles kernels for the batch it first sees; HF's first call
    # pays cuBLAS handle setup)
    run_vllm(fresh_prompts())
    if a.temperature_only:
        run_vllm(fresh_prompts(), sp_t)
    run_hf(fresh_prompts()[:8, :256], True)
    times: dict[str, list[float]] = {k: [] for k in contenders}
    tokens: dict[str, list[int]] = {k: [] for k in contenders}
    hf_reps = a.reps if a.hf_reps < 0 else a.hf_reps
    plan = [name for i in range(a.reps) for name in ("vllm", "vllm_t", "hf_mask")
            if name in contenders and (name != "hf_mask" or i < hf_reps)]
    plan += ["hf_nomask"] if "hf_nomask" in contenders else []
    for name in plan:
        ids = fresh_prompts()
        t0 = time.perf_counter()
        n = contenders[name](ids)
        dt = time.perf_counter() - t0
        times[name].append(dt)
        tokens[name].append(n)
        print(f"{a.shape:14s} {name:10s} {n} new tokens in {dt:7.2f} s = {n / dt:9.0f} tok/s", flush=True)
    rate = {k: statistics.median(n / t for n, t in zip(tokens[k], times[k], strict=True)) for k in contenders}
    floor = decode_floor(a.shape, a.prompts, a.prompt_len, a.new, a.bandwidth)
    result = {
        "shape": a.shape, "model": str(path), "random_weights": not a.model, "prompts": a.prompts,
        "prompt_len": a.prompt_len, "new_tokens": a.new, "reps": a.reps, "sampling": {"temperature": 0.7, "top_p": 0.95},
        "sampling_vllm_t": {"temperature": 0.7, "top_p": 1.0} if a.temperature_only else None,
        "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
        "vllm_version": __import__("vllm").__version__, "vllm_startup_s": round(vllm_start, 1),
        "hf_load_s": round(hf_load, 1), "times_s": times, "tokens": tokens,
        "median_tok_per_s": {k: round(v) for k, v in rate.items()},
        "vllm_over_hf_mask": round(rate["vllm"] / rate["hf_mask"], 1),
        "vllm_t_over_hf_mask": round(rate["vllm_t"] / rate["hf_mask"], 1) if "vllm_t" in rate else None,
        "warmup": "full shape",
        "max_num_batched_tokens": llm.llm_engine.vllm_config.scheduler_config.max_num_batched_tokens,
        "async_scheduling": llm.llm_engine.vllm_config.scheduler_config.async_scheduling,
        "decode_floor_tok_per_s": round(floor),
    }
    print(json.dumps({k: result[k] for k in ("shape", "median_tok_per_s", "vllm_over_hf_mask",
                                             "decode_floor_tok_per_s", "vllm_startup_s")}), flush=True)
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
