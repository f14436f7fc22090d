"""Loading the policy and its tokenizer for training.

The loader itself is the eval harness's (``whowrote.llm.models.load_causal_lm``: HF ids, local
directories and GGUF files, with the eos and pad-token fixes). Here we only add what training
needs: the attention implementation, the device of this process, and a one-off GGUF ->
safetensors export so that trainers, resumed runs and evals all load a plain directory instead of
dequantising the GGUF every time.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from whowrote.train.attention import NAME as ATTENTION_NAME
from whowrote.train.attention import register as register_attention
from whowrote.train.config import ModelConfig
from whowrote.types import WhowroteError


def load_policy(cfg: ModelConfig, *, device: str | None = None) -> tuple[Any, Any]:
    """(model, tokenizer) ready for TRL: pad token set (by the loader), dtype as configured, on ``device``."""
    import torch

    from whowrote.llm.models import load_causal_lm

    model, tok = load_causal_lm(cfg.name_or_path, gguf_file=cfg.gguf_file or None, dtype=cfg.dtype)
    if cfg.attn_implementation:
        if cfg.attn_implementation == ATTENTION_NAME:  # ours: transformers must know it before the first forward
            register_attention()
        try:  # transformers checks the name (and that its kernel package is installed) here, not mid-run
            if hasattr(model, "set_attn_implementation"):
                model.set_attn_implementation(cfg.attn_implementation)
            else:  # transformers older than the setter (the llm extra allows >= 4.50)
                model.config._attn_implementation = cfg.attn_implementation
        except (ValueError, ImportError, KeyError) as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise WhowroteError(f"model.attn_implementation = {cfg.attn_implementation!r}: {first}") from None
    if device is None:
        # Under accelerate/torchrun each process owns the GPU of its LOCAL_RANK.
        device = f"cuda:{os.environ.get('LOCAL_RANK', '0')}" if torch.cuda.is_available() else "cpu"
    if str(getattr(model, "device", "")) != device:
        model.to(device)
    return model, tok


EXPORT_OWNER = "whowrote train export-model"


def export_model(cfg: ModelConfig, out_dir: str | Path) -> Path:
    """Load (e.g. dequantise a GGUF) once and save a plain HF directory other runs can load fast.
    A user's non-empty folder is refused before the load, and nothing is written if the load fails."""
    from whowrote.data.outdir import check_own_folder, claim_folder

    out = Path(out_dir)
    check_own_folder(out, EXPORT_OWNER)
    model, tok = load_policy(cfg, device="cpu")
    claim_folder(out, EXPORT_OWNER)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def use_bf16(setting: str) -> bool:
    import torch

    if setting == "auto":
        return torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    return setting.lower() in ("1", "true", "yes", "on")
