"""`whowrote train package`: a Hub-style folder that from_pretrained loads, and an offline push."""

from __future__ import annotations

import json
import shutil

import pytest
import torch
import yaml
from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig
from typer.testing import CliRunner

from whowrote.cli import main
from whowrote.cli.app import app
from whowrote.train.package import package_checkpoint, push_to_hub
from whowrote.types import WhowroteError

FINAL_EVAL = {"stage": "grpo", "final": {"step": 40, "accuracy": 0.533, "macro_recall": 0.531, "k": 4,
                                         "n_examples": 240, "truncation_rate": 0.0,
                                         "per_provider": {"CLAUDE": {"recall": 0.42}}},
              "best": {"step": 30, "accuracy": 0.6, "macro_recall": 0.59}, "collapse": None}
CONFIG = """[model]
name_or_path = "HuggingFaceTB/SmolLM2-135M-Instruct"
[data]
train = "splits/train.jsonl"
val = "splits/val.jsonl"
labels = ["CLAUDE", "CHATGPT", "GEMINI"]
max_text_tokens = 2048
[grpo]
variant = "3way"
lr = 1e-06
"""


@pytest.fixture
def run_dir(tiny_model, tmp_path):
    """A finished run as the trainer leaves it: run/final (weights), config.grpo.toml, final_eval.json."""
    run = tmp_path / "run"
    shutil.copytree(tiny_model, run / "final")
    (run / "config.grpo.toml").write_text(CONFIG)
    (run / "final_eval.json").write_text(json.dumps(FINAL_EVAL))
    return run


def _card_header(readme: str) -> dict:
    assert readme.startswith("---\n")
    return yaml.safe_load(readme.split("---\n")[1])


def test_packaged_folder_loads_and_matches_the_checkpoint(run_dir, tmp_path):
    out = package_checkpoint(run_dir / "final", tmp_path / "pkg")
    files = {p.name for p in out.iterdir()}
    assert "model.safetensors" in files and not any(f.endswith(".bin") for f in files)
    assert {"config.json", "generation_config.json", "README.md", "tokenizer.json"} <= files
    src = AutoModelForCausalLM.from_pretrained(run_dir / "final")
    got = AutoModelForCausalLM.from_pretrained(out)
    for (k, a), (k2, b) in zip(src.state_dict().items(), got.state_dict().items(), strict=True):
        assert k == k2 and torch.equal(a, b)
    tok = AutoTokenizer.from_pretrained(out)
    assert tok.chat_template and tok.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False)
    gen = GenerationConfig.from_pretrained(out)
    assert gen.do_sample and gen.temperature == 0.7 and gen.top_p == 0.95 and gen.max_new_tokens == 4096
    assert gen.eos_token_id == tok.eos_token_id


def test_model_card_has_hub_header_recipe_metrics_and_eval_command(run_dir, tmp_path):
    out = package_checkpoint(run_dir / "final", tmp_path / "pkg", name="smol-grpo")
    readme = (out / "README.md").read_text()
    header = _card_header(readme)
    assert header["library_name"] == "transformers" and "grpo" in header["tags"]
    assert header["base_model"] == "HuggingFaceTB/SmolLM2-135M-Instruct"
    metrics = header["model-index"][0]["results"][0]["metrics"]
    assert metrics[0] == {"type": "accuracy", "value": 0.533, "name": "pass@1"}  # final, not best
    assert "splits/train.jsonl" in readme and "lr = 1e-06" in readme
    cmd = json.loads((out / "whowrote_package.json").read_text())["eval_command"]
    assert cmd in readme and f"--model {out}" in cmd and "--split splits/val.jsonl" in cmd
    # the eval command parses with the real CLI (only --help, nothing runs)
    args = cmd.split()[1:]
    assert CliRunner().invoke(app, [*args, "--help"]).exit_code == 0


def test_best_checkpoint_reports_best_metrics(run_dir, tmp_path):
    shutil.copytree(run_dir / "final", run_dir / "best")
    out = package_checkpoint(run_dir / "best", tmp_path / "pkg")
    assert _card_header((out / "README.md").read_text())["model-index"][0]["results"][0]["metrics"][0]["value"] == 0.6


def test_refuses_bad_input_and_keeps_existing_output(run_dir, tmp_path):
    with pytest.raises(WhowroteError, match="no config.json"):
        package_checkpoint(tmp_path, tmp_path / "pkg")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "mine.txt").write_text("keep me")
    with pytest.raises(WhowroteError, match="not empty"):
        package_checkpoint(run_dir / "final", busy, force=True)  # not an earlier package: never replaced
    assert (busy / "mine.txt").read_text() == "keep me"
    first = package_checkpoint(run_dir / "final", tmp_path / "pkg")
    package_checkpoint(run_dir / "final", first, force=True, name="again")
    assert "# again" in (first / "README.md").read_text()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".pkg.tmp")]  # no temp left


def test_push_to_hub_uploads_the_folder_offline(run_dir, tmp_path, monkeypatch):
    import huggingface_hub

    calls = []

    class FakeApi:
        def __init__(self, token=None):
            calls.append(("init", token))

        def create_repo(self, **kw):
            calls.append(("create_repo", kw))

        def upload_folder(self, **kw):
            calls.append(("upload_folder", kw))
            return type("Info", (), {"commit_url": "https://hub.example/commit/1"})()

    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)
    out = tmp_path / "pkg"
    with pytest.raises(SystemExit) as e:
        main(["train", "package", str(run_dir / "final"), "--out", str(out), "--push-to-hub", "me/smol-grpo"])
    assert e.value.code in (0, None)
    assert calls[1] == ("create_repo", {"repo_id": "me/smol-grpo", "repo_type": "model", "private": True,
                                        "exist_ok": True})
    assert calls[2][0] == "upload_folder"
    assert calls[2][1]["folder_path"] == str(out) and calls[2][1]["repo_id"] == "me/smol-grpo"
    assert calls[2][1]["repo_type"] == "model"


def test_push_errors_are_one_line(run_dir, tmp_path, monkeypatch):
    import huggingface_hub

    class Offline:
        def __init__(self, token=None):
            pass

        def create_repo(self, **kw):
            raise OSError("network unreachable\nlong details")

    monkeypatch.setattr(huggingface_hub, "HfApi", Offline)
    out = package_checkpoint(run_dir / "final", tmp_path / "pkg")
    with pytest.raises(WhowroteError, match="^push to me/x failed: network unreachable$"):
        push_to_hub(out, "me/x")
    with pytest.raises(WhowroteError, match="not a packaged model"):
        push_to_hub(run_dir / "final", "me/x")
