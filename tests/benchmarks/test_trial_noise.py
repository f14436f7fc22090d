"""Paired topic bootstrap of the trials' rule quantities (benchmarks/trial_noise.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
from trial_noise import noise, topic_weights  # noqa: E402


def _rows(n_topics: int = 20, per_topic: int = 10, gain_topics: tuple[int, ...] = ()) -> dict[str, np.ndarray]:
    """current right on every other text; ``better`` also right on the texts of ``gain_topics``
    (raw and edited alike, so its drops do not change), and worse by 10 texts under ``first_800``."""
    topics = np.repeat([f"t{i}" for i in range(n_topics)], per_topic)
    cur = np.arange(len(topics)) % 2 == 0
    better = cur | np.isin(topics, [f"t{i}" for i in gain_topics])
    worse_800 = better.copy()
    worse_800[np.flatnonzero(better)[:10]] = False
    rows = {"inner_topic": topics,
            "inner|current|raw": cur, "inner|current|first_800": cur,
            "inner|better|raw": better, "inner|better|first_800": worse_800,
            "logo_topic|chat": topics, "logo|chat|current": cur, "logo|chat|better": better,
            "logo_topic|debate": topics, "logo|debate|current": cur, "logo|debate|better": cur}
    return rows


def test_differences_are_measured_exactly() -> None:
    res = noise(_rows(gain_topics=(0, 5, 10, 15)), n_boot=500)
    b = res["variants"]["better"]
    # 4 topics x 5 wrong texts turned right = 20 of 200 texts
    assert b["raw"]["diff"] == 10.0 and 0 < b["raw"]["lo"] < 10.0 < b["raw"]["hi"] <= 20
    assert b["drop first_800"]["diff"] == 5.0  # 10 more of 200 lost under the edit
    assert b["LOGO 3-way chat"]["diff"] == 10.0 and b["LOGO 3-way debate"]["diff"] == 0.0
    assert b["LOGO 3-way debate"]["lo"] == b["LOGO 3-way debate"]["hi"] == 0.0  # same rows: no noise
    assert b["LOGO 3-way mean"]["diff"] == 5.0
    assert res["n_inner_topics"] == 20 and res["n_logo"] == {"chat": 200, "debate": 200}


def test_a_gain_in_few_topics_is_noisier_than_one_spread_over_topics() -> None:
    """The same 20 of 400 texts turned right: one in each of 20 topics, or all ten of 2 topics.
    Resampling whole topics makes the clustered gain far less certain."""
    topics = np.repeat([f"t{i}" for i in range(40)], 10)
    wrong = np.zeros(len(topics), bool)
    spread = wrong.copy()
    spread[np.arange(0, 400, 20)] = True
    clustered = np.isin(topics, ["t0", "t1"])

    def sd(better: np.ndarray) -> tuple[float, float]:
        rows = {"inner_topic": topics, "inner|current|raw": wrong, "inner|better|raw": better}
        r = noise(rows, n_boot=1000)["variants"]["better"]["raw"]
        return r["diff"], r["sd"]

    (d_spread, sd_spread), (d_clustered, sd_clustered) = sd(spread), sd(clustered)
    assert d_spread == d_clustered == 5.0
    assert sd_clustered > 2 * sd_spread


def test_topic_weights_draw_whole_topics() -> None:
    topics = np.array(["a", "a", "a", "b", "c", "c"])
    w = topic_weights(topics, 200, np.random.default_rng(1))
    assert w.shape == (200, 6)
    assert (w[:, 0] == w[:, 1]).all() and (w[:, 1] == w[:, 2]).all() and (w[:, 4] == w[:, 5]).all()
    assert set(w[:, [0, 3, 4]].sum(axis=1)) == {3.0}  # three topics drawn each time


def test_cli_writes_json_and_rejects_a_bad_file(tmp_path: Path) -> None:
    f = tmp_path / "rows.npz"
    np.savez_compressed(f, **_rows(gain_topics=(1, 2)))
    out = tmp_path / "noise.json"
    res = subprocess.run([sys.executable, str(BENCH / "trial_noise.py"), str(f), "--n-boot", "200",
                          "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert json.loads(out.read_text())["variants"]["better"]["raw"]["diff"] == 5.0
    bad = tmp_path / "bad.npz"
    bad.write_text("not an npz")
    res = subprocess.run([sys.executable, str(BENCH / "trial_noise.py"), str(bad)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "not a readable per-text file" in res.stderr and "Traceback" not in res.stderr
