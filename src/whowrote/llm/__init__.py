"""Running LLMs on the task: model loading, generation backends, the eval harness, metrics.

Heavy libraries (torch, transformers, openai) are imported inside functions.
"""

from whowrote.llm.models import (
    find_packaged_gguf,
    fix_tokenizer,
    load_causal_lm,
    load_tokenizer,
    resolve_model,
)

__all__ = ["find_packaged_gguf", "fix_tokenizer", "load_causal_lm", "load_tokenizer", "resolve_model"]
