"""benchmarks/predict.py: a contender that reads another model (``--model DIR``), timed against the bundled one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from predict import MODEL_SEP, contender, same_output  # noqa: E402


def test_a_model_contender_runs_this_tree_with_its_model() -> None:
    assert contender("/t/src", ["predict", "x.md"]) == ("/t/src", ["predict", "x.md"])
    assert contender(f"/t/src{MODEL_SEP}/m/blend75", ["predict", "x.md", "--jsonl"]) == (
        "/t/src", ["predict", "x.md", "--jsonl", "--model", "/m/blend75"])


def test_the_model_flag_reaches_whowrote_and_a_folder_without_a_model_is_refused(tmp_path: Path) -> None:
    bundled = REPO / "src" / "whowrote" / "style" / "default_model"  # this checkout's, not the installed one's
    text = tmp_path / "one.md"
    text.write_text("A plain sentence about gardens and the weather in spring, written for a test. " * 20)
    src = str(REPO / "src")
    # the bundled model read by name and by --model: the same bytes; a model that is not there: an error
    assert same_output([src, f"{src}{MODEL_SEP}{bundled}"], ["predict", str(text), "--jsonl"], "0")
    r = subprocess.run([sys.executable, str(REPO / "benchmarks" / "predict.py"), "--model", str(tmp_path),
                        "--corpus", str(tmp_path / "c.jsonl"), "--parts", "batch"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode != 0 and "no model.json there" in r.stderr and "Traceback" not in r.stderr
    out = subprocess.run([sys.executable, "-c", "from whowrote.cli import main; main()", "predict", str(text),
                          "--jsonl", "--model", str(bundled)], capture_output=True, text=True, timeout=120)
    assert json.loads(out.stdout)["provider"]  # not two empty outputs compared above
    # another model is read: one with three times the temperature gives other (softer) probabilities,
    # whatever the bundled model's verdict on this text
    from whowrote.style import load_model, save_model

    softer = load_model(bundled)
    softer.temperature_ *= 3
    save_model(softer, tmp_path / "softer")
    assert not same_output([src, f"{src}{MODEL_SEP}{tmp_path / 'softer'}"], ["predict", str(text), "--jsonl"], "0")
