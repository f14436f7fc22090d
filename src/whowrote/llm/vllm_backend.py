"""A generation backend on vLLM's offline engine (``vllm.LLM``): the same interface as
:class:`whowrote.llm.backends.TransformersBackend`, several times its throughput on a GPU.

Prompts are rendered with the model's chat template and sent as token ids, so the text the
model sees is byte-identical to the transformers backend's. Each request gets its own seed
(``params.seed + position``): the samples do not depend on how vLLM batches the requests. vLLM
runs on GPUs only and is an optional extra (``pip install '.[vllm]'`` in the whowrote checkout); this module imports
it inside functions so ``whowrote.llm`` stays importable without it.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Iterable
from typing import Any

from whowrote.formats import install_hint
from whowrote.llm.backends import ChatTokens, Sample, SamplingParams, stop_ids
from whowrote.llm.config import DEFAULT_TEMPLATE_KWARGS
from whowrote.types import WhowroteError

FINISH = {"stop": "stop", "length": "length"}  # anything else (abort, error) is an error sample


def require_vllm() -> None:
    """A clear error instead of an ImportError deep inside a run."""
    if importlib.util.find_spec("vllm") is None:
        raise WhowroteError(f"the vllm backend needs vLLM (GPU only): {install_hint('vllm')}")


def sampling_kwargs(params: SamplingParams, stop: Iterable[int], seed: int) -> dict[str, Any]:
    """``vllm.SamplingParams`` arguments for one prompt: ``params.k`` samples, our stop ids."""
    greedy = params.temperature <= 0
    return {"n": params.k, "temperature": 0.0 if greedy else params.temperature,
            "top_p": 1.0 if greedy else params.top_p, "top_k": -1 if greedy else 0,
            "max_tokens": params.max_new_tokens, "seed": seed, "stop_token_ids": sorted(stop),
            "skip_special_tokens": True}


def to_samples(output: Any) -> list[Sample]:
    """One ``vllm.RequestOutput`` -> its samples (completion tokens include the stop token, as
    the transformers backend counts them)."""
    n_prompt = len(output.prompt_token_ids or [])
    return [Sample(text=c.text, finish_reason=FINISH.get(str(c.finish_reason), "error"), prompt_tokens=n_prompt,
                   completion_tokens=len(c.token_ids)) for c in output.outputs]


def load_llm(model: str, *, dtype: str = "bfloat16", gpu_memory_utilization: float = 0.5,
             max_model_len: int | None = None, seed: int = 0) -> Any:
    require_vllm()
    from vllm import LLM

    return LLM(model=model, dtype=dtype, gpu_memory_utilization=gpu_memory_utilization,
               max_model_len=max_model_len, seed=seed)


class VLLMBackend(ChatTokens):
    """Sampling with vLLM from an HF model folder or hub id (export a GGUF first:
    ``whowrote train export-model``)."""

    def __init__(self, model: str, *, dtype: str = "bfloat16", gpu_memory_utilization: float = 0.5,
                 max_model_len: int | None = None, template_kwargs: dict | None = None,
                 llm: Any = None, tokenizer: Any = None) -> None:
        if model.endswith(".gguf"):
            raise WhowroteError("the vllm backend takes an HF model folder: run "
                                "`whowrote train export-model X.gguf DIR` first")
        self.name = f"vllm:{model}"
        self.llm = llm if llm is not None else load_llm(model, dtype=dtype, max_model_len=max_model_len,
                                                        gpu_memory_utilization=gpu_memory_utilization)
        if tokenizer is None:  # our own copy with the eos fixes (vLLM's engine keeps its own)
            from whowrote.llm.models import load_tokenizer

            tokenizer = load_tokenizer(model)
        self.tokenizer = tokenizer
        self.new_tokens = 0
        self.gen_seconds = 0.0
        # The same rule as TransformersBackend, so both engines render the same prompt.
        self.template_kwargs = dict(DEFAULT_TEMPLATE_KWARGS if template_kwargs is None else template_kwargs)

    def generate(self, prompts: list[list[dict]], params: SamplingParams) -> list[list[Sample]]:
        """``params.k`` samples per chat prompt, in input order (one engine call for all)."""
        from vllm import SamplingParams as VSamplingParams
        from vllm.inputs import TokensPrompt

        stop = stop_ids(self.tokenizer)
        ids = [self.tokenizer(self.render(m), add_special_tokens=False)["input_ids"] for m in prompts]
        requests = [TokensPrompt(prompt_token_ids=list(x)) for x in ids]
        sps = [VSamplingParams(**sampling_kwargs(params, stop, params.seed + i)) for i in range(len(ids))]
        started = time.perf_counter()
        outputs = self.llm.generate(requests, sps, use_tqdm=False)
        self.gen_seconds += time.perf_counter() - started
        out = [to_samples(o) for o in outputs]
        self.new_tokens += sum(s.completion_tokens or 0 for ss in out for s in ss)
        return out
