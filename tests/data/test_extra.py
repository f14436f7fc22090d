"""The light install: ``predict`` runs on numpy/typer/rich alone; every command that needs the
``[data]`` extra (data, train-probe, study) says so in one line and exits 1 when it is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# A fresh interpreter in which the [data] extra's modules cannot be imported, as in a light install.
BLOCKED = """
import sys
BLOCK = {"pandas", "pyarrow", "sklearn", "scipy", "yaml", "datasets"}
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCK:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Block())
from whowrote.cli import main
main(sys.argv[1:])
"""


def _light(args: list[str], tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCKED, *args], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO / "src")})


@pytest.mark.parametrize("args", [
    ["data", "audit", "{corpus}"],
    ["data", "split", "{corpus}", "--out", "o"],
    ["data", "convert", "{corpus}", "--out", "c.jsonl"],
    ["study", "{corpus}", "--out", "s", "--no-progress"],
    ["train-probe", "--corpus", "{corpus}", "--out", "m"],
])
def test_commands_needing_the_data_extra_say_so_in_one_line(corpus_files, tmp_path, args):
    proc = _light([a.replace("{corpus}", str(corpus_files["blogs"])) for a in args], tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "whowrote: error: this command needs the data extra (pandas, pyarrow, scikit-learn, scipy, PyYAML "
        "not installed): pip install '.[data]' in the whowrote checkout"]
    assert not [p for p in tmp_path.iterdir()]  # nothing written


def test_predict_runs_without_the_data_extra(tmp_path):
    proc = _light(["predict", str(REPO / "examples" / "post.md"), "--json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert '"provider"' in proc.stdout


def test_the_missing_extra_error_is_an_import_error_too():
    from whowrote.data.extra import MissingExtraError
    from whowrote.types import WhowroteError

    assert issubclass(MissingExtraError, ImportError) and issubclass(MissingExtraError, WhowroteError)
