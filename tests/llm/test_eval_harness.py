"""The eval harness end to end: traces, summary numbers, resume after interruption, CLI."""

from __future__ import annotations

import json
import re

import pytest
from word_backend import WordTokens

from whowrote.llm.backends import Sample, SamplingParams, TransformersBackend
from whowrote.llm.config import EvalConfig
from whowrote.llm.evaluate import run_eval
from whowrote.train.data import write_rows
from whowrote.types import WhowroteError

REASON = "The sincere adverbs, direct address and warm essay voice point to one particular assistant."


class ScriptedBackend(WordTokens):
    """Answers from the provider named in the synthetic text; sample 1 of CHATGPT texts truncates."""

    def __init__(self, fail_after: int | None = None):
        self.calls = 0
        self.seen: list[str] = []
        self.fail_after = fail_after

    def generate(self, prompts, params: SamplingParams):
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise KeyboardInterrupt  # simulate a kill in the middle of the run
        self.calls += 1
        out = []
        for m in prompts:
            text = m[-1]["content"]
            self.seen.append(text)
            lab = re.search(r"Synthetic (\w+)", text).group(1).upper()
            samples = []
            for j in range(params.k):
                if lab == "CHATGPT" and j == 1:
                    samples.append(Sample("<reason_why>" + "loop " * 50, "length", 10, params.max_new_tokens))
                elif lab == "GEMINI":
                    samples.append(Sample(f"<reason_why>{REASON}</reason_why><answer>CLAUDE</answer>", "stop", 10, 30))
                else:
                    samples.append(Sample(f"<reason_why>{REASON}</reason_why><answer>{lab}</answer>", "stop", 10, 30))
            out.append(samples)
        return out


def cfg(split, out, **kw):
    return EvalConfig(split=str(split), out=str(out), model="scripted", k=2, batch_size=2, **kw)


def read(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_traces_and_summary(tmp_path, split_file):
    s = run_eval(cfg(split_file, tmp_path / "o"), backend=ScriptedBackend())
    traces = read(tmp_path / "o" / "traces.jsonl")
    assert len(traces) == 6 * 2
    t = traces[0]
    for key in ("prompt_id", "sample", "gold", "completion", "pred", "terms", "finish_reason",
                "prompt_tokens", "completion_tokens", "truncated", "reason_words"):
        assert key in t
    assert s["accuracy"] == pytest.approx(round(6 / 12, 4))  # CLAUDE 4/4, CHATGPT 2/4, GEMINI 0/4
    assert s["pass@2"] == pytest.approx(round(4 / 6, 4))
    assert s["per_provider"]["GEMINI"]["recall"] == 0.0
    assert s["confusion"]["GEMINI"]["CLAUDE"] == 4
    assert s["truncation_rate"] == pytest.approx(round(2 / 12, 4))
    assert s["parse_fail_rate"] == pytest.approx(round(2 / 12, 4))
    assert s["unparsed_finished_rate"] == 0.0  # both failures are the cut-off CHATGPT loops
    assert s["run"]["complete"] is True
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["accuracy"] == s["accuracy"]


def test_resume_after_interruption_no_duplicates_no_loss(tmp_path, split_file):
    out = tmp_path / "o"
    with pytest.raises(KeyboardInterrupt):
        run_eval(cfg(split_file, out), backend=ScriptedBackend(fail_after=2))  # 2 batches of 2 done
    assert len(read(out / "traces.jsonl")) == 4 * 2
    with (out / "traces.jsonl").open("a") as f:  # a torn half-line from a kill during a write
        f.write('{"prompt_id": "gemini-1", "sam')
    backend = ScriptedBackend()
    s = run_eval(cfg(split_file, out), backend=backend)
    assert len(backend.seen) == 2  # only the two texts not done yet
    traces = read(out / "traces.jsonl")
    keys = [(t["prompt_id"], t["sample"]) for t in traces]
    assert len(keys) == len(set(keys)) == 12
    assert s["n_examples"] == 6 and s["accuracy"] == pytest.approx(0.5)
    # a third run has nothing to do and does not need a backend at all
    s2 = run_eval(cfg(split_file, out), backend=None)
    assert s2["n_samples"] == 12


def test_resume_skips_only_a_corrupt_middle_line(tmp_path, split_file, capsys):
    out = tmp_path / "o"
    run_eval(cfg(split_file, out), backend=ScriptedBackend())
    lines = (out / "traces.jsonl").read_text().splitlines(keepends=True)
    lines[3] = '{"prompt_id": "claude-1", "sample": 1, "gold": "CLA\x00\n'  # one corrupt middle line
    (out / "traces.jsonl").write_text("".join(lines))
    backend = ScriptedBackend()
    s = run_eval(cfg(split_file, out), backend=backend)
    # Only the example that lost a sample is generated again; the 10 valid traces of the others stay.
    assert len(backend.seen) == 1
    err = capsys.readouterr().err
    assert "skipped 1 corrupt trace line(s) (line 4)" in err and err.count("\n") == 1
    keys = [(t["prompt_id"], t["sample"]) for t in read(out / "traces.jsonl")]
    assert len(keys) == len(set(keys)) == 12 and s["n_samples"] == 12


def test_resume_refuses_a_split_rewritten_at_the_same_path(tmp_path, split_file):
    out = tmp_path / "o"
    run_eval(cfg(split_file, out, limit=2), backend=ScriptedBackend())
    assert len(json.loads((out / "run.json").read_text())["split_sha256"]) == 64
    split_file.write_text(split_file.read_text().replace("sample 0", "sample zero"))
    with pytest.raises(WhowroteError, match=r"changed since the traces in .* were written") as e:
        run_eval(cfg(split_file, out, limit=2), backend=ScriptedBackend())
    assert "\n" not in str(e.value)


def test_resume_refuses_different_settings(tmp_path, split_file):
    run_eval(cfg(split_file, tmp_path / "o", limit=2), backend=ScriptedBackend())
    with pytest.raises(WhowroteError, match="different run"):
        run_eval(cfg(split_file, tmp_path / "o", limit=2, temperature=0.0), backend=ScriptedBackend())


def test_resume_refuses_traces_of_another_prompt_reading(tmp_path, split_file):
    # traces written before the prompts read the plain layout (session 31) are not extended with new ones
    out = tmp_path / "o"
    run_eval(cfg(split_file, out, limit=2), backend=ScriptedBackend())
    run = json.loads((out / "run.json").read_text())
    assert run["prompt_text"] == "ascii+plain_layout"
    del run["prompt_text"]
    (out / "run.json").write_text(json.dumps(run))
    with pytest.raises(WhowroteError, match="prompt_text"):
        run_eval(cfg(split_file, out, limit=2), backend=ScriptedBackend())


def test_prompt_budget_truncates_text(tmp_path, split_file):
    backend = ScriptedBackend()
    from whowrote.llm.prompting import SAFETY_TOKENS
    from whowrote.task.prompts import system_prompt

    scaffold = len(system_prompt("3way").split())  # the scripted backend counts words as tokens
    s = run_eval(cfg(split_file, tmp_path / "o", max_prompt_tokens=scaffold + SAFETY_TOKENS + 12), backend=backend)
    assert s["prompt_truncation_rate"] == 1.0  # every text has 24 words
    assert all(len(t.split()) == 12 and t.startswith("Synthetic") for t in backend.seen)
    assert s["accuracy"] == pytest.approx(0.5)  # the scaffold survived: answers still parse


def test_tiny_transformers_model_end_to_end(tmp_path, tiny_tokenizer, tiny_model, split_writer):
    split = split_writer(tmp_path / "val.jsonl", n_per_class=1, other=True)
    be = TransformersBackend(tiny_model, tiny_tokenizer, batch_size=2)
    s = run_eval(EvalConfig(split=str(split), out=str(tmp_path / "o"), model="tiny", k=2, max_new_tokens=4,
                            batch_size=2), backend=be)
    assert s["n_examples"] == 3 and s["n_samples"] == 6  # OTHER is not a label: dropped
    assert s["throughput"]["tokens_per_s"] and s["throughput"]["completion_tokens"] > 0
    assert all(t["completion_tokens"] <= 4 for t in read(tmp_path / "o" / "traces.jsonl"))


def test_question_answer_layout(tmp_path):
    rows = [{"question": f"Synthetic {lab.lower()} text.", "answer": lab, "info": {"id": f"r{i}", "topic": "t"}}
            for i, lab in enumerate(["CLAUDE", "GEMINI", "CHATGPT"])]
    split = tmp_path / "hf.jsonl"
    split.write_text("".join(json.dumps(r) + "\n" for r in rows))
    s = run_eval(cfg(split, tmp_path / "o"), backend=ScriptedBackend())
    assert s["n_examples"] == 3
    ids = {t["prompt_id"] for t in read(tmp_path / "o" / "traces.jsonl")}
    assert ids == {"r0", "r1", "r2"}


def test_failed_start_does_not_bind_the_out_dir(tmp_path, split_file):
    # A run that died before its first trace (bad endpoint/model) left run.json and an empty
    # traces.jsonl; a corrected re-run into the same --out must not be refused as "different".
    class Broken(ScriptedBackend):
        def generate(self, prompts, params):
            raise WhowroteError("endpoint down")

    with pytest.raises(WhowroteError, match="endpoint down"):
        run_eval(cfg(split_file, tmp_path / "o", limit=2), backend=Broken())
    s = run_eval(cfg(split_file, tmp_path / "o", limit=2, temperature=0.0), backend=ScriptedBackend())
    assert s["n_examples"] == 2


def test_missing_local_model_path_is_one_line_error(tmp_path, split_file):
    with pytest.raises(WhowroteError, match="model path not found"):
        run_eval(EvalConfig(split=str(split_file), out=str(tmp_path / "o"), model=str(tmp_path / "nope")))


def test_directory_that_is_not_a_model_is_one_line_error(tmp_path):
    from whowrote.llm.models import load_causal_lm

    (tmp_path / "config.json").write_text("{}")  # transformers raises ValueError here, not OSError
    with pytest.raises(WhowroteError, match="cannot load model"):
        load_causal_lm(str(tmp_path))


def test_a_folder_without_config_json_is_named_as_not_a_model(tmp_path):
    # audit, session 30: transformers' tokenizer error was cut to "... from one of: "
    from whowrote.llm.models import load_causal_lm

    (tmp_path / "readme.txt").write_text("notes")
    with pytest.raises(WhowroteError, match=r"has no config\.json \(not a model folder\)$"):
        load_causal_lm(str(tmp_path))


def test_traces_and_summary_carry_the_genre(tmp_path):
    # A split with a genre column: each trace names its genre and summary.json breaks accuracy down
    # by genre (CLAUDE always right, CHATGPT right on one sample of two, GEMINI never).
    rows = [{"id": f"{lab.lower()}-{i}", "text": f"Synthetic {lab.lower()} sample {i}. " * 6, "provider": lab,
             "genre": ("blog", "debate")[i], "topic": f"t{i}"}
            for lab in ("CLAUDE", "CHATGPT", "GEMINI") for i in range(2)]
    # written by the package's row writer (as the ladder's splits are), which keeps genre as genre
    split = write_rows(tmp_path / "val.jsonl", rows)
    s = run_eval(cfg(split, tmp_path / "o"), backend=ScriptedBackend())
    traces = read(tmp_path / "o" / "traces.jsonl")
    assert {t["prompt_id"]: t["genre"] for t in traces}["gemini-1"] == "debate"
    assert set(s["per_genre"]) == {"blog", "debate"}
    for g in ("blog", "debate"):
        assert s["per_genre"][g] == {"n_examples": 3, "n_samples": 6, "accuracy": 0.5,
                                     "recall": {"CLAUDE": 1.0, "CHATGPT": 0.5, "GEMINI": 0.0}}
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["per_genre"] == s["per_genre"]
    # the printed report gets a by-genre table
    from rich.console import Console

    from whowrote.llm.report import render_summary

    console = Console(record=True, width=120)
    render_summary(s, console=console)
    rows = [line.split() for line in console.export_text().splitlines()]
    assert ["debate", "3", "50.0%", "100.0%", "50.0%", "0.0%"] in [[c for c in r if c not in "│┃|"] for r in rows]
