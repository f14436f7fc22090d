"""``whowrote serve``: the local web page and JSON API (uvicorn). Heavy imports go inside functions."""

from __future__ import annotations

import ipaddress
import socket
import sys
from pathlib import Path

import typer

from whowrote.cli.app import app
from whowrote.formats import install_hint
from whowrote.types import WhowroteError

LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def is_loopback(host: str) -> bool:
    """True when ``host`` only accepts connections from this machine."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_can_listen(host: str, port: int) -> None:
    """One-line error now (not a uvicorn traceback and exit 3 after "serving on ...") when the
    address cannot be bound: a busy port, an address of no local interface, a privileged port."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
        family, _, _, _, address = infos[0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            probe.bind(address)
    except OSError as e:
        raise WhowroteError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to bind; keep the default to stay local."),
    port: int = typer.Option(8000, min=0, max=65535, help="Port to listen on."),
    model: Path | None = typer.Option(None, "--model", exists=True, dir_okay=True, readable=True,
                                      help="A trained model (default: the bundled one)."),
    max_body_mb: float = typer.Option(2.0, min=0.001, help="Largest request body in MB (413 beyond)."),
    timeout: float = typer.Option(30.0, min=0.1, help="Per-request attribution timeout in seconds."),
    access_log: bool = typer.Option(True, help="Log request lines (method, path, status; never texts)."),
    workers: int | None = typer.Option(None, help="Worker processes for the CPU work (default: one per usable "
                                       "core; 0: a thread of the server process)."),
    queue: int | None = typer.Option(None, help="Requests that may wait for a worker (default 32); more get 503 at once."),
) -> None:
    """Serve the page (paste a text, see bars and highlighted tells) and the JSON API (/v1/predict)."""
    try:
        import uvicorn

        from whowrote.serve import create_app
        from whowrote.serve.pool import DEFAULT_QUEUE, PoolSettings, usable_cores
        from whowrote.style import load_model
    except ImportError as e:
        raise WhowroteError(f"whowrote serve needs the [serve] extra: {install_hint('serve')} ({e})") from e

    if not is_loopback(host):
        typer.secho(
            f"WARNING: binding to {host}: anyone who can reach this address can use the server. "
            "There is no authentication and no TLS; use --host 127.0.0.1 unless you mean it.",
            fg=typer.colors.YELLOW, err=True,
        )
    queue = DEFAULT_QUEUE if queue is None else queue
    settings = PoolSettings(usable_cores() if workers is None else workers, queue, timeout)  # one-line errors
    check_can_listen(host, port)
    loaded = load_model(str(model) if model is not None else None)
    api = create_app(loaded, max_body_bytes=int(max_body_mb * 1_000_000), timeout_s=timeout,
                     workers=settings.workers, queue=queue)
    shown = f"[{host}]" if ":" in host else host
    print(f"whowrote: serving on http://{shown}:{port}/ (Ctrl-C to stop)", file=sys.stderr)
    # Connections beyond the pool's bound (plus room for /healthz and the page) get 503 before
    # their bodies are read: memory stays bounded however many clients connect.
    uvicorn.run(api, host=host, port=port, access_log=access_log, log_level="info", server_header=False,
                limit_concurrency=max(1, settings.workers) + queue + 16)
