"""``sdpa_unpadded`` (whowrote.train.attention) against transformers' SDPA on left-padded batches."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from whowrote.train import attention  # noqa: E402


def tiny_llama(kv_heads: int = 2):
    cfg = transformers.AutoConfig.for_model("llama", hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                            num_attention_heads=4, num_key_value_heads=kv_heads, vocab_size=97,
                                            max_position_embeddings=128)
    torch.manual_seed(0)
    return transformers.AutoModelForCausalLM.from_config(cfg).float().eval()


def padded_batch(lefts: list[int], rights: list[int], length: int = 24):
    """Rows of ``[left pads | real tokens | right pads]`` (token 0 as pad) and their 2-D mask."""
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(1, 97, (len(lefts), length), generator=g)
    mask = torch.ones_like(ids)
    for b, (lo, hi) in enumerate(zip(lefts, rights, strict=True)):
        mask[b, :lo] = 0
        mask[b, length - hi:] = 0
    return ids * mask, mask


def logits_with(model, impl: str, ids, mask):
    model.config._attn_implementation = impl
    return model(input_ids=ids, attention_mask=mask).logits


@pytest.mark.parametrize("kv_heads", [4, 2])
def test_real_tokens_get_the_same_logits_and_gradients_as_masked_sdpa(kv_heads, monkeypatch):
    attention.register()
    model = tiny_llama(kv_heads)
    ids, mask = padded_batch([0, 5, 11, 2], [3, 0, 6, 9])
    real = mask.bool()
    want = logits_with(model, "sdpa", ids, mask)
    rolled = []
    take = attention._take
    monkeypatch.setattr(attention, "_take", lambda x, i: rolled.append(1) or take(x, i))
    got = logits_with(model, attention.NAME, ids, mask)
    assert len(rolled) == 2 * 4  # both layers took the rolled path (q, k, v in, output back)
    assert torch.allclose(got[real], want[real], atol=1e-5)
    assert torch.isfinite(got).all()

    grads = {}
    for impl in ("sdpa", attention.NAME):
        model.zero_grad()
        out = logits_with(model, impl, ids, mask).log_softmax(-1)
        (out[real].logsumexp(-1).sum() + out[real][:, 3].sum()).backward()
        grads[impl] = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])
    assert torch.allclose(grads[attention.NAME], grads["sdpa"], atol=1e-5, rtol=1e-4)


def test_the_rolled_path_is_taken_and_differs_from_ignoring_the_mask():
    """Guards the test above: without the roll (plain causal SDPA over the padded rows) the left
    padded rows' logits change, so equality there is not an accident of the inputs."""
    attention.register()
    model = tiny_llama()
    ids, mask = padded_batch([6, 0], [0, 4])
    real = mask.bool()
    want = logits_with(model, "sdpa", ids, mask)
    assert not torch.allclose(logits_with(model, "sdpa", ids, torch.ones_like(mask))[real], want[real], atol=1e-3)
    plan = attention._roll_plan(torch.ones(2, 1, 24, 24, dtype=torch.bool).tril(), 2)
    assert plan is not None and plan[0][0, 0] == 0


def test_a_mask_with_holes_falls_back_to_sdpa():
    attention.register()
    model = tiny_llama()
    ids, mask = padded_batch([2, 0], [0, 3])
    mask[0, 10] = 0  # a hole: real tokens are not one run
    real = mask.bool()
    want = logits_with(model, "sdpa", ids, mask)
    got = logits_with(model, attention.NAME, ids, mask)
    assert torch.allclose(got[real], want[real], atol=1e-6)
    lengths = torch.tensor([[1, 1, 0, 1]], dtype=torch.bool)
    four_d = (torch.ones(4, 4, dtype=torch.bool).tril() & lengths)[None, None]
    assert attention._roll_plan(four_d, 1) is None


def test_greedy_generation_from_left_padded_prompts_is_unchanged():
    """Generation: the prompt's prefill takes the rolled path, each decoding step SDPA's own."""
    attention.register()
    model = tiny_llama()
    ids, mask = padded_batch([0, 7, 3], [0, 0, 0], length=16)
    outs = {}
    for impl in ("sdpa", attention.NAME):
        model.config._attn_implementation = impl
        outs[impl] = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=6, do_sample=False,
                                    pad_token_id=0)
    assert torch.equal(outs["sdpa"], outs[attention.NAME])


def test_load_policy_registers_it(tmp_path):
    from whowrote.train.config import ModelConfig
    from whowrote.train.modeling import load_policy
    from whowrote.train.tiny import build_tiny_model

    path = build_tiny_model(tmp_path / "tiny")
    model, _ = load_policy(ModelConfig(name_or_path=str(path), dtype="float32", attn_implementation=attention.NAME),
                           device="cpu")
    assert model.config._attn_implementation == attention.NAME
    ids = torch.tensor([[0, 0, 5, 6, 7], [3, 4, 5, 6, 7]])
    out = model(input_ids=ids, attention_mask=(ids > 0).long()).logits
    assert torch.isfinite(out).all()


def test_load_policy_refuses_an_unknown_attention_in_one_line(tmp_path):
    from whowrote.train.config import ModelConfig
    from whowrote.train.modeling import load_policy
    from whowrote.train.tiny import build_tiny_model
    from whowrote.types import WhowroteError

    path = build_tiny_model(tmp_path / "tiny")
    with pytest.raises(WhowroteError, match="model.attn_implementation = 'bogus'") as err:
        load_policy(ModelConfig(name_or_path=str(path), dtype="float32", attn_implementation="bogus"), device="cpu")
    assert "\n" not in str(err.value)
