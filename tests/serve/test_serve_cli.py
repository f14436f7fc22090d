"""``whowrote serve``: options, the non-loopback warning, and what it hands to uvicorn."""

from __future__ import annotations

from pathlib import Path

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


def test_serve_hands_the_pool_settings_on_and_bounds_connections(fake_run):
    from whowrote.serve.pool import usable_cores

    result = CliRunner().invoke(app, ["serve", "--workers", "1", "--queue", "5"])
    assert result.exit_code == 0, result.output
    settings = fake_run["app"].state.pool.settings
    assert (settings.workers, settings.queue) == (1, 5)
    assert fake_run["limit_concurrency"] == 1 + 5 + 16  # connections beyond it get 503 unread
    fake_run.clear()
    assert CliRunner().invoke(app, ["serve"]).exit_code == 0
    assert fake_run["app"].state.pool.settings.workers == usable_cores()


@pytest.mark.parametrize(("args", "message"), [
    (["--workers", "-1"], "--workers must be a whole number from 0 to 256, not -1"),
    (["--workers", "300"], "--workers must be a whole number from 0 to 256, not 300"),
    (["--queue", "-1"], "--queue must be a whole number from 0 to 10000, not -1"),
])
def test_serve_bad_pool_settings_are_one_line_before_loading(fake_run, args, message):
    result = CliRunner().invoke(app, ["serve", *args])
    assert result.exit_code == 1 and str(result.exception) == message
    assert "model_path" not in fake_run and "app" not in fake_run


def _running(pid: int) -> bool:
    from pathlib import Path

    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _workers_of(pid: int) -> set[int]:
    """The worker processes of the server ``pid`` (multiprocessing's resource tracker aside)."""
    from pathlib import Path

    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if ppid == pid and b"spawn_main" in cmdline and _running(int(stat.parent.name)):
            found.add(int(stat.parent.name))
    return found


def _start_server(workers: int):
    import socket
    import subprocess
    import sys
    import time

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-c", "from whowrote.cli import main; main()", "serve", "--port",
                             str(port), "--workers", str(workers), "--no-access-log"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.2)
    return proc, port, _workers_of(proc.pid)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
@pytest.mark.parametrize("how", ["SIGTERM", "Ctrl-C", "SIGKILL"])
def test_serve_leaves_no_worker_behind(how):
    """SIGTERM or Ctrl-C shuts down cleanly: the lifespan ends, no traceback, workers stopped. Even a
    SIGKILLed server leaves no orphan worker holding a model and a core."""
    import os
    import signal
    import time

    import httpx

    proc, port, workers = _start_server(2)
    try:
        assert len(workers) == 2
        r = httpx.post(f"http://127.0.0.1:{port}/v1/predict", json={"text": "A short text, for once. " * 40},
                       timeout=60)
        assert r.status_code == 200
        if how == "Ctrl-C":  # a terminal sends SIGINT to the whole process group, workers included
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(getattr(signal, how))
        code = proc.wait(timeout=30)
        stderr = proc.stderr.read()
        if how != "SIGKILL":  # uvicorn shuts down gracefully, then re-raises the signal
            assert code in (-signal.SIGTERM, -signal.SIGINT, 0) and "Traceback" not in stderr, stderr
            assert "Application shutdown complete" in stderr
        deadline = time.monotonic() + 15
        while left := {p for p in workers if _running(p)}:
            assert time.monotonic() < deadline, f"workers still running after the server's {how}: {left}"
            time.sleep(0.1)
    finally:
        if proc.poll() is None:
            proc.kill()
