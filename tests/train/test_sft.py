"""SFT recipes end-to-end on the tiny model: loss falls, the loss is on the completion, resume is exact."""

import json

import torch
from train_helpers import tiny_cfg
from transformers import AutoModelForCausalLM

from whowrote.train.sft import run_sft


def _losses(out):
    recs = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    return [r["loss"] for r in recs if r.get("kind") == "train" and "loss" in r]


def test_answer_only_sft_memorises_and_evaluates(tiny_model, splits, tmp_path):
    out = tmp_path / "sft"
    cfg = tiny_cfg(tiny_model, splits, out, "sft.max_steps=24", "eval.every_steps=12")
    final = run_sft(cfg)
    losses = _losses(out)
    assert len(losses) == 24
    assert sum(losses[-3:]) / 3 < 0.6 * sum(losses[:3]) / 3, losses
    report = json.loads((out / "final_eval.json").read_text())
    assert [r["step"] for r in map(json.loads, (out / "metrics.jsonl").read_text().splitlines())
            if r.get("kind") == "eval"] == [0, 12, 24]
    assert report["final"]["step"] == 24 and report["final"]["variant"] == "answer_only"
    assert (final / "config.json").is_file() and (out / "best" / "eval.json").is_file()
    assert (out / "curves.png").is_file() and (out / "evals" / "step00024.traces.jsonl").is_file()


def test_loss_is_on_the_completion_only(tiny_model, splits, tmp_path):
    from trl import SFTTrainer

    from whowrote.train.data import read_rows, sft_records, to_dataset
    from whowrote.train.modeling import load_policy
    from whowrote.train.sft import build_sft_config

    cfg = tiny_cfg(tiny_model, splits, tmp_path / "mask")
    model, tok = load_policy(cfg.model)
    recs = sft_records(read_rows(splits["train"])[:3], target="answer_only", variant="answer_only")
    trainer = SFTTrainer(model=model, args=build_sft_config(cfg), train_dataset=to_dataset(recs),
                         processing_class=tok)
    row = trainer.train_dataset[0]
    ids = row["input_ids"]
    labels = row["labels"] if "labels" in row else [i if m else -100 for i, m in zip(ids, row["completion_mask"], strict=True)]
    supervised = [t for t in labels if t != -100]
    text = tok.decode(supervised)
    assert text.startswith("<answer>") and "</answer>" in text
    assert len(supervised) <= 8 < len(ids)  # the answer and the end-of-turn, never the prompt


def test_resume_reproduces_the_uninterrupted_run(tiny_model, splits, tmp_path):
    common = ("sft.max_steps=6", "run.save_steps=3", "run.save_total_limit=5", 'data.val=""')
    full = run_sft(tiny_cfg(tiny_model, splits, tmp_path / "full", *common))
    part = tmp_path / "part"
    run_sft(tiny_cfg(tiny_model, splits, part, *common, "run.save_final=false"))
    # interrupted after step 3: keep only checkpoint-3, then resume automatically
    import shutil

    shutil.rmtree(part / "checkpoint-6")
    resumed = run_sft(tiny_cfg(tiny_model, splits, part, *common, 'run.resume="auto"'))
    a = AutoModelForCausalLM.from_pretrained(full).state_dict()
    b = AutoModelForCausalLM.from_pretrained(resumed).state_dict()
    assert a.keys() == b.keys()
    for k in a:
        torch.testing.assert_close(a[k], b[k], rtol=1e-5, atol=1e-6)
    state = json.loads((part / "checkpoint-6" / "trainer_state.json").read_text())
    assert state["global_step"] == 6


def test_rationale_sft_trains_on_reason_and_answer(tiny_model, splits, tmp_path):
    from whowrote.train.data import read_rows

    rows = [{**r, "rationale": "The voice is sincere and plain, with honest first-person framing throughout."}
            for r in read_rows(splits["train"])]
    out = tmp_path / "rat"
    run_sft(tiny_cfg(tiny_model, splits, out, 'sft.target="rationale"', "sft.max_steps=4",
                     "eval.max_new_tokens=4"), train_rows=rows)
    report = json.loads((out / "final_eval.json").read_text())
    assert report["final"]["variant"] == "3way"
    losses = _losses(out)
    assert losses[-1] < losses[0]


def test_uncut_texts_are_not_cut_by_the_sft_max_length(tmp_path):
    from whowrote.train.config import TrainConfig
    from whowrote.train.sft import build_sft_config

    cfg = TrainConfig()
    cfg.run.output_dir, cfg.run.bf16 = str(tmp_path), "false"
    assert build_sft_config(cfg).max_length == cfg.data.max_text_tokens + 1024
    cfg.data.max_text_tokens = 0  # "no text cut": a 1024-token max_length would eat long prompts' answers
    assert build_sft_config(cfg).max_length is None


def test_time_limit_stops_cleanly_with_final_eval_and_weights(tiny_model, splits, tmp_path):
    out = tmp_path / "sft_timed"
    # a limit already spent after the first step: training must stop there, not run all 24 steps
    cfg = tiny_cfg(tiny_model, splits, out, "sft.max_steps=24", "eval.every_steps=0", "run.max_minutes=1e-9")
    final = run_sft(cfg)
    recs = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert len(_losses(out)) == 1
    assert [r["reason"] for r in recs if r.get("kind") == "abort"] == ["time limit 1e-09 min"]
    assert [r["step"] for r in recs if r.get("kind") == "eval"] == [0, 1]
    assert (final / "config.json").is_file()


def test_the_time_limit_does_not_start_a_step_that_would_end_past_it(tmp_path, monkeypatch):
    # steps of 10 s under a 25 s limit: stop after step 2 (20 s + a 10 s step would end at 30 s), not
    # after step 3 at 30 s, past the limit (a hard `timeout` then killed runs in their final save)
    from transformers import TrainerControl, TrainerState, TrainingArguments

    import whowrote.train.callbacks as callbacks

    clock = [1000.0]
    monkeypatch.setattr(callbacks.time, "time", lambda: clock[0])
    cb = callbacks.TimeLimitCallback(25 / 60, tmp_path)
    args = TrainingArguments(output_dir=str(tmp_path), report_to=[], save_strategy="no")
    state, control = TrainerState(), TrainerControl()
    cb.on_train_begin(args, state, control)
    for step in (1, 2, 3):
        cb.on_step_begin(args, state, control)
        clock[0] += 10.0
        state.global_step = step
        cb.on_step_end(args, state, control)
        if control.should_training_stop:
            break
    assert state.global_step == 2 and not control.should_save  # no intermediate checkpoints asked for
    abort = json.loads((tmp_path / "metrics.jsonl").read_text())
    assert abort == {"kind": "abort", "step": 2, "reason": "time limit 0.416667 min"}


def test_a_time_limit_stop_leaves_a_checkpoint_that_resume_continues(tiny_model, splits, tmp_path):
    # a 10-minute device call: the run stops on time, the next call resumes from the stop's checkpoint
    out = tmp_path / "sft_slot"
    common = ("sft.max_steps=5", "eval.every_steps=0", "run.save_steps=100", 'data.val=""')
    run_sft(tiny_cfg(tiny_model, splits, out, *common, "run.max_minutes=1e-9", "run.save_final=false"))
    assert sorted(p.name for p in out.glob("checkpoint-*")) == ["checkpoint-1"]
    run_sft(tiny_cfg(tiny_model, splits, out, *common, 'run.resume="auto"'))
    state = json.loads((out / "checkpoint-5" / "trainer_state.json").read_text())
    assert state["global_step"] == 5
    assert len(_losses(out)) == 5  # steps 2-5 in the second attempt, not 1-5 again


def test_one_non_finite_step_is_skipped_and_training_goes_on(tiny_model, splits, tmp_path, monkeypatch):
    from transformers import TrainerCallback

    import whowrote.train.runner as runner

    class PoisonStep3(TrainerCallback):  # a NaN in one backward pass, as at 0.5B in session 4
        def on_pre_optimizer_step(self, args, state, control, model=None, **kw):
            if state.global_step + 1 == 3:
                next(p for p in model.parameters() if p.grad is not None).grad[0].fill_(float("nan"))

    real = runner._callbacks
    monkeypatch.setattr(runner, "_callbacks", lambda *a: [PoisonStep3(), *real(*a)])
    out = tmp_path / "sft_skip"
    final = run_sft(tiny_cfg(tiny_model, splits, out, "sft.max_steps=5", "eval.every_steps=0", 'data.val=""'))
    recs = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [(r["step"], r["in_a_row"]) for r in recs if r.get("kind") == "skip"] == [(3, 1)]
    assert not [r for r in recs if r.get("kind") == "abort"]
    weights = AutoModelForCausalLM.from_pretrained(final).state_dict()
    assert all(torch.isfinite(w).all() for w in weights.values())


def test_a_backward_nan_in_a_real_run_is_traced_to_its_layer(tiny_model, splits, tmp_path, monkeypatch):
    # the Trainer hands the guard its model: a NaN made in backward at the embeddings' output in step 3
    # is skipped, and the record names the embedding matrix as where it arose (the layers above stay finite)
    from transformers import TrainerCallback

    import whowrote.train.runner as runner

    class PoisonEmbeddingsAtStep3(TrainerCallback):
        def on_step_begin(self, args, state, control, model=None, **kw):
            def poison(module, inputs, out):  # returns None: the output itself is left as it is
                out.register_hook(lambda g: g * float("nan"))

            if state.global_step + 1 == 3:
                self.h = model.get_input_embeddings().register_forward_hook(poison)

        def on_step_end(self, args, state, control, **kw):
            if getattr(self, "h", None) is not None:
                self.h.remove()
                self.h = None

    real = runner._callbacks
    monkeypatch.setattr(runner, "_callbacks", lambda *a: [PoisonEmbeddingsAtStep3(), *real(*a)])
    out = tmp_path / "sft_trace"
    run_sft(tiny_cfg(tiny_model, splits, out, "sft.max_steps=4", "eval.every_steps=0", 'data.val=""'))
    recs = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    skips = [r for r in recs if r.get("kind") == "skip"]
    assert [r["step"] for r in skips] == [3]
    assert skips[0]["micro_batch"] == 0 and skips[0]["first_nonfinite"] == ["model.embed_tokens.weight"]


def test_the_guard_drops_a_bad_steps_gradients_and_stops_when_it_persists(tmp_path):
    import pytest
    from transformers import TrainerControl, TrainerState

    from whowrote.train.callbacks import NonFiniteGuard
    from whowrote.types import WhowroteError

    model = torch.nn.Linear(3, 2)
    opt = torch.optim.AdamW(model.parameters(), lr=0.1)
    guard, state, control = NonFiniteGuard(tmp_path, max_skips=2), TrainerState(), TrainerControl()
    before = [p.detach().clone() for p in model.parameters()]

    def backward(bad: bool) -> None:
        opt.zero_grad()
        model(torch.ones(1, 3)).sum().backward()
        if bad:
            model.bias.grad[1] = float("inf")
        guard.on_pre_optimizer_step(None, state, control, model=model)
        opt.step()
        state.global_step += 1

    backward(bad=True)  # skipped: no parameter moves, the Adam state stays empty
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True)) and not opt.state
    backward(bad=False)  # a good step trains and resets the count
    assert not torch.equal(before[0], model.weight) and guard.in_a_row == 0
    backward(bad=True)
    backward(bad=True)
    with pytest.raises(WhowroteError, match=r"training diverged at step 5 \(grad_norm = nan \(3 steps in a row\)\)"):
        backward(bad=True)
    recs = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in recs if r["kind"] == "skip"] == [1, 3, 4]
    assert {(r["n_params"], tuple(r["params"])) for r in recs if r["kind"] == "skip"} == {(1, ("bias",))}
    assert [r["step"] for r in recs if r["kind"] == "abort"] == [5]


def test_the_guard_names_where_a_backward_nan_arose(tmp_path):
    # a NaN made in backward (finite loss), in the middle layer, on the second of two micro-batches:
    # after clipping every gradient would be NaN, but the hooks saw it first in layer 1, micro-batch 1
    from transformers import TrainerControl, TrainerState

    from whowrote.train.callbacks import NonFiniteGuard

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 4), torch.nn.Linear(4, 1))
    guard, state, control = NonFiniteGuard(tmp_path), TrainerState(), TrainerControl()
    guard.watch(model)

    def poison(module, inputs, out):
        out.register_hook(lambda g: g * float("nan"))

    def step(bad_micro: int | None) -> None:
        for micro in range(2):
            handle = model[1].register_forward_hook(poison) if micro == bad_micro else None
            loss = model(torch.ones(2, 4)).sum()
            assert torch.isfinite(loss)
            loss.backward()
            if handle is not None:
                handle.remove()
        guard.on_pre_optimizer_step(None, state, control, model=model)
        model.zero_grad()
        state.global_step += 1

    step(bad_micro=None)
    step(bad_micro=1)
    step(bad_micro=0)
    recs = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    skips = [r for r in recs if r["kind"] == "skip"]
    assert [r["step"] for r in skips] == [2, 3]
    assert [r["micro_batch"] for r in skips] == [1, 0]
    for r in skips:  # backward order: layer 2 stays finite, layer 1 goes first, layer 0 after it
        assert set(r["first_nonfinite"][:2]) == {"1.weight", "1.bias"}
        assert set(r["first_nonfinite"]) == {"1.weight", "1.bias", "0.weight", "0.bias"}
    guard.on_train_end(None, state, control)
    model(torch.ones(1, 4)).sum().backward()
    assert guard._flags == []  # the hooks are gone


def test_train_evaluate_is_the_harness(tiny_model, splits, tmp_path):
    # `whowrote train evaluate` runs the eval harness (same traces, summary, run.json, resume) with the
    # [eval] sampling of a training config; the split may be gzipped as training splits are.
    import json

    import pytest

    from whowrote.cli import main

    out = tmp_path / "ev"
    args = ["train", "evaluate", "--model", str(tiny_model), "--data", str(splits["val"]), "--out", str(out),
            "--set", "eval.k=2", "--set", "eval.max_new_tokens=4", "--set", "eval.n_val=3",
            "--set", 'model.dtype="float32"', "--set", "data.max_text_tokens=16"]
    with pytest.raises(SystemExit) as done:
        main(args)
    assert done.value.code == 0
    summary = json.loads((out / "summary.json").read_text())
    run = json.loads((out / "run.json").read_text())
    assert summary["n_examples"] == 3 and summary["n_samples"] == 6 and run["k"] == 2 and run["limit"] == 3
    assert run["max_text_tokens"] == 16 and run["chat_template_kwargs"] == {"enable_thinking": False}
    traces = [json.loads(line) for line in (out / "traces.jsonl").read_text().splitlines()]
    assert sorted(t["gold"] for t in traces[::2]) == ["CHATGPT", "CLAUDE", "GEMINI"]  # n_val is provider-balanced
    assert {"prompt_id", "sample", "finish_reason", "terms", "kept_tokens"} <= set(traces[0])
    assert all(t["kept_tokens"] <= 16 for t in traces)
    with pytest.raises(SystemExit):
        main(args)  # a second run resumes: nothing left to do, same traces
    assert len((out / "traces.jsonl").read_text().splitlines()) == 6


def test_sft_records_and_config_carry_the_thinking_switch_and_trl_table(tmp_path):
    import pytest

    from whowrote.train.config import load_config
    from whowrote.train.data import sft_records
    from whowrote.train.sft import build_sft_config
    from whowrote.types import WhowroteError

    recs = sft_records([{"text": "t", "provider": "CLAUDE"}], target="answer_only", variant="answer_only",
                       chat_template_kwargs={"enable_thinking": False})
    assert recs[0]["chat_template_kwargs"] == {"enable_thinking": False}  # SFTTrainer passes it to the template
    cfg = load_config(None, ["sft.trl.neftune_noise_alpha=5.0", f'run.output_dir="{tmp_path}"'])
    assert build_sft_config(cfg).neftune_noise_alpha == 5.0
    cfg.sft.trl = {"nope": 1}
    with pytest.raises(WhowroteError, match="SFTConfig does not know"):
        build_sft_config(cfg)


def test_a_diverged_run_stops_with_one_line_and_saves_no_final(tiny_model, splits, tmp_path):
    import pytest

    from whowrote.types import WhowroteError

    out = tmp_path / "sft_nan"
    # lr 1e30: the first Adam step blows the weights up, the next loss is inf/nan (as lr 5e-5 did at 0.5B
    # in bf16 after 26 steps); training must stop there instead of saving NaN weights as "final"
    cfg = tiny_cfg(tiny_model, splits, out, "sft.max_steps=6", "eval.every_steps=0", "sft.lr=1e30")
    with pytest.raises(WhowroteError, match=r"training diverged at step \d+ \((loss|grad_norm) = (nan|inf)"):
        run_sft(cfg)
    recs = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    (abort,) = [r for r in recs if r.get("kind") == "abort"]
    assert abort["reason"].startswith("non-finite") and abort["step"] < 6
    assert not (out / "final").exists()
