"""A tiny randomly initialised chat model, built offline, for smoke tests of every recipe.

``build_tiny_model(out_dir)`` trains a small byte-level BPE tokenizer on the task's own system
prompts (so a prompt is a few dozen tokens), wraps it with a ChatML chat template, and saves a
2-layer Llama with hidden size 32 next to it. Nothing is downloaded. CPU tests and the CPU
dry-run of the GPU ladder (``scripts/gpu/ladder.sh``) use it in place of a real checkpoint.
"""

from __future__ import annotations

from pathlib import Path

from whowrote.data.outdir import claim_folder, json_object
from whowrote.task.prompts import VARIANTS, system_prompt
from whowrote.types import PROVIDERS

CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
SPECIAL = ["<|im_start|>", "<|im_end|>", "<pad>"]
# Task words as single tokens keep answers short, which makes "memorise this set" tests fast.
TASK_TOKENS = ["<answer>", "</answer>", "<reason_why>", "</reason_why>", *PROVIDERS, "Confidence:", "HIGH"]
FILLER = [
    "The committee weighed the evidence carefully before it reached a decision.",
    "Honestly, the real question is what we owe each other when the stakes are high.",
    "In conclusion, there are several factors to consider, such as cost, scale and risk.",
    "We must build a paradigm that is fundamentally robust, scalable and profound.",
    "It is worth noting that the data can also depend on context and framing.",
]


def build_tokenizer(vocab_size: int = 1200):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    corpus = []
    for variant in VARIANTS:
        try:
            corpus.append(system_prompt(variant))
        except ValueError:
            continue
    corpus = corpus * 20 + FILLER * 20
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(corpus, trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<pad>",
                                   bos_token="<|im_start|>", unk_token=None)
    fast.add_tokens(TASK_TOKENS)
    fast.chat_template = CHATML
    fast.padding_side = "left"
    return fast


def build_tiny_model(out_dir: str | Path, *, hidden: int = 32, layers: int = 2, seed: int = 0) -> Path:
    """Save a tiny Llama + tokenizer to ``out_dir`` and return it."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    out = claim_folder(Path(out_dir), "whowrote train tiny-model", _earlier_tiny)  # never a user's folder
    tok = build_tokenizer()
    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=hidden, intermediate_size=hidden * 2,
                      num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=2,
                      max_position_embeddings=4096, tie_word_embeddings=True,
                      bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    model = LlamaForCausalLM(cfg)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def _earlier_tiny(out: Path) -> bool:
    """A tiny model saved before folders were marked: its tokenizer carries this module's template."""
    try:
        if (out / "chat_template.jinja").is_file():
            return (out / "chat_template.jinja").read_text(encoding="utf-8") == CHATML
    except (OSError, ValueError):
        return False
    return (json_object(out / "tokenizer_config.json") or {}).get("chat_template") == CHATML
