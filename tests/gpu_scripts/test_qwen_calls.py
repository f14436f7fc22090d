"""The session-4 device scripts (scripts/gpu/qwen_calls.sh and its helpers), checked on CPU.

vLLM is GPU-only, so these tests check what can be checked here: every `--set` the calls pass
names a real config field with a valid value (the whole call sequence in check mode, and a bad
override must fail it), the launcher's vLLM engine settings, the eval queue's job file, and, as a
slow test, the whole CPU dry run (stage 1..12, callA/B/C on the tiny model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GPU = REPO / "scripts" / "gpu"
sys.path.insert(0, str(GPU))

import check_config  # noqa: E402
import eval_queue  # noqa: E402
import wt  # noqa: E402


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'src'}:{os.environ.get('PYTHONPATH', '')}", **extra}
    env.pop("QWEN_DRY", None)
    return env


def _check_call(call: str, tmp_path: Path, home: Path, **env: str) -> list[dict]:
    """Run CALL of qwen_calls.sh in check mode; the trainer commands it would start, in order."""
    checkfile = tmp_path / "check.jsonl"
    checkfile.write_text("")
    r = subprocess.run(["bash", str(GPU / "qwen_calls.sh"), call], cwd=REPO, capture_output=True, text=True,
                       timeout=300, env=_env(QWEN_CHECK="1", CHECKFILE=str(checkfile), QWEN_HOME=str(home), **env))
    assert r.returncode == 0, r.stdout + r.stderr
    return [json.loads(line) for line in checkfile.read_text().splitlines()]


def test_engine_overrides_fill_in_what_the_environment_says() -> None:
    env = {"WT_VLLM_KV_GIB": "4", "WT_VLLM_UTIL": "0.05", "WT_VLLM_DTYPE": "bfloat16", "WT_VLLM_EAGER": "1",
           "WT_VLLM_MAX_LEN": "4096"}
    # TRL's colocated engine gives no dtype / max_model_len: both are filled in; the KV size and the
    # utilization always apply
    assert wt.engine_overrides(env, {"gpu_memory_utilization": 0.3}) == {
        "kv_cache_memory_bytes": 4 * 2**30, "gpu_memory_utilization": 0.05, "dtype": "bfloat16",
        "enforce_eager": True, "max_model_len": 4096}
    # a caller's explicit dtype and max_model_len win
    got = wt.engine_overrides(env, {"dtype": "float16", "max_model_len": 2048})
    assert "dtype" not in got and "max_model_len" not in got
    assert wt.engine_overrides({}, {"dtype": None}) == {}
    # TRL's colocated engine hard-codes max_num_batched_tokens=4096: the environment's value wins
    assert wt.engine_overrides({"WT_VLLM_BATCHED_TOKENS": "65536"}, {"max_num_batched_tokens": 4096}) == {
        "max_num_batched_tokens": 65536}


def test_patch_is_off_without_an_engine_variable() -> None:
    # HF-only processes (SFT, tells rows) must not import vLLM: only KV size / utilization turn it on
    assert wt.patch_vllm({"WT_VLLM_DTYPE": "bfloat16", "WT_VLLM_MAX_LEN": "4096"}) is False


def test_eval_queue_job_file(tmp_path: Path) -> None:
    done = tmp_path / "run" / ".done"
    jobs = tmp_path / "jobs.tsv"
    jobs.write_text(f"{tmp_path}/a\tM\t3way\t256\t-\n# comment\n{tmp_path}/b\tM2\tanswer_only\t16\t{done}\n"
                    f"{tmp_path}/c\tM2\tanswer_only\t16\t{done}\tchat.jsonl\nEND\n")
    got, end = eval_queue.read_jobs(jobs)
    assert end and [(j.variant, j.max_new, j.split) for j in got] == [
        ("3way", 256, ""), ("answer_only", 16, ""), ("answer_only", 16, "chat.jsonl")]  # the 6th field: its own split
    assert got[0].ready() and not got[1].ready()
    done.parent.mkdir()
    done.write_text("skip: STaR kept 3 rows\n")
    assert got[1].ready() and got[1].not_run()
    jobs.write_text("only\ttwo\n")
    with pytest.raises(SystemExit, match="5 or 6 tab-separated"):
        eval_queue.read_jobs(jobs)


def test_check_config_catches_a_bad_override(tmp_path: Path) -> None:
    good = {"name": "g", "cmd": "grpo", "config": str(REPO / "configs/qwen25_05b_grpo.toml"), "sets": ["grpo.lr=2e-6"]}
    assert check_config.check_one(good) == ""
    bad_key = {**good, "sets": ["grpo.learning_rate=2e-6"]}
    assert "unknown config key grpo.learning_rate" in check_config.check_one(bad_key)
    bad_plan = {**good, "sets": ["grpo.prompts_per_step=4"]}  # not a multiple of 3 labels
    assert "multiple of" in check_config.check_one(bad_plan)
    research = {"name": "r", "cmd": "research", "config": str(REPO / "configs/research/qwen25_05b_rlsd.toml"),
                "sets": ["research.truncation_safe_reward=true"]}
    assert check_config.check_one(research) == ""
    assert "research.nope" in check_config.check_one({**research, "sets": ["research.nope=1"]})


def test_check_config_catches_a_carried_file_this_checkout_lacks(tmp_path: Path, monkeypatch) -> None:
    sft = {"name": "s", "cmd": "sft", "config": str(REPO / "configs/qwen25_05b_answer_only_sft.toml")}
    monkeypatch.chdir(tmp_path)  # the device's repository root: the carried .gguf/ is relative to it
    (tmp_path / ".gguf" / "arena").mkdir(parents=True)
    (tmp_path / ".gguf" / "arena" / "train.jsonl.gz").write_bytes(b"")
    assert check_config.check_one({**sft, "sets": ['data.train=".gguf/arena/train.jsonl.gz"']}) == ""
    why = check_config.check_one({**sft, "sets": ['data.train=".gguf/arenaa/train.jsonl.gz"']})
    assert why == "data.train: .gguf/arenaa/train.jsonl.gz not found in this checkout (the call carries it from here)"
    # a device-made path (not carried) is not checked here
    assert check_config.check_one({**sft, "sets": ['data.train="/root/data/train.jsonl.gz"']}) == ""


@pytest.mark.slow
def test_every_override_of_every_call_is_a_real_field() -> None:
    r = subprocess.run(["bash", str(GPU / "qwen_calls.sh"), "check"], cwd=REPO, env=_env(),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [x for x in r.stdout.splitlines() if x.startswith("check (")]
    assert len(lines) == 2 and all(" 0 bad" in x for x in lines), r.stdout
    n = int(lines[0].split(":")[1].split()[0])
    assert n >= 20  # callA's 10 (4 SFT stages + STaR + 2 data builders + 2 research runs + the queue), callB's 5, callC's 6
    assert "of 67108864 bytes" in r.stdout  # stage.sh fits: the carry size of a staging call
    # the check is real: one unknown key in every trainer command fails it
    r = subprocess.run(["bash", str(GPU / "qwen_calls.sh"), "check"], cwd=REPO,
                       env=_env(QWEN_EXTRA_SET="grpo.no_such_key=1"), capture_output=True, text=True, timeout=600)
    assert r.returncode == 1 and "unknown config key grpo.no_such_key" in r.stdout


@pytest.mark.slow
def test_cpu_dry_run_of_the_whole_sequence(tmp_path: Path) -> None:
    if not list((REPO / ".stage").glob("p*/chunk.*")):
        pytest.skip("no .stage/pN chunks (bash scripts/gpu/stage.sh fetch && pack)")
    r = subprocess.run(["bash", str(GPU / "qwen_calls.sh"), "dry"], cwd=REPO, env=_env(QWEN_HOME=str(tmp_path)),
                       capture_output=True, text=True, timeout=3000)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-3000:]
    assert "dry run: every call succeeded" in r.stdout
    # callA: 4 SFT rungs + 2 research runs; callB: 4 cold start -> GRPO arms; callC: 2 resumed + 3 research
    summaries = list((tmp_path / "runs").glob("*/**/eval_k4*/summary.json"))
    assert len(summaries) >= 15, summaries
    assert all(json.loads(p.read_text())["n_examples"] > 0 for p in summaries)


def test_tellsfirst_ao_trains_the_answer_only_sft_then_the_rationale_from_its_weights(tmp_path: Path) -> None:
    # callA in check mode records every trainer command in order: the chain must train the
    # answer-only SFT once, then the verdict-first rationale SFT starting from its final weights.
    home = tmp_path / "home"
    for sfts, answer_runs in (("tellsfirst_ao", 1), ("answer tellsfirst_ao", 1), ("tellsfirst", 0)):
        cmds = _check_call("callA", tmp_path, home, QWEN_INNER="1", QWEN_A_SFTS=sfts, QWEN_A_RUNS=" ")
        names = [c["name"] for c in cmds]
        assert names.count("sft_answer") == answer_runs, names
        if "tellsfirst_ao" not in sfts:
            continue
        sft = next(c for c in cmds if c["name"] == "cs_tellsfirst_ao_sft")
        assert names.index("sft_answer") < names.index("cs_tellsfirst_ao_sft")
        start = f'model.name_or_path="{home}/runs/qwen05b/sft_answer_only/final"'
        assert start in sft["sets"] and "star.verdict_first=true" in sft["sets"]
        assert "coldstart.sft_max_steps=60" in sft["sets"], sft["sets"]


def test_tellsfirst_ao_starts_from_an_earlier_calls_answer_only_sft(tmp_path: Path) -> None:
    # Session 17: one call had no time for both SFTs. When an earlier callA saved the answer-only
    # SFT (its .done says 0), the chain must not train it again, and must start from it.
    home = tmp_path / "home"
    answer = home / "runs" / "qwen05b" / "sft_answer_only"
    (answer / "final").mkdir(parents=True)
    (answer / "final" / "config.json").write_text("{}")
    for done, answer_runs in (("1", 1), ("0", 0)):  # a failed earlier SFT is trained again
        (answer / ".done").write_text(done + "\n")
        cmds = _check_call("callA", tmp_path, home, QWEN_INNER="1", QWEN_A_SFTS="tellsfirst_ao", QWEN_A_RUNS=" ")
        names = [c["name"] for c in cmds]
        assert names.count("sft_answer") == answer_runs, names
        sft = next(c for c in cmds if c["name"] == "cs_tellsfirst_ao_sft")
        assert f'model.name_or_path="{answer}/final"' in sft["sets"]


def test_arm_tag_gives_a_settings_variant_its_own_run_folders(tmp_path: Path) -> None:
    # A second callB with other settings (QWEN_EXTRA_SET) must not resume the first's runs.
    home = tmp_path / "home"
    dirs = {}
    for tag in ("", "_mp05"):
        cmds = _check_call("callB", tmp_path, home, QWEN_INNER="1", QWEN_ARM_TAG=tag, QWEN_B_ARMS="tellsall:1:5e-6",
                           QWEN_EXTRA_SET="grpo.majority_penalty=0.5" if tag else "")
        (run,) = [c for c in cmds if c["name"] != "queue"]
        dirs[tag] = next(s for s in run["sets"] if s.startswith("run.output_dir="))
        assert ("grpo.majority_penalty=0.5" in run["sets"]) == bool(tag)
    assert dirs[""] == f'run.output_dir="{home}/runs/qwen05b/cs_tellsall/grpo_s1_lr5e-6"'
    assert dirs["_mp05"] == f'run.output_dir="{home}/runs/qwen05b/cs_tellsall/grpo_s1_lr5e-6_mp05"'


def test_arm_tag_gives_the_answer_only_sft_its_own_folder(tmp_path: Path) -> None:
    # Session 20: an answer-only SFT with other settings (more epochs) must not overwrite the shipped
    # settings' run; its k = 4 eval and the edit splits score the tagged folder's weights.
    home = tmp_path / "home"
    splits = tmp_path / "splits"
    splits.mkdir()
    (splits / "chat.jsonl.gz").write_bytes(b"")
    for tag in ("", "_e3"):
        cmds = _check_call("callA", tmp_path, home, QWEN_INNER="1", QWEN_ARM_TAG=tag, QWEN_A_SFTS="answer",
                           QWEN_A_RUNS=" ", QWEN_SPLITS=str(splits))
        (sft,) = [c for c in cmds if c["name"] == "sft_answer"]
        d = f"{home}/runs/qwen05b/sft_answer_only{tag}"
        assert f'run.output_dir="{d}"' in sft["sets"]
        jobs = (home / "runs" / "jobs_A.tsv").read_text().splitlines()
        assert [j.split("\t")[:2] for j in jobs if j.startswith(d + "/")] == [
            [f"{d}/eval_k4_chat", f"{d}/final"], [f"{d}/eval_k4", f"{d}/final"]], jobs


def test_a_call_that_cannot_stage_reports_failure(tmp_path: Path) -> None:
    # Session 18: callA met a fresh machine without the stage; its log said "staging/export failed"
    # and then "every stage succeeded", because no stage had written an exit status yet.
    r = subprocess.run(["bash", str(GPU / "qwen_calls.sh"), "callA"], cwd=REPO, capture_output=True, text=True,
                       timeout=300, env=_env(QWEN_HOME=str(tmp_path / "home"), QWEN_LAST_CHUNK="99",
                                             OUT=str(tmp_path / "out"), QWEN_A_SFTS="answer", QWEN_A_RUNS=" "))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "staging/export failed" in r.stdout
    assert "every stage succeeded" not in r.stdout
    assert "1 stage(s) failed" in r.stdout


def test_a_second_calla_keeps_the_finished_answer_only_sft(tmp_path: Path) -> None:
    # Session 21: a second callA, sent only to score more edit splits, trained the finished answer-only
    # SFT again from scratch (100 steps in its time) and overwrote its weights. A finished SFT (.done
    # says 0) must be kept and only the evals not yet done queued; a failed one is trained again.
    home = tmp_path / "home"
    answer = home / "runs" / "qwen05b" / "sft_answer_only"
    (answer / "final").mkdir(parents=True)
    (answer / "final" / "config.json").write_text("{}")
    (answer / "eval_k4").mkdir()
    (answer / "eval_k4" / "summary.json").write_text("{}")
    splits = tmp_path / "splits"
    splits.mkdir()
    (splits / "val.lower.jsonl.gz").write_bytes(b"")
    for done, answer_runs in (("0", 0), ("1", 1)):
        (answer / ".done").write_text(done + "\n")
        cmds = _check_call("callA", tmp_path, home, QWEN_A_SFTS="answer", QWEN_A_RUNS=" ", QWEN_SPLITS=str(splits))
        names = [c["name"] for c in cmds]
        assert names.count("sft_answer") == answer_runs, names
        jobs = [j.split("\t")[0] for j in (home / "runs" / "jobs_A.tsv").read_text().splitlines()]
        assert f"{answer}/eval_k4_val.lower" in jobs
        # the finished model's val eval is done; a retrained one is scored again
        assert (f"{answer}/eval_k4" in jobs) == (done == "1"), jobs


def test_calle_scores_finished_runs_on_every_split_without_training(tmp_path: Path) -> None:
    # Session 22's GRPO models were never scored under the edits: callE queues every split file for
    # each finished run of QWEN_E_RUNS, with the prompt its run was trained on, and trains nothing.
    home = tmp_path / "home"
    q = home / "runs" / "qwen05b"
    grpo, answer, unfinished = q / "cs_tellsfirst_ao" / "grpo_s0_mp05", q / "sft_answer_only", q / "cs_tells" / "grpo_s1"
    for d in (grpo, answer):
        (d / "final").mkdir(parents=True)
        (d / "final" / "config.json").write_text("{}")
        (d / ".done").write_text("0\n")
    (grpo / "eval_k4_chat").mkdir()
    (grpo / "eval_k4_chat" / "summary.json").write_text("{}")  # scored by an earlier call
    unfinished.mkdir(parents=True)
    splits = tmp_path / "splits"
    splits.mkdir()
    for name in ("chat", "val.lower"):
        (splits / f"{name}.jsonl.gz").write_bytes(b"")
    runs = "cs_tellsfirst_ao/grpo_s0_mp05 sft_answer_only cs_tells/grpo_s1"
    cmds = _check_call("callE", tmp_path, home, QWEN_E_RUNS=runs, QWEN_SPLITS=str(splits))
    assert [c["name"] for c in cmds] == ["queue"]
    jobs = [j.split("\t") for j in (home / "runs" / "jobs_E.tsv").read_text().splitlines() if j != "END"]
    by_out = {j[0]: j for j in jobs}
    # an answer-only SFT without its raw val eval gets it first (session 29's review: callA queues it
    # last, so a call that ran out of time would leave the rule's raw pass@1 unmeasured); GRPO runs not
    assert set(by_out) == {f"{grpo}/eval_k4_val.lower", f"{answer}/eval_k4", f"{answer}/eval_k4_chat",
                           f"{answer}/eval_k4_val.lower"}
    answer_jobs = [j[0] for j in jobs if j[0].startswith(f"{answer}/")]
    assert answer_jobs[0] == f"{answer}/eval_k4" and len(by_out[f"{answer}/eval_k4"]) == 5  # on val: no split file
    assert by_out[f"{grpo}/eval_k4_val.lower"][1:5] == [f"{grpo}/final", "3way", "256", f"{grpo}/.done"]
    assert by_out[f"{answer}/eval_k4_chat"][2] == "answer_only"
    assert by_out[f"{answer}/eval_k4_chat"][5].endswith("/splits/chat.jsonl")
    # the done markers of trained models stay
    assert (grpo / ".done").read_text() == "0\n"


def test_calla_scores_an_earlier_runs_splits_while_it_trains_a_variant(tmp_path: Path) -> None:
    # Session 29's plan: A1 trains the answer-only SFT on edited copies (its own folder, its own
    # train file) while its queue scores A0's finished SFT on every split; then the variant's evals.
    home = tmp_path / "home"
    plain = home / "runs" / "qwen05b" / "sft_answer_only"
    (plain / "final").mkdir(parents=True)
    (plain / "final" / "config.json").write_text("{}")
    (plain / ".done").write_text("0\n")
    (plain / "eval_k4").mkdir()
    (plain / "eval_k4" / "summary.json").write_text("{}")  # A0 scored it: not queued again
    splits = tmp_path / "splits"
    splits.mkdir()
    for name in ("chat", "val.combined"):
        (splits / f"{name}.jsonl.gz").write_bytes(b"")
    cmds = _check_call("callA", tmp_path, home, QWEN_ARM_TAG="_aug", QWEN_A_SFTS="answer", QWEN_A_RUNS=" ",
                       QWEN_SPLITS=str(splits), QWEN_E_RUNS="sft_answer_only",
                       QWEN_EXTRA_SET='data.train=".gguf/aug/train.jsonl.gz" sft.epochs=1.0')
    (sft,) = [c for c in cmds if c["name"] == "sft_answer"]
    aug = f"{plain}_aug"
    assert f'run.output_dir="{aug}"' in sft["sets"]
    assert sft["sets"][-2:] == ['data.train=".gguf/aug/train.jsonl.gz"', "sft.epochs=1.0"]  # after the defaults
    jobs = [j.split("\t") for j in (home / "runs" / "jobs_A.tsv").read_text().splitlines() if j != "END"]
    outs = [j[0] for j in jobs]
    assert sorted(outs) == sorted([f"{plain}/eval_k4_chat", f"{plain}/eval_k4_val.combined",
                                   f"{aug}/eval_k4_chat", f"{aug}/eval_k4_val.combined", f"{aug}/eval_k4"])
    assert all(j[2] == "answer_only" for j in jobs)
    assert (plain / ".done").read_text() == "0\n"  # the finished model is not trained again


def test_calle_without_splits_fails_with_a_reason(tmp_path: Path) -> None:
    r = subprocess.run(["bash", str(GPU / "qwen_calls.sh"), "callE"], cwd=REPO, capture_output=True, text=True,
                       timeout=120, env=_env(QWEN_CHECK="1", CHECKFILE=str(tmp_path / "c.jsonl"),
                                             QWEN_HOME=str(tmp_path / "home")))
    assert r.returncode == 1
    assert "callE needs QWEN_SPLITS" in r.stdout
