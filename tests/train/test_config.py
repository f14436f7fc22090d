from pathlib import Path

import pytest

from whowrote.train.config import TrainConfig, config_from_dict, dump_toml, load_config, parse_override
from whowrote.types import WhowroteError

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs").glob("*.toml"))


def test_defaults_are_the_control_recipe():
    cfg = TrainConfig()
    assert cfg.grpo.loss_type == "dr_grpo" and cfg.grpo.scale_rewards == "none" and cfg.grpo.beta == 0.0
    assert cfg.sft.target == "answer_only"


def test_toml_and_overrides(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text('[sft]\nlr = 1\nbatch_size = 4\n[data]\nlabels = ["CLAUDE", "CHATGPT"]\n')
    cfg = load_config(p, ["sft.epochs=3", "model.name_or_path=runs/x", 'eval.variant="3way"'])
    assert cfg.sft.lr == 1.0 and isinstance(cfg.sft.lr, float)
    assert cfg.sft.batch_size == 4 and cfg.sft.epochs == 3.0
    assert cfg.data.labels == ["CLAUDE", "CHATGPT"]
    assert cfg.model.name_or_path == "runs/x"
    # the resolved config round-trips through its TOML dump
    again = tmp_path / "again.toml"
    again.write_text(dump_toml(cfg))
    assert load_config(again) == cfg


@pytest.mark.parametrize("raw", [{"sft": {"nope": 1}}, {"nosection": {}}, {"sft": {"batch_size": "x"}}])
def test_bad_config_is_a_user_error(raw):
    with pytest.raises(WhowroteError):
        config_from_dict(raw)


def test_override_syntax():
    assert parse_override("grpo.lr=2e-6") == ("grpo", "lr", 2e-6)
    with pytest.raises(WhowroteError):
        parse_override("lr=2")


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_shipped_configs_load(path):
    load_config(path)
