"""The same plan on a local model through whowrote.llm (a tiny random Llama on CPU): the same
row format as the API rows, truncation marked, api = "vllm" without vLLM installed is one clear line."""

from __future__ import annotations

import pytest

from whowrote.data.generate import load_plan, run
from whowrote.types import WhowroteError

from .conftest import read_rows, write_plan


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    pytest.importorskip("torch")
    from whowrote.train.tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "smollm-tiny")


def _local_plan(tmp_path, path, api="transformers"):
    text = (f'[topics.inline]\nphilosophy = ["Zeno", "Free will"]\n[lengths.short]\nwords = 10\nmax_tokens = 12\n'
            f'[genres.blog]\n[genres.story]\n[[models]]\nname = "smollm-tiny"\napi = "{api}"\npath = "{path}"\n'
            f'batch_size = 3\nextra = {{dtype = "float32", device = "cpu"}}\n[sampling]\ntemperature = 1.0\nseed = 7\n')
    p = tmp_path / "plan.toml"
    p.write_text(text, encoding="utf-8")
    return load_plan(p)


def test_local_transformers_backend_shares_the_row_format(tmp_path, tiny_model, server, keys):
    plan = _local_plan(tmp_path, tiny_model)
    report = run(plan, tmp_path / "out", log=lambda m: None)
    # A random model rarely hits eos, and every text can only be noise: some may be dropped as
    # empty; all four cells are accounted for either way.
    kept = read_rows(tmp_path / "out" / "generated.jsonl")
    dropped = read_rows(tmp_path / "out" / "dropped.jsonl")
    assert len(kept) + len(dropped) == 4 and not report.failed
    rows = kept + dropped
    for r in rows:
        assert r["model"] == "smollm-tiny" and r["provider"] == "OTHER" and r["api"] == "transformers"
        assert r["completion_tokens"] <= 12 and r["finish_reason"] in {"stop", "length"}
        assert r["truncated"] == (r["finish_reason"] == "length")
        assert r["sampling"]["temperature"] == 1.0 and r["sampling"]["seed"] == 7
    # Same columns as a row from an API.
    srv = server()
    run(load_plan(write_plan(tmp_path, srv.url, ("openai",), topics=("One",))), tmp_path / "api", log=lambda m: None)
    (api_row,) = read_rows(tmp_path / "api" / "generated.jsonl")
    assert set(kept[0] if kept else {k: v for k, v in dropped[0].items() if k not in ("dropped_for", "audit")}) \
        == set(api_row)
    # Resumable like the API path.
    assert run(plan, tmp_path / "out", log=lambda m: None).written == 0


def test_vllm_api_without_vllm_is_one_clear_line(tmp_path):
    import importlib.util

    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vllm is installed here")
    plan = _local_plan(tmp_path, "/nonexistent-model", api="vllm")
    with pytest.raises(WhowroteError, match=r"pip install '\.\[vllm\]' in the whowrote checkout"):
        run(plan, tmp_path / "out", log=lambda m: None)


def test_an_extra_option_the_backend_lacks_is_one_clear_line(tmp_path, tiny_model):
    _local_plan(tmp_path, tiny_model)  # writes plan.toml; add an option only vLLM takes
    text = tmp_path / "plan.toml"
    text.write_text(text.read_text(encoding="utf-8").replace('device = "cpu"', 'device = "cpu", gpu_memory_utilization = 0.3'),
                    encoding="utf-8")
    plan = load_plan(text)
    with pytest.raises(WhowroteError, match=r"extra options \['gpu_memory_utilization'\] are not options of the "
                                            r"transformers backend"):
        run(plan, tmp_path / "out", log=lambda m: None)
