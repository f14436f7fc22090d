"""``whowrote predict`` run as the program ends with ``os._exit`` once its output is flushed
(``cli._exit_now``: no interpreter teardown): every line still arrives through a pipe and into a
file, the exit codes are the documented ones, and a caller's ``main([...])`` returns normally."""

from __future__ import annotations

import json
import subprocess
import sys

ENTRY = "from whowrote.cli import main; main()"


def _texts(corpus, n: int) -> list[str]:
    return corpus["text"].iloc[:n].tolist()


def test_the_program_writes_everything_and_exits_with_the_documented_codes(tmp_path, corpus):
    d = tmp_path / "in"
    d.mkdir()
    for i, t in enumerate(_texts(corpus, 300)):
        (d / f"{i:03d}.md").write_text(t)
    proc = subprocess.run([sys.executable, "-c", ENTRY, "predict", str(d), "--jsonl"], capture_output=True, text=True)
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 300  # a pipe: all 300 lines
    assert all(json.loads(line)["provider"] for line in proc.stdout.splitlines())
    out = tmp_path / "out.json"
    with open(out, "w") as f:  # a file, and the streamed JSON array closed
        proc = subprocess.run([sys.executable, "-c", ENTRY, "predict", str(d), "--json"], stdout=f, text=True)
    assert proc.returncode == 0 and len(json.loads(out.read_text())) == 300
    (d / "empty.md").write_text("")
    proc = subprocess.run([sys.executable, "-c", ENTRY, "predict", str(d / "empty.md"), str(d / "000.md")],
                          capture_output=True, text=True)
    # the human table, whole: its box closed, then at most the legend of the [fragile] mark
    box, _, after = proc.stdout.rstrip().rpartition("┘")
    assert proc.returncode == 0 and box.startswith("┏") and (after == "" or after.lstrip().startswith("[fragile]:"))
    proc = subprocess.run([sys.executable, "-c", ENTRY, "predict", str(tmp_path / "missing.md"), "--jsonl"],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "no such file" in proc.stdout


def test_a_callers_main_returns_and_exits_normally(tmp_path, corpus):
    (tmp_path / "a.md").write_text(_texts(corpus, 1)[0])
    code = ("import sys; from whowrote.cli import main\n"
            "try:\n    main(['predict', sys.argv[1], '--jsonl'])\nexcept SystemExit as e:\n"
            "    print('exit', e.code, file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "a.md")], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr.strip() == "exit 0" and json.loads(proc.stdout)["provider"]
