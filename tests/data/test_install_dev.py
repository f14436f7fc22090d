"""``scripts/install-dev.sh --check``: what ``make test`` uses to skip an install that is already done
(this checkout, every ``.[dev]`` requirement at a matching version), and to redo one that is not."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _check(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(root / "scripts" / "install-dev.sh"), "--check"], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(root / "src")})


def _copy(tmp_path: Path, pyproject: str) -> Path:
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "install-dev.sh", root / "scripts")
    (root / "src" / "whowrote").mkdir(parents=True)
    (root / "src" / "whowrote" / "__init__.py").write_text("")
    (root / "pyproject.toml").write_text(pyproject)
    return root


def test_check_passes_when_everything_is_installed(tmp_path):
    root = _copy(tmp_path, '[project]\ndependencies = ["numpy>=1.0"]\n'
                           '[project.optional-dependencies]\ndata = ["pyyaml"]\ndev = ["whowrote[data]", "pytest"]\n')
    proc = _check(root)
    assert proc.returncode == 0 and "everything is installed" in proc.stdout, proc.stderr


def test_check_names_what_is_missing_or_too_old(tmp_path):
    for dep, why in (('"no-such-package-xyz>=1"', "no-such-package-xyz is not installed"),
                     ('"pytest>=999"', "does not satisfy >=999")):
        root = _copy(tmp_path / why[:8].strip(), '[project]\ndependencies = []\n[project.optional-dependencies]\n'
                     f'data = [{dep}]\ndev = ["whowrote[data]"]\n')
        proc = _check(root)
        assert proc.returncode == 1 and why in proc.stderr, proc.stderr


def test_check_fails_when_whowrote_comes_from_elsewhere(tmp_path):
    root = _copy(tmp_path, '[project]\ndependencies = []\n[project.optional-dependencies]\ndev = []\n')
    proc = subprocess.run(["bash", str(root / "scripts" / "install-dev.sh"), "--check"], capture_output=True,
                          text=True, timeout=60, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
                          cwd=tmp_path)
    assert proc.returncode == 1 and "not installed from this checkout" in proc.stderr
