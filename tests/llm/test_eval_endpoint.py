"""The OpenAI-compatible backend against a fake chat-completions server on 127.0.0.1."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from whowrote.llm.backends import SamplingParams
from whowrote.llm.endpoint import OpenAIBackend
from whowrote.types import WhowroteError


class FakeServer:
    def __init__(self, fail_first: int = 0, status: int = 503, ignore_n: bool = False):
        self.requests: list[dict] = []
        self.ignore_n = ignore_n
        self.fail_first = fail_first
        self.status = status
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer.lock:
                    outer.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
                    fail = len(outer.requests) <= outer.fail_first
                if fail or self.path != "/v1/chat/completions":
                    self.send_response(outer.status if fail else 404)
                    self.end_headers()
                    self.wfile.write(b"busy")
                    return
                text = body["messages"][-1]["content"]
                lab = (re.search(r"Synthetic (\w+)", text) or re.search(r"(\w+)", text)).group(1).upper()
                choices = [{"index": i, "finish_reason": "length" if i == 1 else "stop",
                            "message": {"role": "assistant", "content": f"<answer>{lab}</answer>" if i != 1 else "<reason_why>x"}}
                           for i in range(1 if outer.ignore_n else body.get("n", 1))]
                payload = json.dumps({"choices": choices, "usage": {"prompt_tokens": 50, "completion_tokens": 8 * len(choices)}})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(payload.encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def server():
    s = FakeServer(fail_first=2)
    yield s
    s.close()


def test_generate_retries_and_sends_sampling(server):
    be = OpenAIBackend(server.url, "served-model", api_key="k", concurrency=2, backoff=0.01, timeout=5)
    out = be.generate([[{"role": "user", "content": "claude"}], [{"role": "user", "content": "gemini"}]],
                      SamplingParams(temperature=0.7, top_p=0.9, max_new_tokens=64, k=3, seed=5))
    assert [s.text for s in out[0]] == ["<answer>CLAUDE</answer>", "<reason_why>x", "<answer>CLAUDE</answer>"]
    assert [s.finish_reason for s in out[1]] == ["stop", "length", "stop"]
    ok = [r for r in server.requests[2:]]
    assert len(server.requests) == 4 and len(ok) == 2  # two 503s were retried
    r = ok[0]
    assert r["n"] == 3 and r["max_tokens"] == 64 and r["top_p"] == 0.9 and r["model"] == "served-model"
    assert r["chat_template_kwargs"] == {"enable_thinking": False} and r["auth"] == "Bearer k"
    assert {q["seed"] for q in ok} == {5, 6}
    assert sum(s.completion_tokens for s in out[0]) == 24


def test_gives_up_after_retries_and_on_client_errors():
    s = FakeServer(fail_first=100)
    try:
        be = OpenAIBackend(s.url, "m", retries=2, backoff=0.001, timeout=5)
        with pytest.raises(WhowroteError, match="after 3 attempts"):
            be.generate([[{"role": "user", "content": "x"}]], SamplingParams(k=1))
        assert len(s.requests) == 3
    finally:
        s.close()
    bad = FakeServer(fail_first=100, status=400)
    try:
        be = OpenAIBackend(bad.url, "m", retries=5, backoff=0.001, timeout=5)
        with pytest.raises(WhowroteError, match="refused"):
            be.generate([[{"role": "user", "content": "x"}]], SamplingParams(k=1))
        assert len(bad.requests) == 1  # a 400 is not retried
    finally:
        bad.close()


def test_cli_eval_against_endpoint(tmp_path, server, split_writer):
    from typer.testing import CliRunner

    from whowrote.cli import app  # noqa: F401  (registers every command)
    from whowrote.cli.app import app as typer_app

    split = split_writer(tmp_path / "val.jsonl")
    out = tmp_path / "o"
    res = CliRunner().invoke(typer_app, ["eval", "--split", str(split), "--out", str(out), "--endpoint", server.url,
                                         "--api-model", "m", "--k", "2", "--concurrency", "3", "--max-new-tokens", "16"])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_samples"] == 12 and summary["accuracy"] == 0.5 and summary["truncation_rate"] == 0.5
    assert summary["pass@2"] == 1.0
    assert "pass@2" in res.output
    lines = (out / "traces.jsonl").read_text().splitlines()
    assert len(lines) == 12


def test_rejects_a_non_http_url_without_retrying():
    with pytest.raises(WhowroteError, match="not an http"):
        OpenAIBackend("127.0.0.1:9/v1", "m")


def test_server_without_n_support_gets_one_request_per_sample():
    s = FakeServer(ignore_n=True)  # a server that ignores n: always one choice
    try:
        be = OpenAIBackend(s.url, "m", backoff=0.001, timeout=5)
        out = be.generate([[{"role": "user", "content": "claude"}]], SamplingParams(k=3, seed=7))
        assert [x.text for x in out[0]] == ["<answer>CLAUDE</answer>"] * 3
        assert len(s.requests) == 3 and len({r["seed"] for r in s.requests}) == 3
        assert [r["n"] for r in s.requests] == [3, 1, 1]
    finally:
        s.close()
