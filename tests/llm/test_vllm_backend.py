"""The vLLM backend's CPU-side logic: request building, sampling-parameter mapping, output
conversion and the clear errors. vLLM itself is GPU-only, so a stand-in ``vllm`` module records
what the backend sends; the real engine is exercised by the recorded GPU run (docs/gpu-notes.md)."""

from __future__ import annotations

import json
import sys
import types
from dataclasses import dataclass, field

import pytest

from whowrote.llm.backends import SamplingParams
from whowrote.llm.models import fix_tokenizer
from whowrote.llm.vllm_backend import VLLMBackend, require_vllm, sampling_kwargs, to_samples
from whowrote.types import WhowroteError


@dataclass
class Completion:
    text: str
    token_ids: list[int]
    finish_reason: str | None


@dataclass
class RequestOutput:
    prompt_token_ids: list[int]
    outputs: list[Completion] = field(default_factory=list)


class FakeLLM:
    """Answers each request with k completions whose text names the request's seed."""

    def __init__(self) -> None:
        self.calls: list[tuple[list, list]] = []

    def generate(self, requests, params, use_tqdm=True):
        self.calls.append((requests, params))
        outs = []
        for req, sp in zip(requests, params, strict=True):
            comps = [Completion(f"seed{sp.kw['seed']}-{j}", [5, 6, 7], "stop" if j == 0 else "length")
                     for j in range(sp.kw["n"])]
            outs.append(RequestOutput(req["prompt_token_ids"], comps))
        return outs


@pytest.fixture
def fake_vllm(monkeypatch):
    mod = types.ModuleType("vllm")
    inputs = types.ModuleType("vllm.inputs")

    class FakeSamplingParams:
        def __init__(self, **kw):
            self.kw = kw

    mod.SamplingParams = FakeSamplingParams
    inputs.TokensPrompt = dict  # vLLM's TokensPrompt is a TypedDict
    monkeypatch.setitem(sys.modules, "vllm", mod)
    monkeypatch.setitem(sys.modules, "vllm.inputs", inputs)
    return mod


def msgs(text):
    return [{"role": "system", "content": "Name the author."}, {"role": "user", "content": text}]


def test_sampling_kwargs_map_our_params():
    kw = sampling_kwargs(SamplingParams(temperature=0.7, top_p=0.9, max_new_tokens=64, k=4), {7, 3}, seed=11)
    assert kw == {"n": 4, "temperature": 0.7, "top_p": 0.9, "top_k": 0, "max_tokens": 64, "seed": 11,
                  "stop_token_ids": [3, 7], "skip_special_tokens": True}
    greedy = sampling_kwargs(SamplingParams(temperature=0.0, top_p=0.5, k=1), set(), seed=0)
    assert greedy["temperature"] == 0.0 and greedy["top_p"] == 1.0 and greedy["top_k"] == -1


def test_to_samples_maps_finish_reasons_and_counts_tokens():
    out = RequestOutput([1, 2, 3, 4], [Completion("a", [9, 2], "stop"), Completion("b", [9] * 8, "length"),
                                       Completion("c", [], "abort")])
    s = to_samples(out)
    assert [x.finish_reason for x in s] == ["stop", "length", "error"]
    assert [x.completion_tokens for x in s] == [2, 8, 0] and {x.prompt_tokens for x in s} == {4}
    assert s[1].truncated and not s[0].truncated


def test_generate_sends_rendered_token_ids_with_per_prompt_seeds(fake_vllm, tiny_tokenizer):
    tok = fix_tokenizer(tiny_tokenizer)
    llm = FakeLLM()
    be = VLLMBackend("some/model", llm=llm, tokenizer=tok)
    prompts = [msgs("the text reads warm"), msgs("bold claims about paradigm shifts")]
    out = be.generate(prompts, SamplingParams(temperature=0.7, top_p=0.95, max_new_tokens=16, k=2, seed=100))
    (requests, params), = llm.calls  # one engine call for the whole batch
    for req, m in zip(requests, prompts, strict=True):
        rendered = tok.apply_chat_template(m, tokenize=False, add_generation_prompt=True)
        assert req["prompt_token_ids"] == tok(rendered, add_special_tokens=False)["input_ids"]
    assert [p.kw["seed"] for p in params] == [100, 101]
    assert all(p.kw["n"] == 2 and p.kw["max_tokens"] == 16 for p in params)
    im_end = tok.convert_tokens_to_ids("<|im_end|>")
    assert all(im_end in p.kw["stop_token_ids"] for p in params)
    assert [[s.text for s in ss] for ss in out] == [["seed100-0", "seed100-1"], ["seed101-0", "seed101-1"]]
    assert out[0][1].truncated and be.new_tokens == 4 * 3 and be.tokens_per_s > 0


def test_token_helpers_use_the_tokenizer(fake_vllm, tiny_tokenizer):
    be = VLLMBackend("m", llm=FakeLLM(), tokenizer=fix_tokenizer(tiny_tokenizer))
    text = "the text reads warm and sincere with hedges"
    assert be.count_tokens(text) == len(tiny_tokenizer(text, add_special_tokens=False)["input_ids"])
    assert be.count_tokens(be.truncate_tokens(text, 3)) <= 3
    assert be.prompt_tokens(msgs(text)) > be.count_tokens(text)


def test_missing_vllm_is_a_clear_error(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "vllm" else real(name, *a))
    with pytest.raises(WhowroteError, match=r"pip install '\.\[vllm\]' in the whowrote checkout"):
        require_vllm()
    with pytest.raises(WhowroteError, match="vLLM"):
        VLLMBackend("some/model")


def test_gguf_path_is_refused_with_the_export_hint():
    with pytest.raises(WhowroteError, match="export-model"):
        VLLMBackend("/models/x.gguf", llm=FakeLLM())


@pytest.mark.parametrize("extra, message", [
    (["--backend", "bogus", "--model", "m"], "--backend must be"),
    (["--backend", "vllm", "--endpoint", "http://localhost:1/v1"], "local --model"),
])
def test_eval_cli_rejects_bad_backend_choices(tmp_path, split_writer, extra, message):
    from typer.testing import CliRunner

    from whowrote.cli import app as typer_app  # the Typer app with every command (built on first use)

    split = split_writer(tmp_path / "val.jsonl")
    res = CliRunner().invoke(typer_app, ["eval", "--split", str(split), "--out", str(tmp_path / "o"), *extra])
    assert res.exit_code != 0
    assert message in (res.output + str(res.exception))


def test_star_samples_through_the_vllm_backend_when_asked(tmp_path, monkeypatch, tiny_model, tiny_tokenizer):
    from whowrote.llm import vllm_backend
    from whowrote.llm.backends import Sample
    from whowrote.train.config import StarRecipe
    from whowrote.train.star import generate_star

    seen = {}

    class Recorder:
        tokens_per_s = gen_seconds = 0.0

        def __init__(self, model, tokenizer=None):
            seen["model"] = model

        def generate(self, prompts, params):
            seen["k"] = params.k
            return [[Sample("<answer>CLAUDE</answer>", "stop") for _ in range(params.k)] for _ in prompts]

    monkeypatch.setattr(vllm_backend, "VLLMBackend", Recorder)
    monkeypatch.setattr(tiny_model, "name_or_path", "/models/policy", raising=False)
    rows = [{"id": i, "text": "the text reads warm", "provider": "CLAUDE"} for i in range(2)]
    generate_star(tiny_model, fix_tokenizer(tiny_tokenizer), rows, StarRecipe(backend="vllm", k=2),
                  labels=["CLAUDE", "CHATGPT", "GEMINI"], out_path=tmp_path / "star.jsonl")
    assert seen == {"model": "/models/policy", "k": 2}


class FakeColocated:
    """What the in-loop eval uses of TRL's ``VLLMGeneration`` in colocate mode."""

    def __init__(self, mode="colocate", sleep=False):
        self.mode, self.enable_sleep_mode, self.llm, self.synced = mode, sleep, FakeLLM(), 0

    def sync_weights(self):
        self.synced += 1


def fake_trainer(gen, step=7):
    from types import SimpleNamespace

    return SimpleNamespace(vllm_generation=gen, state=SimpleNamespace(global_step=step), _last_loaded_step=-1)


def test_colocated_llm_pushes_this_steps_weights_once():
    from whowrote.train.evaluation import colocated_llm

    trainer = fake_trainer(FakeColocated())
    assert colocated_llm(trainer) is trainer.vllm_generation.llm and trainer._last_loaded_step == 7
    assert colocated_llm(trainer) is trainer.vllm_generation.llm and trainer.vllm_generation.synced == 1
    trainer.state.global_step = 8  # the next step's eval pushes the new weights
    colocated_llm(trainer)
    assert trainer.vllm_generation.synced == 2
    # a server engine holds other weights, a sleeping one has offloaded them; HF generate without an engine
    for gen in (FakeColocated(mode="server"), FakeColocated(sleep=True), None):
        assert colocated_llm(fake_trainer(gen)) is None


def test_in_loop_eval_samples_on_the_colocated_engine(fake_vllm, tiny_tokenizer, tmp_path):
    from whowrote.train.callbacks import PeriodicEvalCallback
    from whowrote.train.config import InLoopEval

    rows = [{"id": f"r{i}", "text": f"the text reads warm {i}", "provider": p}
            for i, p in enumerate(["CLAUDE", "CHATGPT", "GEMINI"])]
    labels = ("CLAUDE", "CHATGPT", "GEMINI")
    tok = fix_tokenizer(tiny_tokenizer)
    for engine, used in (("auto", True), ("transformers", False)):
        cb = PeriodicEvalCallback(rows=rows, cfg=InLoopEval(k=2, max_new_tokens=8, engine=engine), labels=labels,
                                  output_dir=tmp_path / engine, stage="grpo", tokenizer=tok)
        cb.trainer = fake_trainer(FakeColocated(), step=3)
        if not used:  # HF generate needs the live model: a stand-in that must not be reached here
            with pytest.raises(AttributeError):
                cb.run_eval(None, 3)
            assert cb.trainer.vllm_generation.synced == 0
            continue
        rec = cb.run_eval(None, 3)
        (requests, params), = cb.trainer.vllm_generation.llm.calls
        assert len(requests) == 3 and all(p.kw["n"] == 2 for p in params)
        assert rec["engine"] == "vllm-colocated" and rec["n_samples"] == 6 and cb.trainer.vllm_generation.synced == 1
        traces = [json.loads(x) for x in (tmp_path / engine / "evals" / "step00003.traces.jsonl").read_text().splitlines()]
        assert {t["completion"] for t in traces} == {f"seed{3 + i}-{j}" for i in range(3) for j in range(2)}
