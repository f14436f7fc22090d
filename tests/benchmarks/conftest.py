"""Shared set-up of the trial scripts' command-line tests (they share ``paragraph_trial.trial_args``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def trial_folders(tmp_path: Path) -> list[str]:
    """The five data-folder flags of the out-of-corpus trials, each an empty folder."""
    argv = []
    for flag in ("--arena", "--persuasion", "--mt-bench", "--stories-test", "--debates-test"):
        (tmp_path / flag[2:]).mkdir()
        argv += [flag, str(tmp_path / flag[2:])]
    return argv


@pytest.fixture
def figure_only():
    """``run(script, out)``: ``benchmarks/<script> --figure-only --out out``, its output captured."""
    def run(script: str, out: Path) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(BENCHMARKS / script), "--figure-only", "--persuasion", "x",
                               "--corpus", "x", "--out", str(out)], capture_output=True, text=True, timeout=120)
    return run
