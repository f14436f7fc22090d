"""scripts/gpu/summarize.py --layout 05b on a small fixture of run folders (tests/fixtures/summary_05b).

The fixture has two sessions (a plain folder = session 4, a session5/ folder = session 5) and one case
of each way a run can end or a file can be broken: a run killed after its time limit with no final
weights, one stopped by its time limit with final weights and a class collapse, one that finished with
two skipped NaN steps and a torn last metrics line, an eval whose summary.json is cut short, a run with
only its start record, and a k = 4 eval under ``eval_k4_B/``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "gpu" / "summarize.py"
FIX = REPO / "tests" / "fixtures" / "summary_05b"
ROOTS = [str(FIX / "qwen05b"), str(FIX / "session5" / "qwen05b"), str(FIX / "session5" / "research")]
COLS = ["rung", "session", "steps", "eval", "pass@1", "pass@4", "recall", "truncation", "faithfulness",
        "in-loop", "collapse", "peak share", "skips", "ended"]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--layout", "05b", *args], capture_output=True,
                          text=True, timeout=120)


def _module(name: str = "summarize_05b"):
    """summarize_05b (or runs_05b, its folder reader) imported as a module (the script's folder on the
    path, as running it puts it)."""
    import importlib

    sys.path.insert(0, str(SCRIPT.parent))
    return importlib.import_module(name)


def _rows(out: str) -> list[dict[str, str]]:
    lines = [ln for ln in out.splitlines() if ln.startswith("| ")]
    assert lines[0].startswith("| rung | session | steps |")
    return [dict(zip(COLS, (c.strip() for c in ln.strip("|").split(" | ")), strict=True)) for ln in lines[1:]]


def test_table_rows_and_figure(tmp_path: Path) -> None:
    png = tmp_path / "fig" / "ladder_05b.png"
    res = _run(*ROOTS, "--plot", str(png))
    assert res.returncode == 0, res.stderr
    rows = _rows(res.stdout)
    # one row per run and session, in rung order, then session
    assert [(r["rung"], r["session"]) for r in rows] == [
        ("1. base (3-way prompt)", "4"),
        ("1. base (3-way prompt)", "5"),
        ("2. answer-only SFT", "5"),
        ("5. cold start (style-model tells) -> GRPO, seed 0", "4"),
        ("5. cold start (style-model tells) -> GRPO, seed 1", "4"),
        ("5. cold start (style-model tells) -> GRPO, seed 1", "5"),
        ("R1. OPCD", "5"),
    ]
    base4, base5, sft, s0, s1, s1_5, opcd = rows
    assert base4 == {**base4, "eval": "240 x 4", "pass@1": "0.141", "pass@4": "0.325", "recall": "0.37 / 0.03 / 0.02",
                     "truncation": "0.257", "faithfulness": "0.30 (0.03)", "steps": "—", "ended": "eval only"}
    # summary.json cut short: dashes, no crash
    assert base5["pass@1"] == base5["recall"] == "—" and base5["ended"] == "eval: no summary"
    # finished: two skipped NaN steps; the torn last line is left out
    assert sft == {**sft, "steps": "10", "pass@1": "—", "in-loop": "0.280 -> 0.700@10 -> 0.700@10",
                   "collapse": "none", "peak share": "—", "skips": "2 (@3, 7)", "ended": "final saved"}
    # trained past its time limit, killed before the final weights: in-loop evals only
    assert s0 == {**s0, "steps": "5", "pass@1": "—", "in-loop": "0.300 -> 0.500@4 -> no final (last 0.500@4)",
                  "skips": "0", "ended": "killed (no final), after time limit 1 min @5"}
    assert s1 == {**s1, "steps": "4", "eval": "240 x 4", "pass@1": "0.400", "pass@4": "0.800",
                  "recall": "0.50 / 0.25 / 0.45", "faithfulness": "— (0.00)",
                  "in-loop": "0.250 -> 0.450@2 -> 0.400@4", "collapse": "class@2", "peak share": "0.70@2",
                  "ended": "time limit @4 (final saved)"}
    # the k = 4 eval under eval_k4_B/ is this run's
    assert s1_5 == {**s1_5, "pass@1": "0.550", "pass@4": "0.900", "recall": "0.60 / 0.50 / 0.55",
                    "truncation": "0.010", "faithfulness": "0.40 (0.20)", "ended": "final saved"}
    # only a start record
    assert opcd == {**opcd, "steps": "—", "in-loop": "—", "collapse": "none", "ended": "killed (no final)"}
    assert "- session 4, cs_star data: 58 of 240 items accepted" in res.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    assert not list(png.parent.glob(".*tmp*"))  # written through a temporary name, then renamed


def test_session_label_from_the_command_line() -> None:
    res = _run(f"{FIX / 'qwen05b'}=4b")
    assert res.returncode == 0, res.stderr
    assert {r["session"] for r in _rows(res.stdout)} == {"4b"}


def test_missing_root_is_one_line_error(tmp_path: Path) -> None:
    res = _run(str(tmp_path / "nope"))
    assert res.returncode != 0
    assert res.stderr.strip().count("\n") == 0 and "is not a folder of results" in res.stderr
    assert "Traceback" not in res.stderr
    res = _run(str(FIX / "qwen05b"), "--plot")
    assert res.returncode != 0 and "Traceback" not in res.stderr


def test_lr_suffix_and_inner_val_runs(tmp_path: Path) -> None:
    """A session-7 arm: ``grpo_s0_lr5e-6`` names its lr, and in-loop evals on the inner val say so."""
    import json

    root = tmp_path / "session7" / "qwen05b"
    for lr, val in (("1e-6", "/x/data/inner_val.jsonl.gz"), ("5e-6", "/x/data/val.jsonl.gz")):
        d = root / "cs_tellsall" / f"grpo_s0_lr{lr}"
        d.mkdir(parents=True)
        (d / "config.grpo.toml").write_text(f'[data]\ntrain = "/x/data/inner_train.jsonl.gz"\nval = "{val}"\n')
        recs = [{"kind": "start", "stage": "grpo", "step": 0}, {"kind": "eval", "step": 0, "accuracy": 0.3},
                {"kind": "eval", "step": 10, "accuracy": 0.45}]
        (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    res = _run(str(root))
    assert res.returncode == 0, res.stderr
    rows = {r["rung"]: r for r in _rows(res.stdout)}
    a = rows["5. cold start (tells of every train text) -> GRPO, seed 0, lr 1e-6"]
    b = rows["5. cold start (tells of every train text) -> GRPO, seed 0, lr 5e-6"]
    assert a["session"] == b["session"] == "7"
    assert a["in-loop"].startswith("inner val: 0.300 -> 0.450@10")
    assert b["in-loop"].startswith("0.300 -> 0.450@10")


def test_rlsd_reward_ablation_row_and_step_figure(tmp_path: Path) -> None:
    """``rlsd_unscored`` (RLSD with the research's reward) gets its own row after RLSD, and
    ``--plot-steps`` draws accuracy, cut-off share and CLAUDE share per step from the train records."""
    import json

    root = tmp_path / "session10" / "research"
    for name, clipped in (("rlsd", 0.05), ("rlsd_unscored", 0.9)):
        d = root / name
        d.mkdir(parents=True)
        recs = [{"kind": "start", "stage": "research", "step": 0}, {"kind": "eval", "step": 0, "accuracy": 0.1}]
        recs += [{"kind": "train", "step": s, "completions/clipped_ratio": clipped, "rewards/pred_claude/mean": 0.4}
                 for s in (1, 2, 3)]
        recs += [{"kind": "eval", "step": 3, "accuracy": 0.2}]
        (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    png = tmp_path / "steps.png"
    res = _run(str(root), "--plot-steps", str(png))
    assert res.returncode == 0, res.stderr
    rows = _rows(res.stdout)
    assert [r["rung"] for r in rows] == ["R2. RLSD", "R2b. RLSD, research reward (cut-off completions scored)"]
    assert [r["steps"] for r in rows] == ["3", "3"] and {r["session"] for r in rows} == {"10"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    res = _run(str(root), "--plot-steps")
    assert res.returncode != 0 and "--plot-steps: expected one argument" in res.stderr and "Traceback" not in res.stderr


def test_the_step_figure_draws_the_research_rlsd_curves_only_when_asked(tmp_path: Path, monkeypatch) -> None:
    import json

    mod = _module()
    d = tmp_path / "session12" / "qwen05b" / "cs_tellsall" / "grpo_s1_lr5e-6"
    d.mkdir(parents=True)
    recs = [{"kind": "start", "stage": "grpo", "step": 0}, {"kind": "eval", "step": 0, "accuracy": 0.4}]
    recs += [{"kind": "train", "step": s, "completions/clipped_ratio": 0.0, "rewards/pred_claude/mean": 0.3} for s in (1, 2)]
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    labels = {}
    for flag in (True, False):
        monkeypatch.setattr(mod, "_save", lambda fig, out, flag=flag: labels.setdefault(
            flag, [ln.get_label() for ax in fig.axes for ln in ax.get_lines()]))
        mod.plot_steps([str(tmp_path / "session12" / "qwen05b")], tmp_path / "x.png", research_rlsd=flag)
    assert sum("research RLSD" in lab for lab in labels[True]) == 2
    assert not any("research RLSD" in lab for lab in labels[False]) and len(labels[False]) >= 3


def test_a_settings_variant_of_an_arm_gets_its_own_row_name() -> None:
    # QWEN_ARM_TAG (e.g. _mp05) makes grpo_s1_lr5e-6_mp05 beside grpo_s1_lr5e-6: both must be named and told apart
    m = _module("runs_05b")
    plain_key, plain = m.name_of("cs_tellsall/grpo_s1_lr5e-6")
    tag_key, tagged = m.name_of("cs_tellsall/grpo_s1_lr5e-6_mp05")
    assert plain == "5. cold start (tells of every train text) -> GRPO, seed 1, lr 5e-6"
    assert tagged == plain + " (mp05)"
    assert plain_key < tag_key
    assert m.name_of("cs_tells/grpo_s0")[1] == "5. cold start (style-model tells) -> GRPO, seed 0"


def test_a_runs_eval_is_its_val_eval_not_an_edited_split(tmp_path: Path) -> None:
    # Session 20: QWEN_SPLITS scores the answer-only SFT on edited copies and the chat genre too
    # (eval_k4_chat/, eval_k4_val.first_800_chars/), which sort after eval_k4/; the row must show val.
    import json

    m = _module("runs_05b")
    run = tmp_path / "qwen05b" / "sft_answer_only_e2"
    run.mkdir(parents=True)
    (run / "metrics.jsonl").write_text("")
    for name, split, acc in (("eval_k4", "/root/stage/x/data/val.jsonl", 0.999),
                             ("eval_k4_chat", "/root/splits/chat.jsonl", 0.325),
                             ("eval_k4_val.first_800_chars", "/root/splits/val.first_800_chars.jsonl", 0.69)):
        (run / name).mkdir()
        (run / name / "run.json").write_text(json.dumps({"split": split}))
        (run / name / "summary.json").write_text(json.dumps({"accuracy": acc}))
    (found,) = m.discover(tmp_path / "qwen05b", "20")
    assert found.summary["accuracy"] == 0.999
    # an eval without run.json (older sessions) still counts as the val's
    (run / "eval_k4" / "run.json").unlink()
    (found,) = m.discover(tmp_path / "qwen05b", "20")
    assert found.summary["accuracy"] == 0.999


def test_faithfulness_cell_shows_the_other_text_baseline_when_the_eval_has_it():
    m = _module()
    s = {"k": 4, "n_examples": 240, "pass@1": 0.8, "pass@4": 0.9, "faithfulness": 0.23,
         "faithfulness_coverage": 1.0}
    assert m.eval_cells(s)[-1] == "0.23 (1.00)"  # an eval from before the baseline existed
    assert m.eval_cells({**s, "faithfulness_other_text": 0.235})[-1] == "0.23 (1.00) vs 0.23"
    with_claims = {**s, "faithfulness_other_text": 0.235, "claims_per_trace": 1.04}
    assert m.eval_cells(with_claims)[-1] == "0.23 (1.00) vs 0.23, 1.0 claims"


def test_seed_lines_say_whether_two_seeds_sampled_the_same_first_step(tmp_path: Path) -> None:
    import json

    root = tmp_path / "session24" / "qwen05b"
    firsts = {"grpo_s2_lr5e-6_mp05": 0.696, "grpo_s3_lr5e-6_mp05": 0.696,
              "grpo_s4_lr5e-6_fix": 0.70, "grpo_s5_lr5e-6_fix": 0.66}
    for run, reward in firsts.items():
        d = root / "cs_tellsfirst_ao" / run
        d.mkdir(parents=True)
        recs = [{"kind": "start", "stage": "grpo", "step": 0}, {"kind": "eval", "step": 0, "accuracy": 0.5},
                {"kind": "train", "step": 1, "reward": reward, "completions/mean_length": 201.7}]
        (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    # a pair where one seed collapsed: its gap is a failure, not seed noise
    for run, reward, last, collapsed in (("grpo_s6_lr5e-6_col", 0.69, 10, True), ("grpo_s7_lr5e-6_col", 0.62, 17, False)):
        d = root / "cs_tellsfirst_ao" / run
        d.mkdir(parents=True)
        recs = [{"kind": "start", "stage": "grpo", "step": 0}, {"kind": "eval", "step": 0, "accuracy": 0.6},
                {"kind": "train", "step": 1, "reward": reward, "completions/mean_length": 202.0},
                {"kind": "train", "step": last, "reward": 0.5, "completions/mean_length": 202.0}]
        if collapsed:
            recs.append({"kind": "collapse", "step": last, "new": True, "kinds": ["truncation"]})
        (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    for run, p1 in (("grpo_s4_lr5e-6_fix", 0.824), ("grpo_s5_lr5e-6_fix", 0.891),
                    ("grpo_s6_lr5e-6_col", 0.0), ("grpo_s7_lr5e-6_col", 0.885)):
        (root / "cs_tellsfirst_ao" / run / "eval_k4_B").mkdir()
        (root / "cs_tellsfirst_ao" / run / "eval_k4_B" / "summary.json").write_text(
            json.dumps({"k": 4, "n_examples": 240, "pass@1": p1, "pass@4": 0.95}))
    res = _run(str(root))
    assert res.returncode == 0, res.stderr
    same = [line for line in res.stdout.splitlines() if "(mp05): seeds 2, 3" in line]
    assert same and "sampled the same first step (reward 0.696, mean length 201.7)" in same[0]
    differ = [line for line in res.stdout.splitlines() if "(fix): seeds 4, 5" in line]
    assert differ and "differ from the first step (reward 0.700 / 0.660)" in differ[0]
    assert differ[0].endswith("; final pass@1 0.824 / 0.891, spread 6.7 points")
    assert "final pass@1" not in same[0]  # those two runs have no eval summary
    col = [line for line in res.stdout.splitlines() if "(col): seeds 6, 7" in line]
    assert col and col[0].endswith("; final pass@1 0.000 / 0.885 after 10 / 17 steps; seed 6 collapsed, so no seed spread")


def test_the_step_figure_keeps_the_last_step_when_a_summary_record_shares_it(tmp_path: Path, monkeypatch) -> None:
    """TRL's end-of-training summary is a train record at the last step without the plotted metrics;
    it must not hide that step's values (session 26's figure stopped one step early)."""
    import json

    mod = _module()
    d = tmp_path / "session26" / "qwen05b" / "cs_tellsfirst_ao" / "grpo_s6_lr5e-6"
    d.mkdir(parents=True)
    recs = [{"kind": "start", "stage": "grpo", "step": 0}, {"kind": "eval", "step": 0, "accuracy": 0.4}]
    recs += [{"kind": "train", "step": s, "completions/clipped_ratio": 0.01 * s, "rewards/pred_claude/mean": 0.1 * s}
             for s in (1, 2, 3)]
    recs += [{"kind": "train", "step": 3, "train_runtime": 400.0}]  # the summary: same step, no metrics
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    lines = {}
    monkeypatch.setattr(mod, "_save", lambda fig, out: lines.update(
        {ax.get_title(): [list(ln.get_xdata()) for ln in ax.get_lines() if ln.get_label().startswith("s26")]
         for ax in fig.axes}))
    mod.plot_steps([str(tmp_path / "session26" / "qwen05b")], tmp_path / "x.png", research_rlsd=False)
    assert lines["train answers: CLAUDE share"] == [[1, 2, 3]]
    assert lines["train completions cut off"] == [[1, 2, 3]]


def test_resumed_run_names_its_pause_not_as_its_end(tmp_path: Path) -> None:
    """A run stopped by one call's time limit and resumed by the next keeps the first abort record;
    the run ended where the last call left it."""
    import json

    root = tmp_path / "session27" / "qwen05b"
    for seed, (first, last, abort_at_end) in {8: (16, 28, True), 9: (20, 34, False)}.items():
        d = root / "cs_tellsfirst_ao" / f"grpo_s{seed}_lr5e-6_mp05_m34"
        d.mkdir(parents=True)
        recs = [{"kind": "start", "stage": "grpo", "step": 0}]
        recs += [{"kind": "train", "step": s} for s in range(1, first + 1)]
        recs += [{"kind": "abort", "step": first, "reason": "time limit 4.74 min"}]
        recs += [{"kind": "train", "step": s} for s in range(first + 1, last + 1)]
        if abort_at_end:
            recs += [{"kind": "abort", "step": last, "reason": "time limit 3.58 min"}]
        (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
        (d / "train_result.grpo.json").write_text(json.dumps({"global_step": last}))
    res = _run(str(root))
    assert res.returncode == 0, res.stderr
    ends = {r["rung"].split("seed ")[1].split(",")[0]: (r["steps"], r["ended"]) for r in _rows(res.stdout)}
    assert ends == {"8": ("28", "time limit @28 (final saved; resumed after time limit 4.74 min @16)"),
                    "9": ("34", "final saved; resumed after time limit 4.74 min @20")}


def test_resumed_run_killed_before_its_final_is_not_read_as_finished(tmp_path: Path) -> None:
    """The first call's train_result (global_step 16) stays in the folder; the resumed call trained to
    step 25 and was killed before it wrote a new one: the run has no final weights of step 25."""
    import json

    d = tmp_path / "session27" / "qwen05b" / "cs_tellsfirst_ao" / "grpo_s8_lr5e-6_mp05_m34"
    d.mkdir(parents=True)
    recs = [{"kind": "start", "stage": "grpo", "step": 0}, *({"kind": "train", "step": s} for s in range(1, 17)),
            {"kind": "abort", "step": 16, "reason": "time limit 4.74 min"}, {"kind": "start", "stage": "grpo", "step": 16},
            *({"kind": "train", "step": s} for s in range(17, 26))]
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (d / "train_result.grpo.json").write_text(json.dumps({"global_step": 16}))
    res = _run(str(tmp_path / "session27" / "qwen05b"))
    assert res.returncode == 0, res.stderr
    (row,) = _rows(res.stdout)
    assert row["steps"] == "25"
    assert row["ended"] == "killed (no final); resumed after time limit 4.74 min @16"
