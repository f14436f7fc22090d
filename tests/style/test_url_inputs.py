"""Web addresses given to `whowrote predict` (whowrote.cli.url_inputs), against a local HTTP server
(the standard library's, on 127.0.0.1; nothing leaves the machine): a page read as the Markdown it
shows, a PDF read as a document, plain text as it is, a redirect followed, a declared charset,
and an HTTP error, a refused connection, a server that sends too slowly and a page over the cap
each one line; the address is the result's path."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from whowrote.cli import app, url_inputs
from whowrote.style.edits import markdown_page

runner = CliRunner()
ESSAY = ("## Why gardens matter\n\nA garden is **slow** work, and that is the point of it. You plant in spring and "
         "wait.\n\n- beans by the fence\n- herbs by the door\n\nThe rest is patience, water and a little luck with the weather.")
PDF = Path(__file__).resolve().parents[1] / "fixtures" / "documents" / "chromium-156.pdf"


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # (quiet)
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        routes = {"/post.html": ("text/html; charset=utf-8", markdown_page(ESSAY).encode()),
                  "/post.md": ("text/markdown", ESSAY.encode()),
                  "/latin.txt": ("text/plain; charset=iso-8859-1", "Caf\u00e9 cr\u00e8me, s'il vous pla\u00eet.".encode("latin-1")),
                  "/doc.pdf": ("application/pdf", PDF.read_bytes())}
        if self.path == "/old":
            self.send_response(301)
            self.send_header("Location", "/post.html")
            self.end_headers()
        elif self.path == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            for _ in range(40):
                self.wfile.write(b"word ")
                self.wfile.flush()
                time.sleep(0.1)
        elif self.path == "/big":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"word " * (url_inputs.MAX_BYTES // 5 + 1000))
        elif self.path in routes:
            kind, body = routes[self.path]
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_error(404, "Not Found")


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def _predict(*args: str) -> list[dict]:
    return [json.loads(x) for x in runner.invoke(app, ["predict", *args, "--jsonl"]).stdout.splitlines()]


def test_pages_documents_and_text_are_read_as_their_files_are(server, tmp_path):
    (tmp_path / "post.md").write_text(ESSAY)
    local, page, moved, markdown = _predict(str(tmp_path / "post.md"), f"{server}/post.html", f"{server}/old", f"{server}/post.md")
    assert (page["path"], moved["path"]) == (f"{server}/post.html", f"{server}/old")
    assert page["probabilities"] == moved["probabilities"] == markdown["probabilities"] == local["probabilities"]
    assert page["warnings"][0].startswith("input looks like HTML")
    (pdf,) = _predict(f"{server}/doc.pdf")
    (as_file,) = _predict(str(PDF))
    assert pdf["probabilities"] == as_file["probabilities"] and pdf["warnings"][0].startswith("a PDF:")
    assert url_inputs.read_url(f"{server}/latin.txt").text == "Caf\u00e9 cr\u00e8me, s'il vous pla\u00eet."


def test_failures_are_one_line_and_the_fetch_is_bounded(server, monkeypatch):
    assert url_inputs.read_url(f"{server}/gone").error == "cannot fetch: the server answered 404 Not Found"
    refused = url_inputs.read_url("http://127.0.0.1:9/")  # (the discard port: nothing listens)
    assert refused.error.startswith("cannot fetch:") and "\n" not in refused.error
    monkeypatch.setattr(url_inputs, "TIMEOUT_S", 1.0)
    t0 = time.perf_counter()
    slow = url_inputs.read_url(f"{server}/slow")
    assert slow.error == "cannot fetch: the server took over 1 s to send the page" and time.perf_counter() - t0 < 3
    monkeypatch.setattr(url_inputs, "TIMEOUT_S", 30.0)
    big = url_inputs.read_url(f"{server}/big")
    assert len(big.text) == url_inputs.MAX_BYTES and big.warnings == ["the page is over 10 MB: only its first 10 MB were read"]
    rows = _predict(f"{server}/gone")
    assert rows[0]["error"].startswith("cannot fetch: the server answered 404")
    result = runner.invoke(app, ["predict", f"{server}/gone"])
    assert result.exit_code == 1 and "Traceback" not in result.output
