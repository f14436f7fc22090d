"""The refit-noise measurement (benchmarks/refit_noise.py): its summaries of the seeds and of the
null trials, and one-line bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from refit_noise import TESTS, null_passes, seed_summary  # noqa: E402


def test_the_seed_summary_gives_each_tests_spread_in_points() -> None:
    per_seed = {s: {t: {"accuracy": acc} for t in TESTS} for s, acc in (("0", 0.50), ("1", 0.42), ("2", 0.46))}
    out = seed_summary(per_seed, "accuracy")
    assert out["S"]["values"] == [50.0, 42.0, 46.0]
    assert out["S"]["mean"] == 46.0 and out["S"]["range"] == 8.0
    assert out["S"]["sd"] == pytest.approx(4.0)  # ddof 1: sqrt((16 + 16 + 0) / 2)


def test_a_null_trial_counts_only_intervals_that_exclude_zero() -> None:
    row = {t: {"diff": 0.5, "interval": [-1.0, 2.0]} for t in TESTS}
    pairs = {"1": {**row, "S": {"diff": -7.0, "interval": [-11.0, -3.0]}},
             "2": {**row, "S": {"diff": 3.0, "interval": [-0.5, 6.0]}, "D": {"diff": 2.0, "interval": [0.1, 4.0]}}}
    out = null_passes(pairs, "accuracy")
    assert out["S"] == {"pairs": 2, "interval_excludes_0": 1, "largest_diff": 7.0}
    assert out["D"]["interval_excludes_0"] == 1 and out["P"]["interval_excludes_0"] == 0
    assert out["A"]["largest_diff"] == 0.5


@pytest.mark.parametrize(("seeds", "message"), [(["1", "1"], "at least two different seeds"),
                                                (["3"], "at least two different seeds")])
def test_bad_seeds_stop_in_one_line(tmp_path: Path, trial_folders: list[str], seeds: list[str], message: str) -> None:
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "refit_noise.py"), *trial_folders, "--corpus", "c",
                           "--out", str(tmp_path / "out"), "--seeds", *seeds], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_figure_is_drawn_from_results_alone(tmp_path: Path, figure_only) -> None:
    results = {"seeds": [0, 1], "n": dict.fromkeys(TESTS, 10),
               "accuracy": {t: {"values": [50.0, 45.0]} for t in TESTS},
               "LOGO": {"per_seed": {"0": {"mean": 0.78, "blog": 0.9}, "1": {"mean": 0.76, "blog": 0.8}}}}
    (tmp_path / "results.json").write_text(json.dumps(results), encoding="utf-8")
    done = figure_only("refit_noise.py", tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "refit_noise.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    done = figure_only("refit_noise.py", tmp_path / "none")
    assert done.returncode != 0 and "no results to draw" in done.stderr and "Traceback" not in done.stderr
