"""``whowrote serve``: options, the non-loopback warning, and what it hands to uvicorn."""

from __future__ import annotations

import pytest
from serve_fakes import FakeModel
from typer.testing import CliRunner

from whowrote.cli import app
from whowrote.cli.serve import is_loopback


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.0.0.2", True), ("::1", True), ("[::1]", True), ("localhost", True),
    ("0.0.0.0", False), ("::", False), ("192.168.1.10", False), ("example.org", False),
])
def test_is_loopback(host, loopback):
    assert is_loopback(host) is loopback


@pytest.fixture
def fake_run(monkeypatch):
    """Replace uvicorn.run and the model loader; record what serve passes on."""
    import uvicorn

    import whowrote.style as style

    calls: dict = {}
    monkeypatch.setattr(uvicorn, "run", lambda api, **kw: calls.update(app=api, **kw))
    monkeypatch.setattr(style, "load_model", lambda path=None: calls.update(model_path=path) or FakeModel())
    return calls


def test_serve_defaults_to_loopback_without_warning(fake_run):
    result = CliRunner().invoke(app, ["serve"])
    assert result.exit_code == 0, result.output
    assert fake_run["host"] == "127.0.0.1" and fake_run["port"] == 8000
    assert fake_run["model_path"] is None
    assert "WARNING" not in result.output


def test_serve_warns_on_public_address(fake_run, tmp_path):
    model_file = tmp_path / "model.json"
    model_file.write_text("{}")
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--port", "9123", "--model", str(model_file),
                                      "--max-body-mb", "1", "--timeout", "5"])
    assert result.exit_code == 0, result.output
    assert "WARNING" in result.output and "0.0.0.0" in result.output
    assert fake_run["port"] == 9123 and str(fake_run["model_path"]) == str(model_file)
    from fastapi.testclient import TestClient

    with TestClient(fake_run["app"]) as c:  # the limits reached the app
        assert c.post("/v1/predict", json={"text": "word " * 300_000}).status_code == 413


def test_serve_rejects_missing_model_path(fake_run, tmp_path):
    result = CliRunner().invoke(app, ["serve", "--model", str(tmp_path / "nope.json")])
    assert result.exit_code != 0 and "app" not in fake_run


def test_serve_on_a_busy_port_is_one_line_before_serving(fake_run):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(app, ["serve", "--port", str(port)])
    assert result.exit_code == 1 and "app" not in fake_run
    assert f"cannot listen on 127.0.0.1:{port}" in str(result.exception)
    assert "serving on" not in result.output


def test_serve_on_a_busy_port_from_the_command_line():
    import socket
    import subprocess
    import sys

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = subprocess.run([sys.executable, "-c", "from whowrote.cli import main; main()", "serve", "--port",
                               str(port)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "serving on" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and "cannot listen on" in proc.stderr
