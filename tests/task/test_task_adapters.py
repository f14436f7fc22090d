"""TRL reward functions and the verifiers v1 taskset, scored on canned completions (CPU only)."""

from __future__ import annotations

import asyncio
import json

import pytest

from whowrote.task.trl_rewards import correct_answer_reward, make_reward_funcs, reward_weights

REASON = "The sincere adverbs, direct address and warm essay voice point to one particular assistant."
GOOD = f"<reason_why>{REASON}</reason_why>\n<answer>CLAUDE\nConfidence: HIGH</answer>"
NO_REASON = "<answer>CLAUDE</answer>"
WRONG = f"<reason_why>{REASON}</reason_why>\n<answer>GEMINI</answer>"
TWO = "<answer>CLAUDE or CHATGPT</answer>"


def test_trl_plain_strings():
    assert correct_answer_reward([GOOD, WRONG, TWO, ""], answer=["CLAUDE"] * 4) == [1.0, 0.0, 0.0, 0.0]


def test_trl_conversational_and_diagnostics():
    funcs = make_reward_funcs(require_reason=True)
    names = [f.__name__ for f in funcs]
    assert names == ["correct_answer", "parsed_ok", "reason_ok", "finished", "pred_claude", "pred_chatgpt",
                     "pred_gemini"]
    assert reward_weights(funcs) == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    comps = [[{"role": "assistant", "content": c}] for c in (GOOD, NO_REASON, WRONG, TWO)]
    prompts = [[{"role": "user", "content": "text"}]] * 4
    out = {f.__name__: f(prompts=prompts, completions=comps, answer=["CLAUDE"] * 4, completion_ids=None)
           for f in funcs}
    assert out["correct_answer"] == [1.0, 0.0, 0.0, 0.0]  # NO_REASON is gated out
    assert out["parsed_ok"] == [1.0, 1.0, 1.0, 0.0]
    assert out["reason_ok"] == [1.0, 0.0, 1.0, 0.0]
    assert out["pred_gemini"] == [0.0, 0.0, 1.0, 0.0]


def test_trl_gold_column_aliases_pair_and_truncation():
    f = make_reward_funcs(truncation_penalty=0.5, diagnostics=False)[0]
    assert f(completions=[GOOD, "<reason_why>loop"], gold=["CLAUDE", "CLAUDE"], truncated=[False, True]) == [1.0, -0.5]
    pair = "<answer>A: GEMINI\nB: CLAUDE</answer>"
    assert f(completions=[pair], provider=["A=GEMINI;B=CLAUDE"]) == [1.0]
    with pytest.raises(KeyError):
        f(completions=[GOOD])


UNFINISHED = "<reason_why>The voice resembles CLAUDE's warm, sincere register, with long reflective"
LOOP = GOOD.replace("</reason_why>", " the style the style " * 6 + "</reason_why>")


def test_trl_unfinished_completions_earn_no_accuracy_reward():
    # The 400-character fallback parses CLAUDE out of an unfinished <reason_why>: it must not pay.
    f = make_reward_funcs(stop_ids=[2])[0]
    gold = ["CLAUDE"] * 4
    assert f(completions=[UNFINISHED, LOOP, GOOD, GOOD], answer=gold) == [0.0, 0.0, 1.0, 1.0]
    # Truncation read off TRL's completion_ids: the second GOOD ran into the cap (no stop id at the end).
    ids = [[5, 2], [5, 2], [5, 6, 2], [5, 6, 7]]
    assert f(completions=[UNFINISHED, LOOP, GOOD, GOOD], answer=gold, completion_ids=ids) == [0.0, 0.0, 1.0, 0.0]
    finished = make_reward_funcs(stop_ids=[2])[3]
    assert finished.__name__ == "finished"
    assert finished(completions=[UNFINISHED, LOOP, GOOD, GOOD], answer=gold, completion_ids=ids) == [0, 0, 1, 0]
    # The research-compatible escape hatch scores them again (the parser still reads CLAUDE).
    lenient = make_reward_funcs(stop_ids=[2], score_unfinished=True)[0]
    assert lenient(completions=[UNFINISHED, LOOP, GOOD, GOOD], answer=gold, completion_ids=ids) == [1.0] * 4
    assert correct_answer_reward([UNFINISHED], answer=["CLAUDE"]) == [0.0]


def _says(label: str) -> str:
    return GOOD.replace("CLAUDE\n", f"{label}\n")


def test_majority_penalty_ranks_wrong_answers_by_how_over_answered_their_class_is():
    # 8 rollouts: 4 say CHATGPT, 2 CLAUDE, 1 GEMINI, 1 unparsed. CHATGPT's share of the 7 parsed
    # answers is 4/7, so a wrong CHATGPT loses 0.6 * (4/7 - 1/3) / (2/3) = 0.2143; CLAUDE (2/7) and
    # GEMINI (1/7) are under a third and cost nothing; correct answers lose nothing; the unparsed
    # one loses the most any wrong answer loses (not answering must never pay better).
    comps = [_says("CHATGPT")] * 4 + [_says("CLAUDE")] * 2 + [_says("GEMINI"), TWO]
    gold = ["CLAUDE", "CLAUDE", "CHATGPT", "GEMINI", "CLAUDE", "GEMINI", "CLAUDE", "CLAUDE"]
    plain = make_reward_funcs(diagnostics=False)[0](completions=comps, answer=gold)
    assert plain == [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    f = make_reward_funcs(majority_penalty=0.6)[0]
    got = f(completions=comps, answer=gold)
    over = 0.6 * (4 / 7 - 1 / 3) / (2 / 3)
    assert got == pytest.approx([-over, -over, 1.0, -over, 1.0, 0.0, 0.0, -over])
    # balanced answers cost nothing; one class everywhere costs the whole penalty on every wrong one
    balanced = [_says(lab) for lab in ("CLAUDE", "CHATGPT", "GEMINI")]
    assert f(completions=balanced, answer=["GEMINI", "CLAUDE", "CHATGPT"]) == [0.0, 0.0, 0.0]
    assert f(completions=[_says("GEMINI")] * 3, answer=["CLAUDE", "GEMINI", "CHATGPT"]) == pytest.approx(
        [-0.6, 1.0, -0.6])
    # a right answer cut off (unfinished) earns nothing and loses like an unparsed one; balanced, nothing
    ids = [[5, 6, 2], [5, 6, 7], [5, 6, 2]]  # the second never reached the end-of-turn id 2
    cut = make_reward_funcs(majority_penalty=0.6, stop_ids=[2])[0]
    heavy = [_says("GEMINI")] * 3
    assert cut(completions=heavy, answer=["CLAUDE", "GEMINI", "CHATGPT"], completion_ids=ids) == pytest.approx(
        [-0.6, -0.6, -0.6])
    assert cut(completions=balanced, answer=["GEMINI", "CHATGPT", "GEMINI"], completion_ids=ids) == [0.0, 0.0, 1.0]
    # the diagnostics keep their meaning (the penalty is on the optimised reward only)
    pred = make_reward_funcs(majority_penalty=0.6)[5]
    assert pred.__name__ == "pred_chatgpt" and pred(completions=comps, answer=gold) == [1.0] * 4 + [0.0] * 4


def test_majority_penalty_is_a_grpo_setting_passed_to_the_reward(tmp_path):
    from whowrote.train.config import load_config
    from whowrote.train.grpo import reward_funcs
    from whowrote.types import WhowroteError

    cfg = load_config(None, ["grpo.majority_penalty=0.6", f'run.output_dir="{tmp_path}"'])
    f = reward_funcs(cfg)[0]
    assert f(completions=[_says("GEMINI")] * 3, answer=["CLAUDE", "GEMINI", "CHATGPT"]) == pytest.approx(
        [-0.6, 1.0, -0.6])
    off = reward_funcs(load_config(None, [f'run.output_dir="{tmp_path}"']))[0]
    assert off(completions=[_says("GEMINI")] * 3, answer=["CLAUDE", "GEMINI", "CHATGPT"]) == [0.0, 1.0, 0.0]
    with pytest.raises(WhowroteError, match="grpo.majority_penalty"):
        load_config(None, ["grpo.majority_penalty=-1"])


MARKDOWN_POST = ("# Why cities need trees\n\n## Shade\n\nStreet trees cool the pavement \u2014 sometimes by ten "
                 "degrees \u2014 and that matters.\n\n- They cut energy use.\n- They slow storm water.\n"
                 "- They make walking pleasant.\n\n## Cost\n\nPlanting is cheap; upkeep is not. Cities budget "
                 "for the first and forget the second \u2014 a mistake.\n") * 3
PLAIN_ESSAY = ("Street trees cool the pavement in summer, and that matters more than most budgets admit. They cut "
               "energy use, slow storm water and make walking pleasant. Planting is cheap; upkeep is not. ") * 6
SAYS_MARKUP = "<reason_why>The post uses headers and bullet lists, with em-dashes throughout.</reason_why>\n<answer>CLAUDE</answer>"
DENIES_MARKUP = ("<reason_why>No headers, no bullet lists and no em-dashes anywhere in this plain essay.</reason_why>\n"
                 "<answer>CLAUDE</answer>")
NO_CLAIM = ("<reason_why>The warm and sincere voice of this writer reads like one particular assistant.</reason_why>\n"
            "<answer>CLAUDE</answer>")


def _faithful(**kwargs):
    funcs = make_reward_funcs(**kwargs)
    return next(f for f in funcs if f.__name__ == "faithful_claims")


def test_faithful_claims_pays_what_is_true_of_the_prompted_text():
    f = _faithful(faithfulness_weight=0.3)
    comps = [[{"role": "assistant", "content": c}] for c in (SAYS_MARKUP, DENIES_MARKUP, NO_CLAIM, SAYS_MARKUP[:60])]
    for text, says, denies in ((MARKDOWN_POST, 1.0, 0.0), (PLAIN_ESSAY, 0.0, 1.0)):
        prompts = [[{"role": "system", "content": "Name the assistant."}, {"role": "user", "content": text}]] * 4
        # true claims pay, false ones do not; no checkable claim and an unfinished rationale pay nothing
        assert f(prompts=prompts, completions=comps, answer=["CLAUDE"] * 4) == [says, denies, 0.0, 0.0]
    # plain-string prompts and completions; a completion cut at the token limit earns nothing
    ids = [[5, 2], [5, 6]]
    assert f(prompts=[PLAIN_ESSAY] * 2, completions=[DENIES_MARKUP] * 2, answer=["CLAUDE"] * 2) == [1.0, 1.0]
    cut = _faithful(faithfulness_weight=0.3, stop_ids=[2])
    assert cut(prompts=[PLAIN_ESSAY] * 2, completions=[DENIES_MARKUP] * 2, completion_ids=ids) == [1.0, 0.0]
    with pytest.raises(ValueError, match="prompts"):
        f(completions=[DENIES_MARKUP])


def test_grounded_claims_pay_only_what_is_true_of_the_prompted_text_and_not_of_another():
    plain = _faithful(faithfulness_weight=0.3)
    grounded = next(f for f in make_reward_funcs(faithfulness_weight=0.3, faithfulness_grounded=True)
                    if f.__name__ == "grounded_claims")
    comps = [[{"role": "assistant", "content": c}] for c in (SAYS_MARKUP, DENIES_MARKUP, SAYS_MARKUP, DENIES_MARKUP)]
    texts = [MARKDOWN_POST, MARKDOWN_POST, PLAIN_ESSAY, PLAIN_ESSAY]
    prompts = [[{"role": "user", "content": t}] for t in texts]
    # "has markup" is true of the post and false of the essay: +1 on the post, -1 on the essay (it
    # fits the other text better than its own); the plain share pays 1 and 0
    assert plain(prompts=prompts, completions=comps) == [1.0, 0.0, 0.0, 1.0]
    assert grounded(prompts=prompts, completions=comps) == [1.0, -1.0, -1.0, 1.0]
    # a claim true of both texts earns nothing grounded ("a warm voice" is no claim at all: 0 either way)
    both = [[{"role": "user", "content": t}] for t in (MARKDOWN_POST, MARKDOWN_POST + "\n\nMore of it.")]
    assert grounded(prompts=both, completions=[comps[0]] * 2) == [0.0, 0.0]
    assert grounded(prompts=prompts[:1], completions=[NO_CLAIM]) == [0.0]
    # one distinct text in the batch: nothing to contrast, the plain share
    assert grounded(prompts=prompts[:2], completions=comps[:2]) == [1.0, 0.0]


def test_faithfulness_weight_adds_an_optimised_reward_only_when_set():
    assert "faithful_claims" not in [f.__name__ for f in make_reward_funcs()]
    funcs = make_reward_funcs(faithfulness_weight=0.3)
    assert [f.__name__ for f in funcs][:3] == ["correct_answer", "faithful_claims", "parsed_ok"]
    assert reward_weights(funcs) == [1.0, 0.3] + [0.0] * (len(funcs) - 2)


def test_faithfulness_weight_is_a_grpo_setting_passed_to_trl(tmp_path):
    from whowrote.train.config import load_config
    from whowrote.train.grpo import reward_funcs
    from whowrote.types import WhowroteError

    cfg = load_config(None, ["grpo.faithfulness_weight=0.25", f'run.output_dir="{tmp_path}"'])
    funcs = reward_funcs(cfg)
    assert reward_weights(funcs)[:2] == [1.0, 0.25] and funcs[1].__name__ == "faithful_claims"
    assert "faithful_claims" not in [f.__name__ for f in reward_funcs(load_config(None, [f'run.output_dir="{tmp_path}"']))]
    with pytest.raises(WhowroteError, match="grpo.faithfulness_weight"):
        load_config(None, ["grpo.faithfulness_weight=-0.1"])
    grounded = reward_funcs(load_config(None, ["grpo.faithfulness_weight=0.5", "grpo.faithfulness_grounded=true",
                                               f'run.output_dir="{tmp_path}"']))
    assert grounded[1].__name__ == "grounded_claims" and reward_weights(grounded)[:2] == [1.0, 0.5]
    with pytest.raises(WhowroteError, match="grpo.faithfulness_grounded needs grpo.faithfulness_weight"):
        load_config(None, ["grpo.faithfulness_grounded=true"])
    pytest.importorskip("trl")
    from whowrote.train.grpo import build_grpo_config

    args = build_grpo_config(cfg, funcs)
    assert list(args.reward_weights)[:2] == [1.0, 0.25]


vf = pytest.importorskip("verifiers.v1", reason="verifiers (the optional extra) is not installed")


@pytest.fixture()
def split_dir(tmp_path):
    rows = [
        {"id": "c1", "text": "Synthetic sample\u2019s \u201cone\u201d \u2014 " * 5, "provider": "CLAUDE", "category": "x",
         "topic": "t1"},
        {"id": "p1", "text": "Synthetic sample two. " * 5, "provider": "CHATGPT", "category": "x", "topic": "t2"},
        {"id": "g1", "text": "Synthetic sample three. " * 5, "provider": "GEMINI", "category": "x", "topic": "t3"},
        {"id": "o1", "text": "Synthetic sample four. " * 5, "provider": "OTHER", "category": "x", "topic": "t4"},
    ]
    (tmp_path / "val.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path


def _trace(task, content, stop_condition=None):
    from verifiers.v1.graph import MessageNode
    from verifiers.v1.trace import AgentInfo, TraceTask

    return vf.Trace(task=TraceTask(type=type(task).__name__, data=task.data),
                    agent=AgentInfo(config=vf.AgentConfig()), stop_condition=stop_condition,
                    nodes=[MessageNode(message=vf.UserMessage(content="text")),
                           MessageNode(parent=0, message=vf.AssistantMessage(content=content), sampled=True)])


def test_verifiers_unfinished_and_truncated_replies(split_dir):
    from whowrote_provider_id import load_environment

    env = load_environment(split="val", data_dir=str(split_dir), truncation_penalty=0.5)
    claude = next(t for t in env.taskset if t.data.answer == "CLAUDE")
    cases = [(GOOD, None, 1.0), (UNFINISHED, None, 0.0), (LOOP, None, 0.0),
             (GOOD, "max_output_tokens", -0.5)]  # cut at the cap: no accuracy, minus the penalty
    for content, stop, want in cases:
        tr = _trace(claude, content, stop)
        asyncio.run(claude.score(tr))
        assert tr.rewards["correct_answer"].score == want, (content[:40], stop)
        assert tr.metrics["finished"] == float(want > 0)


def test_verifiers_taskset_loads_and_scores(split_dir):
    from whowrote_provider_id import WhowroteHarness, load_environment

    env = load_environment(split="val", data_dir=str(split_dir), require_reason=True)
    assert isinstance(env._harnesses["agent"], WhowroteHarness)
    tasks = list(env.taskset)
    assert [t.data.answer for t in tasks] == ["CLAUDE", "CHATGPT", "GEMINI"]  # OTHER dropped
    assert "<reason_why>" in tasks[0].data.system_prompt and tasks[0].data.prompt.startswith("Synthetic")
    # the text in ASCII typography, as every whowrote prompt carries it (curly in the split file)
    assert "sample\u2019s" not in tasks[0].data.prompt and "sample's \"one\" -- " in tasks[0].data.prompt
    want = {"CLAUDE": 1.0, "CHATGPT": 0.0, "GEMINI": 0.0}
    for task in tasks:
        for content, expect in ((GOOD, want[task.data.answer]), (NO_REASON, 0.0)):
            tr = _trace(task, content)
            asyncio.run(task.score(tr))
            assert tr.rewards["correct_answer"].score == expect
            assert tr.metrics["parsed_ok"] == 1.0 and tr.metrics["pred_claude"] == 1.0


def test_verifiers_config_validation_and_variants(split_dir):
    from whowrote_provider_id import load_environment

    with pytest.raises(ValueError):
        load_environment(split="val", data_dir=str(split_dir), label_scheme="four-way")
    with pytest.raises(ValueError):
        load_environment(split="val", data_dir=str(split_dir), label_scheme="binary", prompt_variant="lexical")
    env = load_environment(split="val", data_dir=str(split_dir), label_scheme="binary", cheatsheet="## TELLS\n- x")
    tasks = list(env.taskset)
    assert [t.data.answer for t in tasks] == ["CLAUDE", "CHATGPT"]  # GEMINI is not a binary label
    assert "GEMINI" not in tasks[0].data.system_prompt.split("## TELLS")[0]
    assert tasks[0].data.system_prompt.endswith("## TELLS\n- x")
    ans = list(load_environment(split="val", data_dir=str(split_dir), answer_only=True).taskset)
    assert "<reason_why>" not in ans[0].data.system_prompt


ENV_TOML = """
[env.taskset]
id = "whowrote-provider-id"
split = "val"
label_scheme = "provider3"

[env.taskset.task]
require_reason = true
min_reason_words = 12
"""


def test_verifiers_env_from_toml_block(split_dir):
    import tomllib

    raw = tomllib.loads(ENV_TOML)["env"]
    raw["taskset"]["data_dir"] = str(split_dir)
    cfg = vf.resolve_env_config(raw)
    env = vf.load_environment(cfg)
    tasks = list(env.taskset)
    assert len(tasks) == 3 and tasks[0].config.require_reason is True


@pytest.mark.parametrize("lines, match", [
    (["not json"], r":1: invalid JSON \("),
    (['{"text": "x", "answer": "A=CLAUDE;B=GEMINI", "id": "p"}', "[1]"], r":2: each line must be a JSON object, got list"),
])
def test_load_examples_bad_json_is_a_whowrote_error(tmp_path, lines, match):
    from whowrote.task.examples import load_examples
    from whowrote.types import WhowroteError

    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(WhowroteError, match=match):
        load_examples(p)


def test_environment_installs_and_a_plain_taskset_config_loads_it(split_dir, tmp_path):
    # The verifiers way: `pip install environments/whowrote_provider_id`, then the id alone finds it.
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    site, src = tmp_path / "site", tmp_path / "env"
    shutil.copytree(root / "environments" / "whowrote_provider_id", src)  # the build writes beside its sources
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(site), str(src)], check=True, capture_output=True)
    assert (site / "whowrote_provider_id" / "taskset.py").is_file()
    code = ("import verifiers.v1 as vf, whowrote_provider_id as m; "
            "ts = vf.load_taskset(vf.TasksetConfig(id='whowrote-provider-id')); "
            "print(m.__file__); print([t.data.answer for t in ts])")
    env = {**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{root / 'src'}", "WHOWROTE_DATA_DIR": str(split_dir)}
    (split_dir / "train.jsonl").write_text((split_dir / "val.jsonl").read_text())
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    where, answers = out.stdout.strip().splitlines()
    assert where.startswith(str(site)) and answers == "['CLAUDE', 'CHATGPT', 'GEMINI']"
