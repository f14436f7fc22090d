"""``whowrote predict``'s human table (``whowrote.cli.table``): drawn without rich, aligned at any
width, every tell and warning in it, colour only on a terminal, no control characters out."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from whowrote.cli import table

ENTRY = "from whowrote.cli import main; main()"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(scope="module")
def texts(corpus) -> list[str]:
    out = []
    for genre in ("blog", "debate", "fiction", "longform"):
        out += corpus[corpus["genre"] == genre]["text"].iloc[:2].tolist()
    return out


@pytest.fixture(scope="module")
def records(texts, tmp_path_factory) -> list[dict]:
    d = tmp_path_factory.mktemp("table")
    for i, t in enumerate(texts):
        (d / f"t{i}.md").write_text(t)
    (d / "t9.md").write_text("Too short.")
    (d / "t9.pdf").write_bytes(b"%PDF-1.7 broken")
    proc = subprocess.run([sys.executable, "-c", ENTRY, "predict", str(d), "--json", "--explain", "3"],
                          capture_output=True, text=True)
    assert proc.returncode == 3, proc.stderr  # (the broken PDF)
    return json.loads(proc.stdout)


def _cells(out: str, col: int) -> str:
    """Column ``col`` over all body lines without its spaces (wrapped and folded words joined)."""
    rows = [line.split("│")[1:-1] for line in out.splitlines() if line.startswith("│")]
    return "".join("".join(r[col].split()) for r in rows)


@pytest.mark.parametrize("width", [60, 80, 132, 220])
def test_the_table_is_aligned_and_holds_every_tell_and_warning(records, width, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    buf = io.StringIO()
    table.print_records(records, 3, buf)
    out = buf.getvalue()
    lines = out.splitlines()
    end = max(i for i, line in enumerate(lines) if line.startswith("└"))
    box, legend = lines[:end + 1], lines[end + 1:]
    assert len({len(line) for line in box}) == 1 and len(box[0]) <= width  # a box, within the width
    assert "\x1b" not in out  # not a terminal: no colour
    why = _cells(out, 4)
    marked = 0
    for r in records:
        for t in r["tells"][:3]:  # a fragile tell carries the mark, unless its sentence says so already
            mark = t["fragile"] and "not used for the verdict" not in t["sentence"]
            assert "".join((t["sentence"] + (" [fragile]" if mark else "")).split()) in why
            marked += mark
        for w in r["warnings"]:
            assert "".join(f"! {w}".split()) in why
    assert marked > 0  # the corpus blog posts' markup makes some tells fragile
    # the mark is explained once, under the table, within the width
    assert legend and legend[0].startswith("[fragile]:") and all(len(x) <= max(width, 40) for x in legend)
    assert _cells(out, 1) == "".join("notread" if r.get("error") else f"uncertain(leans{r['provider']})"
                                     if r["uncertain"] else r["provider"] for r in records)
    assert records[-1]["error"] and _cells(out, 2).endswith("–") and _cells(out, 3).endswith("–")  # (the broken PDF: no p, no words)
    assert any(r["uncertain"] for r in records) and not all(r["uncertain"] for r in records)
    assert sum(line.startswith("├") for line in lines) == len(records) - 1  # a rule between rows with tells


def test_colour_only_on_a_terminal_and_not_with_no_color(records, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    tty = _Tty()
    table.print_records(records, 0, tty)
    coloured = tty.getvalue()
    assert "\x1b[38;2;" in coloured and "notes" in coloured.splitlines()[1]
    monkeypatch.setenv("NO_COLOR", "1")
    plain = _Tty()
    table.print_records(records, 0, plain)
    assert "\x1b" not in plain.getvalue()
    # the same table once the colour codes are taken out
    import re

    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain.getvalue()


def test_control_characters_and_wide_text_stay_inside_their_cells():
    rec = {"path": "evil\x1b[31m\nname\u65e5\u672c\u8a9e\u65e5\u672c\u8a9e.md", "provider": "CLAUDE", "uncertain": True,
           "probabilities": {"CLAUDE": 0.4}, "n_words": 3, "tells": [],
           "warnings": ["\u65e5\u672c" * 30 + " wide words"]}
    out = table.render(["text", "provider", "p", "words", "notes"],
                       [[table._clean(rec["path"]), "CLAUDE", "0.40", "3", "! " + rec["warnings"][0]]], total=50)
    assert "\x1b" not in out and "\n" not in out.rstrip("\n").split("\n")[3][:5]
    assert len({table._width(line) for line in out.splitlines()}) == 1


def test_the_table_path_does_not_import_rich(tmp_path, texts):
    (tmp_path / "a.md").write_text(texts[0])
    code = ("import sys; from whowrote.cli import main\n"
            "try:\n    main(['predict', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'rich', 'typer', 'click'}), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "a.md")], capture_output=True, text=True)
    assert proc.returncode == 0 and "provider" in proc.stdout and "typical of" in proc.stdout
    assert proc.stderr.strip() == "[]"
