"""OPCD / RLSD / cheatsheet GRPO on the tiny model: the splice, the config rules, one real step each."""

from __future__ import annotations

import json

import pytest
import torch
from research_helpers import research_overrides
from transformers import AutoModelForCausalLM, AutoTokenizer

from whowrote.task.cheatsheet import DEFAULT_CHEATSHEET
from whowrote.task.prompts import build_messages
from whowrote.train.distill import load_research_config, run_research, truncated_rows, truncation_safe
from whowrote.train.splice import build_splice, render_ids
from whowrote.types import WhowroteError


def test_splice_turns_a_plain_prompt_into_the_cheatsheet_prompt(tiny_model):
    tok = AutoTokenizer.from_pretrained(tiny_model)
    splice = build_splice(tok, DEFAULT_CHEATSHEET, ["Some train text.", "Another one, longer."])
    assert splice.added_tokens > 50
    text = "A text the splice never saw — with a dash."
    plain = render_ids(tok, build_messages(text))
    assert splice.teacher_ids(plain) == render_ids(tok, build_messages(text, cheatsheet=DEFAULT_CHEATSHEET))
    with pytest.raises(WhowroteError, match="plain prefix"):
        splice.teacher_ids(render_ids(tok, build_messages(text, variant="answer_only")))


def test_config_rules(tmp_path):
    cfg_file = tmp_path / "c.toml"
    cfg_file.write_text('[research]\nmode = "opcd"\ncheatsheet = "default"\n[grpo]\nlr = 2e-6\n')
    cfg, recipe = load_research_config(cfg_file, ["research.truncation_safe_reward=true"])
    assert recipe.mode == "opcd" and recipe.truncation_safe_reward and cfg.grpo.lr == 2e-6
    for bad, msg in [(["research.mode=opcd"], "needs research.cheatsheet"),
                     (["research.mode=ppo"], "must be one of"),
                     (["research.cheatsheet_in_prompt=true"], "needs research.cheatsheet"),
                     (["research.mode=rlsd", "research.cheatsheet=default", "research.cheatsheet_in_prompt=true"],
                      "keep student prompts plain"),
                     (["research.colour=1"], "unknown config key")]:
        with pytest.raises(WhowroteError, match=msg):
            load_research_config(None, bad)


def test_truncation_helpers():
    ids = torch.tensor([[5, 6, 2, 0], [5, 6, 7, 8]])
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 1, 1]])
    assert truncated_rows(ids, mask, {2}).tolist() == [False, True]

    def reward(completions, **kw):
        return [1.0, 1.0, -0.5]

    reward.__name__ = "correct_answer"
    safe = truncation_safe(reward)
    assert safe(completions=["a", "b", "c"], truncated=[False, True, True]) == [1.0, 0.0, -0.5]
    assert safe.__name__ == "correct_answer"
    # without the column, truncation is read off TRL's completion_ids with the stop ids
    from_ids = truncation_safe(reward, {2})
    assert from_ids(completions=["a", "b", "c"], completion_ids=[[5, 2], [5, 6], [7]]) == [1.0, 0.0, -0.5]


def _weights(path):
    return AutoModelForCausalLM.from_pretrained(path).state_dict()


def _moved(before, after):
    return any(not torch.equal(before[k], after[k]) for k in before)


def _train_lines(out):
    return [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()
            if json.loads(x).get("kind") == "train"]


@pytest.mark.parametrize(("extra", "metric"), [
    # OPCD: the teacher gap moves the weights whatever the rewards (the verifier is ignored); with a
    # val split, the run ends with the internalization check
    (["research.mode=opcd", "research.cheatsheet=default", "research.internalization_check=true"],
     "research/teacher_gap"),
    # RLSD-anchored with the truncation advantage (a random model always truncates: A = -0.5), in
    # micro-batches of 2 (3 accumulation steps: the teacher log-probs are split with the batch)
    (["research.mode=rlsd_anchored", "research.cheatsheet=default", "research.truncation_advantage_penalty=0.5",
      "research.truncation_safe_reward=true", "grpo.micro_batch=2"], "research/rlsd_coef"),
    # cheatsheet GRPO (Design B) with the decayed surprisal bonus and the truncation advantage
    (["research.mode=rl", "research.cheatsheet=default", "research.cheatsheet_in_prompt=true",
      "research.surprisal_coef=0.02", "research.truncation_advantage_penalty=0.5"], "research/surprisal_coef"),
])
def test_one_step_runs_and_moves_the_policy(tiny_model, splits, tmp_path, extra, metric):
    out = tmp_path / "run"
    with_val = "research.mode=opcd" in extra
    cfg, recipe = load_research_config(None, [*research_overrides(tiny_model, splits, out, val=with_val), *extra])
    final = run_research(cfg, recipe)
    assert _moved(_weights(tiny_model), _weights(final))
    lines = _train_lines(out)
    assert any(metric in line for line in lines)
    if with_val:
        check = json.loads((out / "internalization.json").read_text())
        assert set(check) == {"step", "with_cheatsheet", "without_cheatsheet", "internalized_share"}
        here = out / "internalization" / f"step{check['step']:05d}"
        assert check["step"] == 1 and (here / "with_cheatsheet" / "traces.jsonl").is_file()
        run = json.loads((here / "with_cheatsheet" / "run.json").read_text())
        assert run["cheatsheet"] == DEFAULT_CHEATSHEET
        assert json.loads((here / "without_cheatsheet" / "run.json").read_text())["cheatsheet"] is None


def _constant_rewards(monkeypatch):
    import whowrote.train.grpo as grpo_mod

    real = grpo_mod.make_reward_funcs

    def constant_funcs(**kw):
        funcs = []
        for f in real(**kw):  # same names and count (the weights list is built from the real ones)
            def constant(completions, **_):
                return [1.0] * len(completions)

            constant.__name__ = f.__name__
            funcs.append(constant)
        return funcs

    monkeypatch.setattr(grpo_mod, "make_reward_funcs", constant_funcs)


def test_research_runs_pass_the_grpo_reward_settings(tiny_model, splits, tmp_path, monkeypatch):
    import whowrote.train.grpo as grpo_mod

    seen = []
    real = grpo_mod.make_reward_funcs
    monkeypatch.setattr(grpo_mod, "make_reward_funcs", lambda **kw: seen.append(kw) or real(**kw))
    overrides = [*research_overrides(tiny_model, splits, tmp_path / "run"), "grpo.majority_penalty=0.5",
                 "grpo.truncation_penalty=0.25"]
    cfg, recipe = load_research_config(None, overrides)
    run_research(cfg, recipe)
    assert seen and seen[0]["majority_penalty"] == 0.5 and seen[0]["truncation_penalty"] == 0.25


def test_plain_rl_without_bonus_is_trls_loss(tiny_model, splits, tmp_path, monkeypatch):
    # mode rl, no bonus: the subclass defers to GRPOTrainer's own loss; with constant rewards and
    # no truncation penalty every advantage is 0, so the weights stay put.
    _constant_rewards(monkeypatch)
    out = tmp_path / "run"
    cfg, recipe = load_research_config(None, research_overrides(tiny_model, splits, out))
    final = run_research(cfg, recipe)
    assert not _moved(_weights(tiny_model), _weights(final))
    assert not any("research/surprisal_coef" in line for line in _train_lines(out))


def test_preflight_reports_student_and_teacher(tiny_model, splits, tmp_path, capsys):
    from whowrote.cli import main
    from whowrote.train.preflight import label_distribution

    tok = AutoTokenizer.from_pretrained(tiny_model)
    model = AutoModelForCausalLM.from_pretrained(tiny_model)
    dist = label_distribution(model, tok, "Some text.", cheatsheet=None)
    assert len(dist) == 3 and sum(dist) == pytest.approx(1.0)
    assert dist != label_distribution(model, tok, "Some text.", cheatsheet=DEFAULT_CHEATSHEET)  # the sheet matters
    out = tmp_path / "pf"
    with pytest.raises(SystemExit) as e:
        main(["train", "preflight", "--n", "3", *sum([["--set", o] for o in research_overrides(
            tiny_model, splits, out, val=True)], []), "--set", "research.mode=opcd", "--set",
              "research.cheatsheet=default"])
    assert e.value.code in (0, None)
    report = json.loads((out / "preflight.json").read_text())
    assert report["n"] == 3 and 0 <= report["teacher_gold_p"] <= 1 and isinstance(report["go"], bool)
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(["train", "preflight", "--set", f'data.val="{splits["val"]}"'])
    assert e.value.code == 1 and "needs research.cheatsheet" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["opcd", "rlsd", "rlsd_anchored", "cheatsheet_grpo", "pureacc_grpo"])
def test_shipped_research_configs_load(name):
    from pathlib import Path

    from whowrote.train.grpo import grpo_batch_plan

    cfg, recipe = load_research_config(Path(__file__).parents[2] / "configs" / "research" / f"smollm2_{name}.toml")
    plan = grpo_batch_plan(cfg)  # the batch splits into micro-batches and balanced steps
    assert plan["per_device_train_batch_size"] * plan["gradient_accumulation_steps"] == \
        cfg.grpo.num_generations * cfg.grpo.prompts_per_step
    assert recipe.mode == {"opcd": "opcd", "rlsd": "rlsd", "rlsd_anchored": "rlsd_anchored"}.get(name, "rl")


def test_opcd_is_not_stopped_by_the_zero_trainable_guard(tiny_model, splits, tmp_path, monkeypatch):
    # equal rewards everywhere: the guard (patience 1) would abort a reward-driven run after step 1,
    # but OPCD learns from the teacher gap, so it runs both steps
    _constant_rewards(monkeypatch)
    out = tmp_path / "run"
    cfg, recipe = load_research_config(None, [*research_overrides(tiny_model, splits, out), "grpo.max_steps=2",
                                              "grpo.zero_trainable_patience=1", "research.mode=opcd",
                                              "research.cheatsheet=default"])
    run_research(cfg, recipe)
    assert json.loads((out / "train_result.research.json").read_text())["global_step"] == 2
    assert not any(json.loads(x).get("kind") == "abort" for x in (out / "metrics.jsonl").read_text().splitlines())
    with pytest.raises(WhowroteError, match="grpo.beta = 0"):
        run_research(*load_research_config(None, [*research_overrides(tiny_model, splits, out), "grpo.beta=0.04",
                                                  "research.mode=opcd", "research.cheatsheet=default"]))


def test_curriculum_rows_keep_their_own_prompts(tmp_path, tiny_model):
    import pandas as pd

    from whowrote.task.curricula import curriculum_rows
    from whowrote.train.data import write_rows
    from whowrote.train.distill import research_records

    src = pd.DataFrame([{"id": f"{p}{i}", "text": f"text {p} {i}", "provider": p, "model": "m", "category": "c",
                         "topic": f"t{i}", "genre": "blog"} for i in range(3) for p in ("CLAUDE", "CHATGPT", "GEMINI")])
    rows = curriculum_rows(src, "pair", n_steps=1).to_dict("records")
    recs = research_records(rows, variant="3way", cheatsheet=None, labels=("CLAUDE", "CHATGPT", "GEMINI"))
    assert [r["gold"] for r in recs] == [r["provider"] for r in rows]
    assert "TEXT B" in recs[0]["prompt"][0]["content"] and recs[0]["prompt"][1]["content"].startswith("### TEXT A")
    assert "TEXT B" not in recs[-1]["prompt"][0]["content"]  # the singles keep the 3-way prompt
    with pytest.raises(WhowroteError, match="own prompts"):
        research_records(rows, variant="3way", cheatsheet="sheet", labels=("CLAUDE",))
    path = write_rows(tmp_path / "curr.jsonl", rows)
    cfg, recipe = load_research_config(None, [f'data.train="{path}"', "grpo.prompts_per_step=6"])
    with pytest.raises(WhowroteError, match="prompts_per_step = 12"):
        run_research(cfg, recipe)


def test_a_time_limit_stop_of_rlsd_leaves_a_checkpoint_that_resume_continues(tiny_model, splits, tmp_path):
    # the GPU calls run each issue-16 recipe over two device calls (QWEN_RESEARCH_RESUME): the first
    # stops on time with a checkpoint, the second goes on from it instead of starting again
    out = tmp_path / "rlsd_slot"
    base = [*research_overrides(tiny_model, splits, out), "research.mode=rlsd", "research.cheatsheet=default",
            "grpo.max_steps=3", "run.save_steps=1000", "run.save_total_limit=1"]
    run_research(*load_research_config(None, [*base, "run.max_minutes=1e-9", "run.save_final=false"]))
    assert sorted(p.name for p in out.glob("checkpoint-*")) == ["checkpoint-1"]
    run_research(*load_research_config(None, [*base, 'run.resume="auto"']))
    state = json.loads((out / "checkpoint-3" / "trainer_state.json").read_text())
    assert state["global_step"] == 3
    steps = [r["step"] for r in _train_lines(out) if "loss" in r]
    assert steps == [1, 2, 3], steps  # steps 2-3 in the second attempt, not 1-3 again


def test_internalization_checks_of_later_weights_do_not_reuse_earlier_traces(tiny_model, splits, tmp_path):
    # a run resumed over calls checks again after more steps: the harness resumes the traces in its
    # folder, so a check must not find the earlier weights' traces there (session 9 reported a
    # 15-step run with its 3-step check); each step gets its own folder and its own completions
    from whowrote.train.data import read_rows
    from whowrote.train.distill import internalization_check

    cfg, _ = load_research_config(None, [*research_overrides(tiny_model, splits, tmp_path / "run", val=True),
                                         "research.mode=opcd", "research.cheatsheet=default"])
    tok = AutoTokenizer.from_pretrained(tiny_model)
    rows = read_rows(splits["val"])[:3]
    out = tmp_path / "run"

    def completions(step):
        return [json.loads(x)["completion"] for x in
                (out / "internalization" / f"step{step:05d}" / "without_cheatsheet" / "traces.jsonl").read_text().splitlines()]

    model = AutoModelForCausalLM.from_pretrained(tiny_model)
    internalization_check(model, tok, rows, cfg, DEFAULT_CHEATSHEET, out, step=3)
    first = completions(3)
    with torch.no_grad():  # "later weights": the same model, perturbed
        for p in model.parameters():
            p.add_(torch.randn_like(p))
    second = internalization_check(model, tok, rows, cfg, DEFAULT_CHEATSHEET, out, step=15)
    assert second["step"] == 15 and json.loads((out / "internalization.json").read_text())["step"] == 15
    assert completions(3) == first and completions(15) != first
