"""scripts/gpu/step_rows.py against a real (tiny) SFT run: the rebuilt batches are the run's.

The check is the run's own log: after every step, the rebuilt micro-batches' non-pad tokens must add
up to the ``num_tokens`` TRL logged. A rebuild with another sampler seed must fail that check.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from whowrote.train.config import load_config
from whowrote.train.data import write_rows
from whowrote.train.sft import run_sft

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("step_rows", REPO / "scripts" / "gpu" / "step_rows.py")
step_rows = importlib.util.module_from_spec(spec)
spec.loader.exec_module(step_rows)

CONFIG = REPO / "configs" / "qwen25_05b_answer_only_sft.toml"
SETS = ("sft.max_steps=4", "sft.batch_size=2", "sft.grad_accum=2", 'data.val=""', "run.save_final=false",
        'model.dtype="float32"', 'run.bf16="false"', "model.gradient_checkpointing=false", "data.max_text_tokens=64")
WORDS = ["the", "a", "model", "wrote", "this", "text", "about", "rivers", "cities", "and", "time", "with", "care"]


@pytest.fixture(scope="module")
def splits(tmp_path_factory) -> dict[str, Path]:
    rows = [{"id": f"r{i}", "text": " ".join(WORDS[(i * 5 + j) % len(WORDS)] for j in range(3 + 2 * i)),
             "provider": ("CLAUDE", "CHATGPT", "GEMINI")[i % 3], "genre": "g", "topic": f"t{i}"} for i in range(12)]
    return {"train": write_rows(tmp_path_factory.mktemp("split") / "train.jsonl", rows)}


def _sets(tiny_model, splits, *extra: str) -> list[str]:
    return [f'model.name_or_path="{tiny_model}"', f'data.train="{splits["train"]}"', *SETS, *extra]


@pytest.fixture(scope="module")
def sft_run(tiny_model, splits, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sft_run")
    run_sft(load_config(CONFIG, [*_sets(tiny_model, splits), f'run.output_dir="{out}"', 'run.resume=""']))
    return out


def _args(tiny_model, splits, *extra: str) -> list[str]:
    return ["-c", str(CONFIG), *(x for s in _sets(tiny_model, splits, *extra) for x in ("--set", s))]


def test_rebuilt_steps_match_the_run_and_list_its_rows(tiny_model, splits, sft_run, tmp_path, capsys):
    out = tmp_path / "steps.json"
    rc = step_rows.main([*_args(tiny_model, splits), "--metrics", str(sft_run / "metrics.jsonl"),
                         "--steps", "2", "--out", str(out)])
    printed = capsys.readouterr().out
    assert rc == 0, printed
    assert "matches the rebuild" in printed
    steps = json.loads(out.read_text())["steps"]
    assert sorted(map(int, steps)) == [1, 2, 3, 4]
    train_ids = {json.loads(line)["id"] for line in Path(splits["train"]).read_text().splitlines()}
    for batch in steps.values():
        assert len(batch) == 4  # batch 2 x accumulation 2
        assert {b["id"] for b in batch} <= train_ids
        assert all(0 < b["loss_tokens"] < b["tokens"] <= b["padded_to"] for b in batch)
    listed = [json.loads(line) for line in printed.splitlines() if line.startswith("{")]
    assert [r["id"] for r in listed] == [b["id"] for b in steps["2"]]


def test_a_rebuild_with_another_seed_fails_the_check(tiny_model, splits, sft_run, capsys):
    rc = step_rows.main([*_args(tiny_model, splits, "run.seed=7"), "--metrics", str(sft_run / "metrics.jsonl")])
    assert rc == 1
    assert "MISMATCH step" in capsys.readouterr().out


def test_a_missing_split_is_one_line(tiny_model, tmp_path, capsys):
    args = ["-c", str(CONFIG), "--set", f'model.name_or_path="{tiny_model}"',
            "--set", f'data.train="{tmp_path / "none.jsonl"}"']
    assert step_rows.main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "data file not found" in err


def test_a_cold_start_sft_stage_is_rebuilt_from_its_star_rows(tiny_model, splits, tmp_path, capsys):
    from whowrote.train.coldstart import run_coldstart

    cold = REPO / "configs" / "qwen25_05b_coldstart.toml"
    sets = [*_sets(tiny_model, splits), 'star.mode="fallback"', "data.n_train=0", "coldstart.sft_max_steps=3",
            'coldstart.stages=["star", "sft"]']
    out = tmp_path / "cs"
    run_coldstart(load_config(cold, [*sets, f'run.output_dir="{out}"', 'run.resume=""']))
    args = ["-c", str(cold), "--rows", str(out / "star.jsonl"), "--metrics", str(out / "sft" / "metrics.jsonl"),
            *(x for s in sets for x in ("--set", s))]
    assert step_rows.main(args) == 0
    assert "3 optimizer steps" in capsys.readouterr().out
