"""scripts/gpu/bench_train_pass.py on CPU with the tiny shape: every mode timed, and the train modes
really train (the weights move) while the log-probability passes leave them as they are."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "gpu" / "bench_train_pass.py"


def _module():
    if str(SCRIPT.parent) not in sys.path:  # it imports bench_generate from its own folder, as a script does
        sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("bench_train_pass", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_cli_times_every_mode(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    res = subprocess.run([sys.executable, str(SCRIPT), "--shape", "tiny", "--prompts", "4", "--prompt-len", "16",
                          "--completion", "8", "--micro", "2", "--reps", "2", "--out", str(out)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    got = json.loads(out.read_text())
    assert set(got["median_s"]) == {"train_fp32", "train_bf16", "logps_fp32", "logps_bf16"}
    assert all(len(v) == 2 and min(v) > 0 for v in got["times_s"].values())
    assert got["batch"] == [4, 24] and got["tf32"] is False


def test_train_passes_move_the_weights_and_logp_passes_do_not() -> None:
    from transformers import LlamaConfig, LlamaForCausalLM

    mod = _module()
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**mod.SHAPES["tiny"])).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    batch = torch.randint(0, 256, (4, 24))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    mod.one_pass(model, opt, batch, 2, 8, "logps_fp32")
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    mod.one_pass(model, opt, batch, 2, 8, "train_fp32")
    assert any(not torch.equal(before[k], v) for k, v in model.state_dict().items())
    # the log-probabilities are of the last `completion` tokens, one per position, all <= 0
    lp = mod.completion_logps(model, batch, 8)
    assert lp.shape == (4, 8) and bool((lp <= 0).all())


def test_the_cli_compares_attention_implementations_on_left_padded_rows(tmp_path: Path) -> None:
    out = tmp_path / "a.json"
    res = subprocess.run([sys.executable, str(SCRIPT), "--shape", "tiny", "--prompts", "4", "--prompt-len", "16",
                          "--completion", "8", "--micro", "2", "--reps", "1", "--left-pad", "6",
                          "--modes", "train_fp32", "logps_fp32", "--attn", "sdpa", "sdpa_unpadded", "--out", str(out)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    got = json.loads(out.read_text())
    assert set(got["median_s"]) == {"train_fp32/sdpa", "train_fp32/sdpa_unpadded", "logps_fp32/sdpa",
                                    "logps_fp32/sdpa_unpadded"}
    assert got["pad_tokens"] > 0 and got["left_pad_max"] == 6
    assert set(got["max_abs_logp_diff_vs_first_attn"]) == {"sdpa_unpadded"}
    assert 0 <= got["max_abs_logp_diff_vs_first_attn"]["sdpa_unpadded"] < 0.05  # bf16 rounding, not a wrong roll


def test_bf16_weight_modes_train_a_bf16_copy(tmp_path: Path) -> None:
    from transformers import LlamaConfig, LlamaForCausalLM

    mod = _module()
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**mod.SHAPES["tiny"])).to(torch.bfloat16).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    batch = torch.randint(0, 256, (4, 24))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    mod.one_pass(model, opt, batch, 2, 8, "train_bf16w")
    assert any(not torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert all(v.dtype == torch.bfloat16 for v in model.state_dict().values())
    out = tmp_path / "w.json"
    res = subprocess.run([sys.executable, str(SCRIPT), "--shape", "tiny", "--prompts", "4", "--prompt-len", "16",
                          "--completion", "8", "--micro", "2", "--reps", "1", "--modes", "train_bf16w", "logps_bf16w",
                          "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert set(json.loads(out.read_text())["median_s"]) == {"train_bf16w", "logps_bf16w"}


def test_the_checkpointed_mode_runs_beside_the_plain_one(tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    res = subprocess.run([sys.executable, str(SCRIPT), "--shape", "tiny", "--prompts", "4", "--prompt-len", "16",
                          "--completion", "8", "--micro", "2", "--reps", "1", "--modes", "train_bf16", "train_bf16_ckpt",
                          "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    got = json.loads(out.read_text())
    assert set(got["median_s"]) == {"train_bf16", "train_bf16_ckpt"}
    assert got["checkpointed"] == ["train_bf16_ckpt"]  # switched on for that contender only
    assert all(v[0] > 0 for v in got["times_s"].values())
