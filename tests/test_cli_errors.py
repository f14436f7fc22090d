"""The entry point turns an OS refusal (a path under a file, no permission, a full disk) into one
line on stderr and exit 1, wherever in a command it happens."""

from __future__ import annotations

import pytest

import whowrote.cli as cli


@pytest.mark.parametrize("error, line", [
    (NotADirectoryError(20, "Not a directory", "/data/notes.txt/run"), "whowrote: error: /data/notes.txt/run: Not a directory"),
    (PermissionError(13, "Permission denied"), "whowrote: error: Permission denied"),
])
def test_an_os_error_is_one_line_and_exit_1(monkeypatch, capsys, error, line) -> None:
    def app(args):
        raise error

    monkeypatch.setattr(cli, "_build_app", lambda: app)
    with pytest.raises(SystemExit) as stop:
        cli.main(["study", "x.jsonl"])
    assert stop.value.code == 1
    assert capsys.readouterr().err == line + "\n"

