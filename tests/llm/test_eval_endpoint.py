"""The OpenAI-compatible backend (the official openai SDK, base_url pointed at a fake
chat-completions server on 127.0.0.1; nothing leaves the machine)."""

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
    def __init__(self, fail_first: int = 0, status: int = 503, ignore_n: bool = False,
                 bad_body: bytes | None = None, bad_type: str = "text/html"):
        self.requests: list[dict] = []
        self.bad_body, self.bad_type = bad_body, bad_type
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
                if fail and outer.bad_body is not None:  # a 200 that is not a chat completion
                    self.send_response(200)
                    self.send_header("Content-Type", outer.bad_type)
                    self.end_headers()
                    self.wfile.write(outer.bad_body)
                    return
                if fail or self.path != "/v1/chat/completions":
                    self.send_response(outer.status if fail else 404)
                    self.send_header("retry-after-ms", "1")  # keeps the SDK's retries fast here
                    self.end_headers()
                    self.wfile.write(b"busy")
                    return
                text = body["messages"][-1]["content"]
                lab = (re.search(r"Synthetic (\w+)", text) or re.search(r"(\w+)", text)).group(1).upper()
                choices = [{"index": i, "finish_reason": "length" if i == 1 else "stop",
                            "message": {"role": "assistant", "content": f"<answer>{lab}</answer>" if i != 1 else "<reason_why>x"}}
                           for i in range(1 if outer.ignore_n else body.get("n", 1))]
                payload = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": body["model"],
                                      "choices": choices,
                                      "usage": {"prompt_tokens": 50, "completion_tokens": 8 * len(choices)}})
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
    be = OpenAIBackend(server.url, "served-model", api_key="k", concurrency=2, timeout=5)
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
        be = OpenAIBackend(s.url, "m", retries=2, timeout=5)
        with pytest.raises(WhowroteError, match="after 3 attempts"):
            be.generate([[{"role": "user", "content": "x"}]], SamplingParams(k=1))
        assert len(s.requests) == 3
    finally:
        s.close()
    bad = FakeServer(fail_first=100, status=400)
    try:
        be = OpenAIBackend(bad.url, "m", retries=5, timeout=5)
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


def test_cli_eval_with_an_everyday_edit_sends_the_edited_texts(tmp_path, server, corpus_sample):
    # --edit: every text goes through the robustness suite's edit before the prompt is built (the
    # research system's adversarial eval); real corpus texts, so the edit has Markdown to strip
    from typer.testing import CliRunner

    from whowrote.cli import app  # noqa: F401  (registers every command)
    from whowrote.cli.app import app as typer_app
    from whowrote.style.edits import strip_markdown, to_ascii

    texts = [t for t in corpus_sample([("blogs", 6)]) if "**" in t or "\n#" in t][:3]
    assert texts
    split = tmp_path / "val.jsonl"
    split.write_text("".join(json.dumps({"id": f"b{i}", "text": t, "provider": "CLAUDE", "topic": f"t{i}"}) + "\n"
                             for i, t in enumerate(texts)))
    out = tmp_path / "o"
    res = CliRunner().invoke(typer_app, ["eval", "--split", str(split), "--out", str(out), "--endpoint", server.url,
                                         "--api-model", "m", "--max-new-tokens", "16", "--edit", "strip_markdown"])
    assert res.exit_code == 0, res.output
    sent = {r["messages"][-1]["content"] for r in server.requests}  # (the server fails twice: retries repeat some)
    assert sent == {to_ascii(strip_markdown(t)) for t in texts} and all("**" not in t for t in sent)
    assert json.loads((out / "summary.json").read_text())["run"]["split"].endswith("split.strip_markdown.jsonl")
    res = CliRunner().invoke(typer_app, ["eval", "--split", str(split), "--out", str(out), "--endpoint", server.url,
                                         "--api-model", "m", "--edit", "nope"])
    assert res.exit_code == 1 and "--edit must be one of" in str(res.exception)
    (tmp_path / "bad.jsonl").write_text('{"text": "a"}\nnot json\n')
    res = CliRunner().invoke(typer_app, ["eval", "--split", str(tmp_path / "bad.jsonl"), "--out", str(out),
                                         "--endpoint", server.url, "--api-model", "m", "--edit", "lower"])
    assert res.exit_code == 1 and "bad.jsonl:2: invalid JSON" in str(res.exception)  # (the project's JSONL reader)


def test_rejects_a_non_http_url_without_retrying():
    with pytest.raises(WhowroteError, match="not an http"):
        OpenAIBackend("127.0.0.1:9/v1", "m")


def test_server_without_n_support_gets_one_request_per_sample():
    s = FakeServer(ignore_n=True)  # a server that ignores n: always one choice
    try:
        be = OpenAIBackend(s.url, "m", timeout=5)
        out = be.generate([[{"role": "user", "content": "claude"}]], SamplingParams(k=3, seed=7))
        assert [x.text for x in out[0]] == ["<answer>CLAUDE</answer>"] * 3
        assert len(s.requests) == 3 and len({r["seed"] for r in s.requests}) == 3
        assert [r["n"] for r in s.requests] == [3, 1, 1]
    finally:
        s.close()


@pytest.mark.parametrize("body, ctype", [
    (b"<html><body>502 Bad Gateway</body></html>", "text/html"),
    (b'{"result": "ok"}', "application/json"),
    (b'{"choices": "none"}', "application/json"),
])
def test_a_200_that_is_not_a_chat_completion_is_retried_then_one_line(body, ctype):
    s = FakeServer(fail_first=2, bad_body=body, bad_type=ctype)  # two bad bodies, then a good one
    try:
        be = OpenAIBackend(s.url, "m", retries=2, timeout=5)
        out = be.generate([[{"role": "user", "content": "claude"}]], SamplingParams(k=1))
        assert out[0][0].text == "<answer>CLAUDE</answer>" and len(s.requests) == 3
    finally:
        s.close()
    s = FakeServer(fail_first=100, bad_body=body, bad_type=ctype)
    try:
        be = OpenAIBackend(s.url, "m", retries=1, timeout=5)
        with pytest.raises(WhowroteError, match=r"failed after 2 attempts: bad response") as e:
            be.generate([[{"role": "user", "content": "x"}]], SamplingParams(k=1))
        assert "\n" not in str(e.value) and len(s.requests) == 2
    finally:
        s.close()


def test_missing_openai_package_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "openai", None)  # import openai -> ImportError
    with pytest.raises(WhowroteError, match=r"needs the openai package: pip install '\.\[llm\]' in the whowrote checkout"):
        OpenAIBackend("http://127.0.0.1:9/v1", "m")


@pytest.mark.parametrize("value", ["-5", "0"])
def test_cli_non_positive_timeout_is_a_usage_error(tmp_path, split_writer, value):
    from typer.testing import CliRunner

    from whowrote.cli import app  # noqa: F401
    from whowrote.cli.app import app as typer_app

    split = split_writer(tmp_path / "val.jsonl")
    res = CliRunner().invoke(typer_app, ["eval", "--split", str(split), "--out", str(tmp_path / "o"),
                                         "--endpoint", "http://127.0.0.1:9/v1", "--timeout", value])
    assert res.exit_code == 2 and "--timeout" in res.output
    assert not (tmp_path / "o").exists()
