"""`whowrote eval --cheatsheet FILE` on a file that is not text: one line, exit 1, before any model loads."""

from __future__ import annotations

import pytest

from whowrote.cli import main


def test_binary_cheatsheet_is_one_line(tmp_path, capsys):
    sheet = tmp_path / "bin.md"
    sheet.write_bytes(b"\x98\xff\xfe\x00" * 64)
    with pytest.raises(SystemExit) as e:
        main(["eval", "--split", str(tmp_path / "s.jsonl"), "--out", str(tmp_path / "o"),
              "--endpoint", "http://127.0.0.1:9/v1", "--cheatsheet", str(sheet)])
    err = capsys.readouterr().err
    assert e.value.code == 1 and "Traceback" not in err and err.count("\n") == 1, err
    assert "--cheatsheet" in err and "not valid UTF-8" in err
    assert not (tmp_path / "o").exists()
