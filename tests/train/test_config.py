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


def test_invalid_toml_and_non_table_section_are_whowrote_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("x = [\n")
    with pytest.raises(WhowroteError, match="invalid TOML"):
        load_config(bad)
    flat = tmp_path / "flat.toml"
    flat.write_text("run = 1\n")
    with pytest.raises(WhowroteError, match=r"^\[run\] must be a table of settings, got run = 1$"):
        load_config(flat, ["run.seed=3"])
    (tmp_path / "extra.toml").write_text("[bogus]\nx = 1\n")
    with pytest.raises(WhowroteError, match=r"unknown config section \[bogus\]"):
        load_config(tmp_path / "extra.toml")


def test_read_rows_bad_json_is_a_whowrote_error(tmp_path):
    from whowrote.train.data import read_rows

    p = tmp_path / "rows.jsonl"
    p.write_text('{"text": "a", "provider": "CLAUDE"}\n{oops\n')
    with pytest.raises(WhowroteError, match=r"rows.jsonl:2: invalid JSON \("):
        read_rows(p)


def test_write_rows_replaces_a_file_whole_or_not_at_all(tmp_path):
    from whowrote.train.data import read_rows, write_rows

    p = tmp_path / "rows.jsonl.gz"
    first = [{"id": "a", "text": "one", "provider": "CLAUDE", "genre": "blog"}]
    assert write_rows(p, first) == p
    assert read_rows(p) == [{**first[0], "subgenre": None}]

    def failing():  # a row source that breaks half-way (a bad row, a full disk, Ctrl-C)
        yield {"id": "b", "text": "two", "provider": "GEMINI"}
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_rows(p, failing())
    assert read_rows(p) == [{**first[0], "subgenre": None}]  # the old file, untouched
    assert sorted(x.name for x in tmp_path.iterdir()) == ["rows.jsonl.gz"]  # no temporary left


def test_in_loop_eval_reason_words_none_without_a_closed_block(monkeypatch):
    # Like the eval harness's traces: no closed <reason_why> is "no reasoning" (None), not 0 words,
    # so the reason_words median only covers completions that reasoned.
    import whowrote.train.evaluation as ev
    from whowrote.llm.backends import Sample
    from whowrote.train.config import InLoopEval

    class Fake:
        tokens_per_s, gen_seconds = 0.0, 0.0

        def __init__(self, *a, **k):
            pass

        def count_tokens(self, text):
            return len(text.split())

        def prompt_tokens(self, messages):
            return sum(len(m["content"].split()) for m in messages)

        def generate(self, prompts, params):
            return [[Sample("<answer>CLAUDE</answer>", "stop", 1, 3),
                     Sample("<reason_why>Warm sincere voice here.</reason_why><answer>CLAUDE</answer>", "stop", 1, 9)]
                    for _ in prompts]

    monkeypatch.setattr(ev, "TransformersBackend", Fake)
    hcfg = ev.harness_config(InLoopEval(k=2), ["CLAUDE", "CHATGPT", "GEMINI"])
    summary, traces = ev.evaluate_policy(None, None, [{"text": "t", "provider": "CLAUDE"}], hcfg)
    assert [t["reason_words"] for t in traces] == [None, 4]
    assert summary["reason_words"]["median"] == 4


def test_bad_split_fails_before_the_model_load(tmp_path):
    from whowrote.train.runner import prepare

    cfg = load_config(None, [f'run.output_dir="{tmp_path}"', f'data.train="{tmp_path}/missing.jsonl"',
                             f'model.name_or_path="{tmp_path}/no-model"'])
    with pytest.raises(WhowroteError, match="data file not found"):
        prepare(cfg, "sft")


@pytest.mark.parametrize("override, match", [
    ("sft.lr=0", r"sft.lr must be a finite number > 0, got 0.0"),
    ("sft.lr=-1e-5", "sft.lr must be"),
    ("sft.lr=nan", "sft.lr must be"),
    ("sft.lr=inf", "sft.lr must be"),
    ("sft.epochs=0.5", r"sft.epochs must be a finite number >= 1"),
    ("sft.batch_size=0", r"sft.batch_size must be at least 1, got 0"),
    ("sft.max_steps=0", r"sft.max_steps must be -1"),
    ("grpo.lr=nan", "grpo.lr must be"),
    ("grpo.num_generations=1", "grpo.num_generations must be at least 2"),
    ("eval.k=0", "eval.k must be at least 1"),
    ("run.profile_steps=-1", r"run.profile_steps must be >= 0 \(0 = off\)"),
])
def test_out_of_range_values_are_one_line_errors_at_load(override, match):
    with pytest.raises(WhowroteError, match=match) as e:
        load_config(None, [override])
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("args", [["-c", "/nonexistent/c.toml"], ["--set", "sft.lr=nan"], ["--set", "sft.batch_size=0"]])
def test_bad_train_config_fails_before_torch_or_trl_is_imported(args):
    import subprocess
    import sys

    code = ("import sys\nfrom whowrote.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n"
            "    print(e.code, 'torch' in sys.modules, 'trl' in sys.modules, 'transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, "train", "sft", *args], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.split() == ["1", "False", "False", "False"], out.stdout + out.stderr
    assert out.stderr.startswith("whowrote: error: ") and out.stderr.count("\n") == 1


def test_shipped_configs_match_the_documented_sequence():
    import re

    docs = (Path(__file__).resolve().parents[2] / "docs" / "train.md").read_text()
    block = docs.split("## From nothing to a trained model", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    split_out = re.search(r"whowrote data split .* --out (\S+)", block).group(1)
    model_out = re.search(r"export-model .*?\n\s*(\S+) --dtype", block, re.DOTALL).group(1)
    for path in CONFIGS:
        cfg = load_config(path)  # parses and validates
        head = path.read_text().split("[", 1)[0]
        assert "# Needs" in head, f"{path.name} does not say what it needs"
        # what `whowrote data split --out DIR` writes (DIR/train.jsonl, DIR/val.jsonl), or for the GPU
        # ladder's configs what `scripts/gpu/prepare_data.py --out data` writes (the 135M ladder's split)
        ladder = path.name.startswith("qwen25_05b")
        allowed = ("data/train.jsonl.gz", "data/val.jsonl.gz") if ladder else \
            (f"{split_out}/train.jsonl", f"{split_out}/val.jsonl")
        for split in (cfg.data.train, cfg.data.val):
            if split:
                assert split in allowed, (path.name, split)
        if path.name.startswith("smollm2") and cfg.model.name_or_path:
            assert cfg.model.name_or_path == model_out, path.name
        assert cfg.grpo.score_unfinished is False
        if "[grpo]" in path.read_text():  # said where it matters
            assert "score_unfinished = false" in path.read_text(), path.name
