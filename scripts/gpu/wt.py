"""``python scripts/gpu/wt.py ARGS`` == ``whowrote ARGS`` with per-process vLLM engine settings.

Several trainers, STaR and eval engines share one GPU in the session-4 calls
(scripts/gpu/qwen_calls.sh). Each vLLM engine in such a process must

- size its KV cache explicitly (``kv_cache_memory_bytes``): vLLM's profiler otherwise counts
  memory that *other* processes allocate during its start-up as its own, and asserts ("Error in
  memory profiling") when another process frees memory meanwhile (vllm/v1/worker/gpu_worker.py);
- ask for a small ``gpu_memory_utilization`` (vLLM refuses to start when less than
  ``utilization x total`` is free);
- run in bf16 even when the checkpoint's config says float32 (our trainers save fp32 master
  weights; TRL's colocated ``LLM(...)`` takes the dtype from the config, and FlashAttention has no
  fp32 kernels).

The engines are built in code we do not own (TRL's colocate mode, ``whowrote.llm.vllm_backend``),
so this launcher wraps ``vllm.LLM.__init__`` before the command runs and fills in what the
environment says. Only a process given ``WT_VLLM_KV_GIB`` or ``WT_VLLM_UTIL`` (one that runs an
engine) imports vLLM and is patched; without vLLM installed (CPU dry runs) nothing is.

    WT_VLLM_KV_GIB     KV cache size in GiB (kv_cache_memory_bytes)
    WT_VLLM_UTIL       gpu_memory_utilization (overrides the caller's)
    WT_VLLM_DTYPE      dtype when the caller gave none or "auto" (e.g. bfloat16)
    WT_VLLM_EAGER=1    enforce_eager (no torch.compile / CUDA graphs: ~25 s faster start, slower decode)
    WT_VLLM_MAX_LEN    max_model_len when the caller gave none
    WT_VLLM_BATCHED_TOKENS  max_num_batched_tokens, always (TRL's colocated engine hard-codes 4096:
                       ~7 prefill chunks for 12 distinct 2,300-token prompts; the rollout bench
                       measured 17,764 new tok/s at 65,536, docs/results.md)
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any


def engine_overrides(env: dict[str, str], given: dict[str, Any]) -> dict[str, Any]:
    """The ``vllm.LLM`` keyword arguments to change, from ``env``, given the caller's ``given``."""
    out: dict[str, Any] = {}
    if env.get("WT_VLLM_KV_GIB"):
        out["kv_cache_memory_bytes"] = int(float(env["WT_VLLM_KV_GIB"]) * 2**30)
    if env.get("WT_VLLM_UTIL"):
        out["gpu_memory_utilization"] = float(env["WT_VLLM_UTIL"])
    if env.get("WT_VLLM_DTYPE") and given.get("dtype") in (None, "auto"):
        out["dtype"] = env["WT_VLLM_DTYPE"]
    if env.get("WT_VLLM_EAGER", "") in ("1", "true", "yes"):
        out["enforce_eager"] = True
    if env.get("WT_VLLM_MAX_LEN") and given.get("max_model_len") is None:
        out["max_model_len"] = int(env["WT_VLLM_MAX_LEN"])
    if env.get("WT_VLLM_BATCHED_TOKENS"):
        out["max_num_batched_tokens"] = int(env["WT_VLLM_BATCHED_TOKENS"])
    return out


def patch_vllm(env: dict[str, str]) -> bool:
    """Wrap ``vllm.LLM.__init__`` (once) so every engine of this process gets ``engine_overrides``."""
    if not (env.get("WT_VLLM_KV_GIB") or env.get("WT_VLLM_UTIL")) or importlib.util.find_spec("vllm") is None:
        return False
    import vllm

    init = vllm.LLM.__init__
    if getattr(init, "_wt_patched", False):
        return True

    def patched(self: Any, *args: Any, **kwargs: Any) -> None:
        changes = engine_overrides(env, kwargs)
        print(f"[wt] vllm.LLM overrides: {changes}", file=sys.stderr, flush=True)
        init(self, *args, **{**kwargs, **changes})

    patched._wt_patched = True  # type: ignore[attr-defined]
    vllm.LLM.__init__ = patched  # type: ignore[method-assign]
    return True


def main(argv: list[str]) -> None:
    patch_vllm(dict(os.environ))
    from whowrote.cli import main as cli_main

    cli_main(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
