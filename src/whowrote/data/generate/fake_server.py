"""A local stand-in for the three APIs, speaking their real wire formats on 127.0.0.1 only.

- ``POST /v1/chat/completions``: OpenAI chat completions (also what OpenAI-compatible servers speak);
- ``POST /v1/messages``: Anthropic messages;
- ``POST /v1beta/models/{model}:generateContent``: Gemini (the google-genai SDK's REST call).

The official SDKs reach it through their base-URL settings (``base_url = "http://127.0.0.1:PORT/v1"``
for openai, ``"http://127.0.0.1:PORT"`` for anthropic and google). Answers are deterministic
filler prose of the asked-for length (capped by ``max_words``), cut off with each API's own
"truncated" finish reason when the output budget is too small. Faults are scripted: a queue
consumed one per request (``429`` with ``Retry-After``, ``500``, ``529``, ``timeout``, ``badjson``,
``401``, ``403``, ``selfid``, ``frontmatter``), plus an expected key (a wrong one gets that API's 401).

Run it by hand for the docs' worked example::

    python -m whowrote.data.generate.fake_server --port 8765
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_WORD_LIST = ("the of and a to in is that it for as with was on be by this are from at or an which not but have "
         "system city history people language model water theory market design policy memory signal river "
         "careful evidence argument structure practice question pattern change record small early "
         "measure often quiet general distance culture method light value story craft")
WORDS = tuple(_WORD_LIST.split())
_ASKED = re.compile(r"about (\d{1,6}) words")
_LIST = re.compile(r"List (\d{1,4}) distinct")
TOKENS_PER_WORD = 1.3
FAULTS = ("400", "400key", "401", "403", "429", "500", "503", "529", "timeout", "badjson", "selfid", "frontmatter",
          "modelname")


# One punctuation habit per provider, so that a classifier trained on fake-server texts can
# tell them apart: the worked example then shows labels surviving generate -> split ->
# train-probe -> predict, which identical noise for every model could not show.
HABITS = {"CLAUDE": "\u2014", "CHATGPT": ";", "GEMINI": ":", "OTHER": ","}


def prose(seed: str, n_words: int, model: str = "") -> str:
    from whowrote.data.providers import provider_of

    rng = random.Random(hashlib.sha256(seed.encode("utf-8")).hexdigest())
    habit = HABITS[provider_of(model)]
    words, paragraphs, sentence = [], [], []
    for _ in range(n_words):
        sentence.append(rng.choice(WORDS))
        if len(sentence) == 5 and rng.random() < 0.6:
            sentence[-1] += habit
        if len(sentence) >= rng.randint(8, 18):
            words.append(" ".join(sentence).capitalize() + ".")
            sentence = []
            if len(words) >= 5:
                paragraphs.append(" ".join(words))
                words = []
    if sentence:
        words.append(" ".join(sentence).capitalize() + ".")
    if words:
        paragraphs.append(" ".join(words))
    return "\n\n".join(paragraphs)


class FakeServer:
    """``with FakeServer(faults=["429"]) as s: ... s.url ... s.requests``."""

    def __init__(self, *, faults: list[str] | None = None, key: str | None = None, delay: float = 0.0,
                 max_words: int = 300, timeout_sleep: float = 1.5, retry_after: float = 0.05,
                 port: int = 0) -> None:
        self.faults = list(faults or [])
        self.key = key
        self.delay = delay
        self.max_words = max_words
        self.timeout_sleep = timeout_sleep
        self.retry_after = retry_after  # seconds, sent as Retry-After on 429s
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self.httpd.daemon_threads = True
        self.thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def start(self) -> FakeServer:
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def next_fault(self) -> str | None:
        with self.lock:
            return self.faults.pop(0) if self.faults else None

    def count(self, path_part: str) -> int:
        return sum(path_part in r["path"] for r in self.requests)


def _handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet: tests read server.requests instead
            pass

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(min(length, 10_000_000))
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {}
            api = ("openai" if self.path.endswith("/chat/completions") else "anthropic"
                   if self.path.endswith("/v1/messages") else "google" if ":generateContent" in self.path else None)
            with server.lock:
                server.requests.append({"path": self.path, "api": api, "headers": dict(self.headers), "body": body,
                                        "at": time.monotonic()})
            if api is None:
                return self._send(404, {"error": {"message": f"no route {self.path}"}})
            key = {"openai": (self.headers.get("authorization") or "").removeprefix("Bearer "),
                   # anthropic SDK 1.x sends x-api-key, 2.x an Authorization bearer token
                   "anthropic": self.headers.get("x-api-key") or (self.headers.get("authorization") or "")
                   .removeprefix("Bearer "),
                   "google": self.headers.get("x-goog-api-key") or ""}[api]
            fault = server.next_fault()
            if server.key is not None and key != server.key:
                fault = "401"
            if server.delay:
                time.sleep(server.delay)
            if fault == "timeout":
                time.sleep(server.timeout_sleep)  # longer than the client's timeout: it gives up
            elif fault in ("400", "400key", "401", "403", "429", "500", "503", "529"):
                return self._error(api, int(fault[:3]), key, bad_key=fault == "400key")
            elif fault == "badjson":
                return self._send(200, b'{"id": "x", "choices": [ {"mess', raw_bytes=True)
            self._send(200, _answer(api, body, self.path, server.max_words, fault))

        def _error(self, api: str, status: int, key: str, bad_key: bool = False) -> None:
            kind = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                    429: "rate_limit_error", 500: "api_error", 503: "overloaded_error",
                    529: "overloaded_error"}[status]
            # Real servers echo (part of) a wrong key; the client must not repeat it. Gemini answers
            # a bad key with 400 INVALID_ARGUMENT "API key not valid".
            msg = (f"Incorrect API key provided: {key}" if status == 401 else
                   f"API key not valid. Please pass a valid API key. ({key})" if bad_key else f"fake {kind}")
            headers = {"retry-after": f"{server.retry_after:g}"} if status == 429 else {}
            if api == "openai":
                payload: dict = {"error": {"message": msg, "type": kind, "code": None, "param": None}}
            elif api == "anthropic":
                payload = {"type": "error", "error": {"type": kind, "message": msg}}
            else:
                status_name = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 429: "RESOURCE_EXHAUSTED",
                               500: "INTERNAL", 503: "UNAVAILABLE", 529: "UNAVAILABLE"}[status]
                payload = {"error": {"code": status, "message": msg, "status": status_name}}
            self._send(status, payload, headers=headers)

        def _send(self, status: int, payload: Any, headers: dict | None = None, raw_bytes: bool = False) -> None:
            data = payload if raw_bytes else json.dumps(payload).encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                pass

    return Handler


def _prompt_and_budget(api: str, body: dict) -> tuple[str, str, int | None]:
    if api == "openai":
        msgs = body.get("messages") or [{}]
        return str(body.get("model")), str(msgs[-1].get("content", "")), body.get("max_completion_tokens") or body.get(
            "max_tokens")
    if api == "anthropic":
        content = (body.get("messages") or [{}])[-1].get("content", "")
        if isinstance(content, list):
            content = " ".join(b.get("text", "") for b in content if isinstance(b, dict))
        return str(body.get("model")), str(content), body.get("max_tokens")
    parts = ((body.get("contents") or [{}])[-1].get("parts") or [{}])
    return "", " ".join(str(p.get("text", "")) for p in parts), (body.get("generationConfig") or {}).get(
        "maxOutputTokens")


def _answer(api: str, body: dict, path: str, max_words: int, fault: str | None) -> dict:
    model, prompt, budget = _prompt_and_budget(api, body)
    if api == "google":
        model = path.split("/models/", 1)[1].split(":", 1)[0]
    asked = _ASKED.search(prompt)
    n = min(int(asked.group(1)) if asked else 120, max_words)
    room = int(budget / TOKENS_PER_WORD) if budget else n
    truncated = room < n
    text = prose(model + "\n" + prompt, min(n, room), model)
    wanted = _LIST.match(prompt)
    if wanted:  # a topic-proposal request: a numbered list, as models tend to answer
        text = "\n".join(f"{i + 1}. {prose(f'{prompt}{i}', 6).rstrip('.')}" for i in range(int(wanted.group(1))))
    if fault == "selfid":
        text = "As an AI language model, I can offer some thoughts. " + text
    elif fault == "modelname":
        text = f"Speaking as {model}, here is my view. " + text
    elif fault == "frontmatter":
        text = f"---\ntitle: A post\nmodel: {model}\n---\n\n" + text
    p_tok, c_tok = int(len(prompt.split()) * TOKENS_PER_WORD) + 5, int(len(text.split()) * TOKENS_PER_WORD)
    rid = hashlib.sha256((path + prompt + str(time.time_ns())).encode()).hexdigest()[:24]
    if api == "openai":
        return {"id": f"chatcmpl-{rid}", "object": "chat.completion", "created": int(time.time()), "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "refusal": None},
                             "logprobs": None, "finish_reason": "length" if truncated else "stop"}],
                "usage": {"prompt_tokens": p_tok, "completion_tokens": c_tok, "total_tokens": p_tok + c_tok}}
    if api == "anthropic":
        return {"id": f"msg_{rid}", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": text}],
                "stop_reason": "max_tokens" if truncated else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": p_tok, "output_tokens": c_tok}}
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                            "finishReason": "MAX_TOKENS" if truncated else "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": p_tok, "candidatesTokenCount": c_tok,
                              "totalTokenCount": p_tok + c_tok},
            "modelVersion": f"{model}-fake-001", "responseId": rid}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--fault", action="append", default=[], choices=FAULTS, help="queue a fault (repeatable)")
    ap.add_argument("--key", default=None, help="the only API key accepted (default: any)")
    ap.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
    ap.add_argument("--max-words", type=int, default=300, help="cap on the words of an answer")
    args = ap.parse_args(argv)
    try:
        server = FakeServer(faults=args.fault, key=args.key, delay=args.delay, max_words=args.max_words,
                            port=args.port)
    except OSError as e:
        raise SystemExit(f"fake_server: cannot listen on 127.0.0.1:{args.port} ({e.strerror})") from None
    print(f"fake API server on {server.url} (Ctrl-C to stop)", flush=True)
    try:
        server.httpd.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.server_close()


if __name__ == "__main__":
    main()
