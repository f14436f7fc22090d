"""scripts/gpu/logo_summary.py: the held-out-genre arms side by side, read from lm_style_blend's JSONs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "gpu" / "logo_summary.py"


def _blend_json(path: Path, genre: str, lm: float, style: float, gated: float, lm_d: tuple, gate_d: tuple,
                verdicts: tuple[str, str]) -> Path:
    def d(t: tuple) -> dict:
        return {"diff": t[0], "lo": t[1], "hi": t[2], "sd": 1.0}

    scores = {"raw": {"n": 240, "lm": 0.99, "style": 1.0, "gated": 1.0},
              genre: {"n": 240, "lm": lm, "style": style, "gated": gated,
                      "lm_minus_style": d(lm_d), "gated_minus_style": d(gate_d)}}
    rule = {"held_out": genre, "lm": verdicts[0], "gated": verdicts[1], "lm_minus_style": d(lm_d),
            "gated_minus_style": d(gate_d)}
    path.write_text(json.dumps({"command": "scripts/gpu/lm_style_blend.py", "scores": scores, "rule_logo": rule}))
    return path


def test_one_row_per_held_out_genre_with_the_files_own_numbers_and_a_figure(tmp_path: Path) -> None:
    a = _blend_json(tmp_path / "a.json", "debate", 0.398, 0.637, 0.583, (-24.0, -28.6, -19.3), (-5.4, -9.1, -2.2),
                    ("worse", "worse"))
    b = _blend_json(tmp_path / "b.json", "longform", 0.697, 0.858, 0.854, (-16.15, -25.0, -7.77),
                    (-0.42, -2.32, 1.36), ("worse", "level"))
    fig = tmp_path / "fig" / "summary.png"
    r = subprocess.run([sys.executable, str(SCRIPT), str(a), str(b), "--plot", str(fig)],
                       capture_output=True, text=True, check=True)
    rows = [line for line in r.stdout.splitlines() if line.startswith("| debate") or line.startswith("| longform")]
    assert rows == ["| debate | 240 | 0.398 | 0.637 | 0.583 | -24.0 [-28.6, -19.3] | worse | -5.4 [-9.1, -2.2] | worse |",
                    "| longform | 240 | 0.697 | 0.858 | 0.854 | -16.1 [-25.0, -7.8] | worse | -0.4 [-2.3, +1.4] | level |"]
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_blend_without_a_held_out_genre_or_not_json_is_a_one_line_error(tmp_path: Path) -> None:
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"scores": {"raw": {"n": 240}}}))
    junk = tmp_path / "junk.json"
    junk.write_text("not json")
    half = tmp_path / "half.json"  # a rule but not the held-out genre's scores
    half.write_text(json.dumps({"scores": {}, "rule_logo": {"held_out": "fiction"}}))
    for f, words in ((plain, "no rule_logo"), (junk, "cannot read it as JSON"), (tmp_path / "absent.json", "cannot read"),
                     (half, "not an lm_style_blend.py output (missing 'fiction')")):
        r = subprocess.run([sys.executable, str(SCRIPT), str(f)], capture_output=True, text=True)
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert r.stderr.startswith(f"error: {f}: ") and words in r.stderr and len(r.stderr.strip().splitlines()) == 1
