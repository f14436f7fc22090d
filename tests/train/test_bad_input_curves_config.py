"""Bad training input: `train curves` on a missing run or a bad step, and config values that used to
fail only after the model loaded (or never): one line, exit 1, checked before any recipe module loads."""

from __future__ import annotations

import json
import sys

import pytest

from whowrote.cli import main
from whowrote.train.config import config_from_dict
from whowrote.types import WhowroteError


def _fails(capsys, *args: str) -> str:
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(list(args))
    err = capsys.readouterr().err
    assert e.value.code == 1 and "Traceback" not in err and err.count("\n") == 1, err
    return err


def test_curves_of_a_missing_run_is_an_error_and_creates_nothing(tmp_path, capsys):
    run = tmp_path / "nonexistent"
    err = _fails(capsys, "train", "curves", str(run))
    assert "metrics.jsonl" in err and "no such file" in err
    assert not run.exists()


def test_curves_with_a_non_integer_step_names_the_line(tmp_path, capsys):
    rows = [{"stage": "grpo", "kind": "train", "step": 1, "loss": 1.0},
            {"stage": "grpo", "kind": "train", "step": "x", "loss": 0.5}]
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    err = _fails(capsys, "train", "curves", str(tmp_path))
    assert "metrics.jsonl:2" in err and "'step' must be an integer" in err
    assert not (tmp_path / "curves.png").exists()


@pytest.mark.parametrize(("raw", "want"), [
    ({"grpo": {"variant": "bogus"}}, "grpo.variant must be one of"),
    ({"grpo": {"variant": "pair"}}, "grpo.variant must be one of"),  # a multi-text variant: no single prompt
    ({"data": {"labels": ["MISTRAL", "CLAUDE"]}}, "data.labels must be"),
    ({"data": {"labels": ["CLAUDE"]}}, "data.labels must be"),
    ({"data": {"labels": ["CLAUDE", "CLAUDE"]}}, "data.labels must be"),
    ({"data": {"labels": [1, 2]}}, "data.labels must be"),
    ({"grpo": {"prompts_per_step": 10}}, "grpo.prompts_per_step=10 must be a multiple of 3"),
    ({"sft": {"target": "bogus"}}, "sft.target must be one of"),
])
def test_config_values_checked_on_load(raw, want):
    with pytest.raises(WhowroteError, match=want) as e:
        config_from_dict(raw)
    assert "\n" not in str(e.value)


def test_config_values_that_stay_legal():
    assert config_from_dict({"data": {"labels": ["CLAUDE", "GEMINI"]}, "grpo": {"prompts_per_step": 10}})
    assert config_from_dict({"grpo": {"prompts_per_step": 10, "balanced_batches": False}})
    assert config_from_dict({"grpo": {"variant": "answer_only"}, "sft": {"target": "rationale"}})


def test_bad_variant_fails_before_the_recipe_loads(tmp_path, capsys, monkeypatch):
    monkeypatch.delitem(sys.modules, "whowrote.train.grpo", raising=False)
    err = _fails(capsys, "train", "grpo", "--set", 'grpo.variant="bogus"', "--set", f'run.output_dir="{tmp_path}/r"')
    assert "grpo.variant" in err and "whowrote.train.grpo" not in sys.modules
