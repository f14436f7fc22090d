"""Tiny offline models and synthetic splits for the harness tests (nothing is downloaded)."""

from __future__ import annotations

import json

import pytest

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
WORDS = ("the text reads warm and sincere with hedges lists and bold claims about paradigm shifts "
         "reason_why answer CLAUDE CHATGPT GEMINI confidence high low medium we must genuinely can also")


@pytest.fixture(scope="session")
def tiny_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["<unk>", "<|endoftext|>", "<|im_start|>", "<|im_end|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator([WORDS] * 20, trainer)
    # eos deliberately wrong (as in SmolLM2's GGUF tokenizer): fix_tokenizer must switch it to <|im_end|>.
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", eos_token="<|endoftext|>",
                                   bos_token="<|endoftext|>")
    fast.chat_template = CHATML
    return fast


def make_tiny_model(vocab: int, seed: int = 0):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096)
    return LlamaForCausalLM(cfg).eval()


@pytest.fixture()
def tiny_model(tiny_tokenizer):
    return make_tiny_model(len(tiny_tokenizer))


def write_split(path, n_per_class: int = 2, other: bool = False):
    rows = []
    for lab in ("CLAUDE", "CHATGPT", "GEMINI", *(("OTHER",) if other else ())):
        for i in range(n_per_class):
            rows.append({"id": f"{lab.lower()}-{i}", "text": f"Synthetic {lab.lower()} sample {i}. " * 6,
                         "provider": lab, "category": "c", "topic": f"t{i}"})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture()
def split_file(tmp_path):
    return write_split(tmp_path / "val.jsonl")


@pytest.fixture()
def split_writer():
    return write_split


@pytest.fixture()
def model_factory():
    return make_tiny_model
