"""GRPO control recipe on the tiny model: runs end-to-end, zero-advantage steps leave weights unchanged."""

import json
import warnings

import pytest
import torch
from train_helpers import tiny_cfg
from transformers import AutoModelForCausalLM

import whowrote.train.grpo as grpo_mod
from whowrote.train.config import TrainConfig
from whowrote.train.data import balanced_subset, read_rows
from whowrote.types import WhowroteError


def _weights(path):
    return AutoModelForCausalLM.from_pretrained(path).state_dict()


def test_batch_plan_and_balance():
    cfg = TrainConfig()
    cfg.grpo.num_generations, cfg.grpo.prompts_per_step, cfg.grpo.micro_batch = 8, 12, 16
    plan = grpo_mod.grpo_batch_plan(cfg)
    assert plan["per_device_train_batch_size"] * plan["gradient_accumulation_steps"] == 96
    assert grpo_mod.grpo_batch_plan(cfg, world_size=2)["gradient_accumulation_steps"] == 3
    cfg.grpo.prompts_per_step = 10
    with pytest.raises(WhowroteError):
        grpo_mod.grpo_batch_plan(cfg)


def test_balanced_subset_interleaves_providers(splits):
    rows = balanced_subset(read_rows(splits["train"]), 9, ["CLAUDE", "CHATGPT", "GEMINI"], seed=3)
    assert len(rows) == 9
    for i in range(0, 9, 3):  # every window of 3 prompts (one balanced step) has each provider once
        assert sorted(r["provider"] for r in rows[i:i + 3]) == ["CHATGPT", "CLAUDE", "GEMINI"]


def _constant(value):
    def constant_reward(completions, **kw):
        return [value] * len(completions)

    return constant_reward


def test_zero_advantage_gives_no_update(tiny_model, splits, tmp_path, monkeypatch):
    # Every group has equal rewards (all correct, say): A = r - mean(r) = 0 on every token and
    # beta = 0, so the loss has no gradient and the weights must not move.
    monkeypatch.setattr(grpo_mod, "make_reward_funcs", lambda **kw: [_constant(1.0)])
    monkeypatch.setattr(grpo_mod, "reward_weights", lambda funcs: [1.0])
    out = tmp_path / "g0"
    final = grpo_mod.run_grpo(tiny_cfg(tiny_model, splits, out, "grpo.lr=1e-2", "grpo.zero_trainable_patience=0"))
    before, after = _weights(tiny_model), _weights(final)
    for k in before:
        torch.testing.assert_close(before[k], after[k])
    recs = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    train = [r for r in recs if r.get("kind") == "train" and "frac_reward_zero_std" in r]
    assert train and all(r["frac_reward_zero_std"] == 1.0 for r in train)
    # every logged step says how long its rollouts took (whowrote.train.phases), within the step
    assert all(0 < r["time/rollouts_s"] < r["step_time"] for r in train)
    assert [r["step"] for r in recs if r.get("kind") == "eval"][0] == 0
    assert (out / "final_eval.json").is_file()


def _length_reward_only(monkeypatch):
    """The only reward: completion length, which varies within every group (a gradient each step)."""
    def length_reward(completions, **kw):
        return [float(len(str(c))) for c in completions]

    monkeypatch.setattr(grpo_mod, "make_reward_funcs", lambda **kw: [length_reward])
    monkeypatch.setattr(grpo_mod, "reward_weights", lambda funcs: [1.0])


def test_reward_signal_updates_weights_and_guard_stops(tiny_model, splits, tmp_path, monkeypatch):
    # A reward that varies within groups (completion length) must move the weights ...
    _length_reward_only(monkeypatch)
    out = tmp_path / "g1"
    final = grpo_mod.run_grpo(tiny_cfg(tiny_model, splits, out, "grpo.lr=1e-2", 'data.val=""'))
    before, after = _weights(tiny_model), _weights(final)
    assert any(not torch.equal(before[k], after[k]) for k in before)


def test_profile_steps_write_a_trace_summary_with_the_rollout_span(tiny_model, splits, tmp_path, monkeypatch):
    _length_reward_only(monkeypatch)
    out = tmp_path / "gp"
    grpo_mod.run_grpo(tiny_cfg(tiny_model, splits, out, "grpo.max_steps=3", "run.profile_steps=1", 'data.val=""'))
    summary = json.loads((out / "profile.json").read_text())
    assert summary["steps"] == [2, 2] and summary["sorted_by"] == "self_cpu_ms"  # step 1 (warm-up) left out
    rollouts = summary["phases"]["time/rollouts_s"]
    assert rollouts["count"] == 1 and rollouts["cpu_total_ms"] > 0  # one step's rollouts, as a named span
    top = [r["self_cpu_ms"] for r in summary["top"]]
    assert top and top == sorted(top, reverse=True) and any(r["name"].startswith("aten::") for r in summary["top"])
    text = (out / "profile.txt").read_text()
    assert "Self CPU" in text and "by input shape:" in text and "Input Shapes" in text


def test_sdpa_unpadded_trains_like_sdpa(tiny_model, splits, tmp_path, monkeypatch):
    """The same run with ``model.attn_implementation = "sdpa_unpadded"`` takes the rolled path inside
    TRL (left-padded prompts) and ends at the same weights as SDPA with the mask (fp32, same seed)."""
    from whowrote.train import attention

    _length_reward_only(monkeypatch)
    finals = {}
    for impl in ("sdpa", attention.NAME):
        rolled = []
        take = attention._take
        monkeypatch.setattr(attention, "_take", lambda x, i, take=take, rolled=rolled: rolled.append(1) or take(x, i))
        finals[impl] = _weights(grpo_mod.run_grpo(tiny_cfg(tiny_model, splits, tmp_path / impl, "grpo.lr=1e-2",
                                                           f'model.attn_implementation="{impl}"', 'data.val=""')))
        monkeypatch.setattr(attention, "_take", take)
        assert bool(rolled) == (impl == attention.NAME)
    before = _weights(tiny_model)
    assert any(not torch.equal(before[k], finals["sdpa"][k]) for k in before)  # the runs did train
    for k in before:
        torch.testing.assert_close(finals[attention.NAME][k], finals["sdpa"][k], atol=1e-4, rtol=1e-3)  # lr 1e-2: Adam steps are 1e-2


def test_zero_trainable_guard_aborts(tiny_model, splits, tmp_path, monkeypatch):
    monkeypatch.setattr(grpo_mod, "make_reward_funcs", lambda **kw: [_constant(0.0)])
    monkeypatch.setattr(grpo_mod, "reward_weights", lambda funcs: [1.0])
    out = tmp_path / "g2"
    grpo_mod.run_grpo(tiny_cfg(tiny_model, splits, out, "grpo.max_steps=5", "grpo.zero_trainable_patience=2",
                               'data.val=""'))
    state = json.loads((out / "train_result.grpo.json").read_text())
    assert state["global_step"] == 2
    recs = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert any(r.get("kind") == "abort" for r in recs)


def test_grpo_config_passes_trl_tables_and_the_thinking_switch(tmp_path):
    from whowrote.train.config import load_config

    p = tmp_path / "c.toml"
    p.write_text('[model]\nchat_template_kwargs = {enable_thinking = true}\n'
                 '[grpo]\nnum_generations = 4\nprompts_per_step = 3\n[grpo.trl]\nnum_iterations = 2\nbeta = 0.04\n')
    cfg = load_config(p, ["grpo.trl.top_k=5", f'run.output_dir="{tmp_path}"'])
    args = grpo_mod.build_grpo_config(cfg, [lambda completions, **kw: [0.0] * len(completions)])
    assert args.chat_template_kwargs == {"enable_thinking": True}  # rollouts render as eval does
    assert args.num_iterations == 2 and args.beta == 0.04 and args.top_k == 5  # [grpo.trl] wins
    assert TrainConfig().model.chat_template_kwargs == {"enable_thinking": False}
    cfg.grpo.trl = {"learning_rat": 1e-6}
    with pytest.raises(WhowroteError, match=r"\[grpo.trl\] has keys that GRPOConfig does not know: \['learning_rat'\]"):
        grpo_mod.build_grpo_config(cfg, [])


def test_colocated_vllm_samples_without_detokenising_unless_the_table_needs_text(tmp_path):
    from whowrote.train.config import load_config

    def args(*sets: str):
        cfg = load_config(None, [*sets, f'run.output_dir="{tmp_path}"'])
        return grpo_mod.build_grpo_config(cfg, [lambda completions, **kw: [0.0] * 8])

    colocate = ("grpo.use_vllm=true", 'grpo.vllm_mode="colocate"')
    assert args(*colocate).generation_kwargs == {"detokenize": False}
    assert not args().generation_kwargs  # HF generate: no vLLM sampling parameters
    assert not args("grpo.use_vllm=true", 'grpo.vllm_mode="server"').generation_kwargs  # not measured there
    # the table's own keys are kept, and win
    assert args(*colocate, "grpo.trl.generation_kwargs={min_tokens=3}").generation_kwargs == {
        "detokenize": False, "min_tokens": 3}
    assert args(*colocate, "grpo.trl.generation_kwargs={detokenize=true}").generation_kwargs == {"detokenize": True}
    # stop strings are matched on the text: vLLM must detokenise
    assert args(*colocate, 'grpo.trl.generation_kwargs={stop=["</answer>"]}').generation_kwargs == {
        "stop": ["</answer>"]}
    cfg = load_config(None, [*colocate, "grpo.trl.generation_kwargs={min_tokens=3}", f'run.output_dir="{tmp_path}"'])
    grpo_mod.build_grpo_config(cfg, [])
    assert cfg.grpo.trl["generation_kwargs"] == {"min_tokens": 3}  # the config itself is not changed


def test_gradient_checkpointing_follows_the_model_table_not_trls_default(tmp_path):
    from trl import SFTConfig

    from whowrote.train.config import load_config
    from whowrote.train.sft import build_sft_config

    assert SFTConfig(output_dir=str(tmp_path), bf16=False).gradient_checkpointing  # TRL's default is on
    for on in (False, True):
        cfg = load_config(None, [f"model.gradient_checkpointing={str(on).lower()}", f'run.output_dir="{tmp_path}"'])
        with warnings.catch_warnings():  # passed under the name this transformers knows (no deprecation warning)
            warnings.simplefilter("error", FutureWarning)
            sft_args = build_sft_config(cfg)
            grpo_args = grpo_mod.build_grpo_config(cfg, [lambda completions, **kw: [0.0] * 8])
        assert sft_args.gradient_checkpointing is on and grpo_args.gradient_checkpointing is on


def test_reward_funcs_read_truncation_off_completion_ids_with_the_models_stop_ids(monkeypatch):
    cfg = TrainConfig()
    (f, *_diag) = grpo_mod.reward_funcs(cfg, {2})
    done = "<reason_why>x</reason_why><answer>CLAUDE</answer>"
    assert f(completions=[done, done], gold=["CLAUDE"] * 2, completion_ids=[[5, 2], [5, 6]]) == [1.0, 0.0]


def test_time_phases_records_rollouts_and_the_engines_calls_into_trl_metrics():
    from collections import defaultdict
    from types import SimpleNamespace

    from whowrote.train.phases import time_phases

    calls = []

    class Engine:
        def sync_weights(self):
            calls.append("sync")

        def generate(self, prompts, num_generations=1):
            calls.append("generate")
            return [p * num_generations for p in prompts]

    class Trainer:
        def __init__(self):
            self.model = SimpleNamespace(training=True)
            self._metrics = {"train": defaultdict(list), "eval": defaultdict(list)}
            self.vllm_generation = Engine()

        def _generate_and_score_completions(self, inputs):
            self.vllm_generation.sync_weights()
            return self.vllm_generation.generate(inputs, num_generations=2)

    t = time_phases(Trainer())
    assert t._generate_and_score_completions(["a", "b"]) == ["aa", "bb"]  # results pass through
    assert calls == ["sync", "generate"]
    m = t._metrics["train"]
    assert {k: len(v) for k, v in m.items()} == {"time/rollouts_s": 1, "time/vllm_sync_s": 1, "time/vllm_generate_s": 1}
    assert m["time/rollouts_s"][0] >= m["time/vllm_generate_s"][0] + m["time/vllm_sync_s"][0] > 0
    t.model.training = False  # an eval-time call goes to TRL's eval metrics
    t.vllm_generation.sync_weights()
    assert len(t._metrics["eval"]["time/vllm_sync_s"]) == 1
    plain = SimpleNamespace(model=None)  # not a GRPO trainer: left as it is
    assert time_phases(plain) is plain and not hasattr(plain, "_generate_and_score_completions")


def test_colocated_vllm_runs_sample_with_their_own_seed():
    """vLLM seeds torch's RNG with 0 when TRL builds it in-process; the run's seed must win afterwards."""
    from types import SimpleNamespace

    def built(seed, use_vllm=True, mode="colocate"):
        torch.manual_seed(0)  # what the colocated engine's construction leaves behind, whatever the seed
        trainer = SimpleNamespace(args=SimpleNamespace(seed=seed, use_vllm=use_vllm, vllm_mode=mode),
                                  accelerator=SimpleNamespace(process_index=0))
        assert grpo_mod.seed_colocated_sampler(trainer) is trainer
        return torch.rand(4)

    assert not torch.equal(built(2), built(3))
    assert torch.equal(built(2), built(2))
    torch.manual_seed(0)
    engine_zero = torch.rand(4)
    # a server engine samples in its own process, and HF generate already follows TRL's set_seed
    assert torch.equal(built(2, mode="server"), engine_zero)
    assert torch.equal(built(2, use_vllm=False), engine_zero)
