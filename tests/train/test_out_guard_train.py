"""`train tiny-model`, `train export-model` and the training runner (`train grpo`, ...) refuse a
non-empty folder they did not write (audit: each overwrote a user's files, and GRPO appended to a
user's metrics.jsonl) and still write again into their own folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from whowrote.cli import main
from whowrote.data.outdir import OWNER
from whowrote.train.config import load_config
from whowrote.train.runner import prepare
from whowrote.types import WhowroteError


def _user_folder(tmp_path: Path, files: dict[str, bytes]) -> Path:
    d = tmp_path / "userdir"
    d.mkdir()
    for name, data in files.items():
        (d / name).write_bytes(data)
    return d


def _snapshot(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in d.iterdir()}


def test_tiny_model_refuses_a_users_folder(tmp_path, cli_fails):
    files = {"config.json": b'{"mine": true}\n', "notes.txt": b"keep me\n"}
    d = _user_folder(tmp_path, files)
    assert "not empty" in cli_fails(["train", "tiny-model", str(d)])
    assert _snapshot(d) == files


def test_tiny_model_rebuilds_its_own_folder(tmp_path):
    from whowrote.train.tiny import build_tiny_model

    out = build_tiny_model(tmp_path / "tiny")
    assert build_tiny_model(out) == out  # its own (marked) folder
    (out / OWNER).unlink()  # a tiny model saved before folders were marked
    assert build_tiny_model(out) == out


def test_export_model_refuses_a_users_folder(tmp_path, cli_fails):
    files = {"model.safetensors": b"my weights", "config.json": b"{}\n"}
    d = _user_folder(tmp_path, files)
    assert "not empty" in cli_fails(["train", "export-model", "tiny", str(d)])
    assert _snapshot(d) == files


def test_export_model_rewrites_its_own_folder(tiny_model, tmp_path):
    out = tmp_path / "exported"
    for _ in range(2):
        with pytest.raises(SystemExit) as e:
            main(["train", "export-model", str(tiny_model), str(out), "--dtype", "float32"])
        assert e.value.code in (0, None)
    assert (out / "config.json").is_file()


def test_training_refuses_a_users_output_dir(tmp_path, cli_fails):
    files = {"config.grpo.toml": b"[grpo]\nlr = 1e-6\n", "metrics.jsonl": b'{"loss": 1.0}\n'}
    d = _user_folder(tmp_path, files)
    assert "not empty" in cli_fails(["train", "grpo", "--set", f'run.output_dir="{d}"'])
    assert _snapshot(d) == files


def test_training_still_resumes_its_own_run(tmp_path):
    legacy = _user_folder(tmp_path, {"metrics.jsonl": json.dumps({"stage": "grpo", "kind": "start", "step": 0})
                                     .encode() + b"\n"})  # a run folder written before folders were marked
    for _ in range(2):  # past the guard: the run then stops on its (deliberately empty) model setting
        cfg = load_config(None, [f'run.output_dir="{legacy}"', 'model.name_or_path=""'])
        with pytest.raises(WhowroteError, match="model.name_or_path is empty"):
            prepare(cfg, "grpo")
    assert (legacy / "config.grpo.toml").is_file() and (legacy / OWNER).is_file()


@pytest.mark.parametrize("files", [
    {"preflight.json": b'{"accuracy": 0.5}\n'},  # `train preflight` first, then `train research` (documented order)
    {".done": b"124\n"},  # scripts/gpu/qwen_calls.sh's marker of a run whose training never started
    {f"{OWNER}.tmp-123": b""},  # another rank's mark, mid-write (accelerate launch: every rank claims)
])
def test_a_runs_own_leftovers_are_claimable(tmp_path, files):
    from whowrote.train.runner import claim_run_dir

    d = _user_folder(tmp_path, files)
    assert claim_run_dir(d) == d and json.loads((d / OWNER).read_text())["written_by"] == "whowrote train"


def test_a_stage_config_dumped_before_the_first_step_is_a_runs_own(tmp_path):
    # a run killed between prepare() and its first step leaves only config.<stage>.toml
    from whowrote.train.config import TrainConfig, dump_toml
    from whowrote.train.runner import check_run_dir

    d = _user_folder(tmp_path, {"config.sft.toml": dump_toml(TrainConfig()).encode()})
    check_run_dir(d)  # no error
    (d / "config.sft.toml").write_text("[sft]\nlr = 1e-5\n")  # a user's own file of that name
    with pytest.raises(WhowroteError, match="not empty"):
        check_run_dir(d)


def test_export_model_writes_nothing_when_the_model_does_not_load(tmp_path, cli_fails):
    out = tmp_path / "export"
    assert "not found" in cli_fails(["train", "export-model", str(tmp_path / "nope"), str(out)])
    assert not out.exists()
