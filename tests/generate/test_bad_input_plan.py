"""Plan values of the wrong type or out of range: one line naming the key, at load (so `--dry-run`
refuses them too), not "AssertionError: unreachable" for every cell or a silently odd run."""

from __future__ import annotations

import pytest

from whowrote.cli import main
from whowrote.data.generate.plan import load_plan
from whowrote.types import WhowroteError

from .conftest import plan_text

URL = "http://127.0.0.1:9"


def _write(tmp_path, text: str):
    p = tmp_path / "plan.toml"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize(("old", "new", "want"), [
    ("[retry]", '[sampling]\ntemperature = "hot"\n[retry]', "sampling.temperature must be a number >= 0"),
    ("[retry]", "[sampling]\ntemperature = -1\n[retry]", "sampling.temperature must be a number >= 0"),
    ("[retry]", "[sampling]\ntop_p = 1.5\n[retry]", "sampling.top_p must be a number > 0 and <= 1"),
    ("[retry]", '[sampling]\nseed = "x"\n[retry]', "sampling.seed must be an integer >= 0"),
    ("max_retries = 2", "max_retries = -3", "retry.max_retries must be an integer >= 0"),
    ("max_retries = 2", "max_retries = 1.5", "retry.max_retries must be an integer >= 0"),
    ("timeout_s = 5.0", "timeout_s = 0", "retry.timeout_s must be a number > 0"),
    ("timeout_s = 5.0", 'timeout_s = "abc"', "retry.timeout_s must be a number > 0"),
    ("initial_delay_s = 0.05", "initial_delay_s = -1", "retry.initial_delay_s must be a number >= 0"),
    ('[[models]]\nname = "gpt-5.5"', '[[models]]\nname = "gpt-5.5"\nextra_output_tokens = -100',
     "model 'gpt-5.5' extra_output_tokens must be an integer >= 0"),
    ('[[models]]\nname = "gpt-5.5"', '[[models]]\nname = "gpt-5.5"\nsampling = {temperature = "hot"}',
     "model 'gpt-5.5' sampling.temperature must be a number >= 0"),
    ('[[models]]\nname = "gpt-5.5"', '[[models]]\nname = "gpt-5.5"\nprice = {input = "cheap"}',
     "model 'gpt-5.5' price.input must be a number >= 0"),
])
def test_bad_values_name_the_key(tmp_path, old, new, want):
    text = plan_text(URL)
    assert old in text
    with pytest.raises(WhowroteError) as e:
        load_plan(_write(tmp_path, text.replace(old, new, 1)))
    assert want in str(e.value) and "\n" not in str(e.value)


def test_dry_run_refuses_a_bad_temperature(tmp_path, capsys):
    plan = _write(tmp_path, plan_text(URL).replace("[retry]", '[sampling]\ntemperature = "hot"\n[retry]'))
    with pytest.raises(SystemExit) as e:
        main(["data", "generate", "--plan", str(plan), "--out", str(tmp_path / "out"), "--dry-run"])
    err = capsys.readouterr().err
    assert e.value.code == 1 and err.count("\n") == 1 and "sampling.temperature" in err


def test_zero_retries_and_delay_are_legal(tmp_path):
    plan = load_plan(_write(tmp_path, plan_text(URL, retries=0).replace("initial_delay_s = 0.05", "initial_delay_s = 0")))
    assert plan.max_retries == 0 and plan.initial_delay_s == 0.0
