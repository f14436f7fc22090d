"""Each official SDK against a local fake server speaking its real wire format: the happy path
with full provenance, truncation, and every failure the issue names (429 + Retry-After, 5xx,
timeouts, malformed JSON, 401/403)."""

from __future__ import annotations

import pytest

from whowrote.data.generate import load_plan, run
from whowrote.data.generate.clients import AuthError, RequestError
from whowrote.types import WhowroteError

from .conftest import NAMES, read_rows, write_plan

APIS = ("openai", "anthropic", "google", "openai-compatible")
KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "google": "GEMINI_API_KEY",
           "openai-compatible": "COMPAT_KEY"}
PROVIDER = {"openai": "CHATGPT", "anthropic": "CLAUDE", "google": "GEMINI", "openai-compatible": "OTHER"}
KEY_HEADER = {"openai": ["authorization"], "anthropic": ["x-api-key", "authorization"],
              "google": ["x-goog-api-key"], "openai-compatible": ["authorization"]}
WIRE = {"openai": "chat/completions", "anthropic": "/v1/messages", "google": ":generateContent",
        "openai-compatible": "chat/completions"}


def _quiet(_msg: str) -> None:
    pass


@pytest.mark.parametrize("api", APIS)
def test_happy_path_rows_carry_full_provenance(api, tmp_path, server, keys):
    srv = server(key=keys[KEY_ENV[api]])  # any other key gets this API's 401
    plan = load_plan(write_plan(tmp_path, srv.url, (api,), genres=("blog", "essay")))
    report = run(plan, tmp_path / "out", log=_quiet)
    rows = read_rows(tmp_path / "out" / "generated.jsonl")
    assert report.written == len(rows) == 4 and not report.failed
    assert all(WIRE[api] in r["path"] for r in srv.requests) and len(srv.requests) == 4
    sent = srv.requests[0]
    headers = {k.lower(): v for k, v in sent["headers"].items()}
    assert keys[KEY_ENV[api]] in " ".join(headers.get(h, "") for h in KEY_HEADER[api])
    assert {r["genre"] for r in rows} == {"blog", "essay"}
    for r in rows:
        assert r["model"] == NAMES[api] and r["provider"] == PROVIDER[api] and r["api"] == api
        assert r["category"] == "philosophy" and r["topic"] in {"Why Zeno still matters", "Free will in the lab"}
        assert r["response_id"] and r["finish_reason"] in {"stop", "end_turn", "STOP"} and r["truncated"] is False
        assert r["prompt_tokens"] > 0 and r["completion_tokens"] == int(40 * 1.3)  # the server's usage numbers
        assert r["n_words"] == 40 and r["prompt_id"].startswith(r["genre"]) and r["created"].endswith("+00:00")
        assert r["sampling"]["max_tokens"] == 2 * 40 + 1024
        assert r["topic"] in r["prompt"] and "about 40 words" in r["prompt"]
        assert r["base_url"] == (srv.url + "/v1" if api == "openai-compatible" else None)
    # The output budget and the sampling settings reached the wire in each API's own field.
    body = sent["body"]
    budget = {"openai": body.get("max_completion_tokens"), "openai-compatible": body.get("max_tokens"),
              "anthropic": body.get("max_tokens"),
              "google": (body.get("generationConfig") or {}).get("maxOutputTokens")}[api]
    assert budget == 2 * 40 + 1024
    if api != "anthropic":  # anthropic SDK 2.x takes no sampling settings; the row says what was sent
        temp = body.get("temperature", (body.get("generationConfig") or {}).get("temperature"))
        assert temp == 1.0 and rows[0]["sampling"]["temperature"] == 1.0
    else:
        assert "temperature" not in body and "temperature" not in rows[0]["sampling"]


@pytest.mark.parametrize("api", APIS)
def test_truncated_generations_are_kept_and_marked(api, tmp_path, server, keys):
    srv = server()
    plan = load_plan(write_plan(tmp_path, srv.url, (api,), words=200, max_tokens=50))
    report = run(plan, tmp_path / "out", log=_quiet)
    rows = read_rows(tmp_path / "out" / "generated.jsonl")
    assert report.truncated == report.written == len(rows) == 2
    want = {"openai": "length", "openai-compatible": "length", "anthropic": "max_tokens", "google": "MAX_TOKENS"}[api]
    assert all(r["truncated"] is True and r["finish_reason"] == want for r in rows)
    assert all(r["n_words"] < 200 for r in rows)


@pytest.mark.parametrize("api", APIS)
def test_rate_limit_is_retried_after_the_servers_retry_after(api, tmp_path, server, keys):
    srv = server(faults=["429", "429"], retry_after=0.6)
    plan = load_plan(write_plan(tmp_path, srv.url, (api,), topics=("One topic",)))
    report = run(plan, tmp_path / "out", log=_quiet)
    assert report.written == 1 and not report.failed and len(srv.requests) == 3
    gap = srv.requests[1]["at"] - srv.requests[0]["at"]
    if api == "google":  # google-genai backs off exponentially but ignores Retry-After
        assert gap > 0
    else:
        assert gap >= 0.55, gap


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("fault", ["500", "503", "timeout", "badjson"])
def test_transient_failures_then_success(api, fault, tmp_path, server, keys):
    srv = server(faults=[fault, fault], timeout_sleep=1.2)
    plan = load_plan(write_plan(tmp_path, srv.url, (api,), topics=("One topic",), timeout=0.6))
    report = run(plan, tmp_path / "out", log=_quiet)
    rows = read_rows(tmp_path / "out" / "generated.jsonl")
    assert report.written == 1 and not report.failed and len(srv.requests) == 3
    assert rows[0]["n_words"] == 40  # the good third answer, not a fragment of a bad one


@pytest.mark.parametrize("api", ["openai", "google"])
def test_failure_after_all_retries_is_reported_and_retried_by_the_next_run(api, tmp_path, server, keys):
    srv = server(faults=["500"] * 3)  # max_retries = 2: three attempts, all 500
    plan = load_plan(write_plan(tmp_path, srv.url, (api,), topics=("One topic",)))
    report = run(plan, tmp_path / "out", log=_quiet)
    assert report.written == 0 and len(report.failed) == 1 and "500" in report.failed[0]["error"]
    again = run(plan, tmp_path / "out", log=_quiet)  # the server is healthy now
    assert again.written == 1 and not again.failed and len(read_rows(tmp_path / "out" / "generated.jsonl")) == 1


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("status", ["401", "403"])
def test_auth_failure_stops_the_run_with_one_line_and_no_key(api, status, tmp_path, server, keys):
    srv = server(faults=[status] * 10)
    plan = load_plan(write_plan(tmp_path, srv.url, (api,)))
    with pytest.raises(AuthError) as err:
        run(plan, tmp_path / "out", log=_quiet)
    msg = str(err.value)
    assert isinstance(err.value, WhowroteError) and "\n" not in msg
    assert f"HTTP {status}" in msg and KEY_ENV[api] in msg and keys[KEY_ENV[api]] not in msg
    assert len(srv.requests) <= 2  # not retried (at most the other in-flight request was sent)


@pytest.mark.parametrize("api", APIS)
def test_a_refused_request_stops_the_run_with_one_line(api, tmp_path, server, keys):
    srv = server(faults=["400"] * 10)
    plan = load_plan(write_plan(tmp_path, srv.url, (api,)))
    with pytest.raises(RequestError) as err:
        run(plan, tmp_path / "out", log=_quiet)
    assert "HTTP 400" in str(err.value) and NAMES[api] in str(err.value) and "\n" not in str(err.value)
    assert len(srv.requests) <= 2


def test_gemini_bad_key_400_is_an_auth_failure(tmp_path, server, keys):
    srv = server(faults=["400key"] * 10)
    plan = load_plan(write_plan(tmp_path, srv.url, ("google",)))
    with pytest.raises(AuthError) as err:
        run(plan, tmp_path / "out", log=_quiet)
    assert "GEMINI_API_KEY" in str(err.value) and keys["GEMINI_API_KEY"] not in str(err.value)


def test_wrong_key_gets_401_and_the_echoed_key_is_not_repeated(tmp_path, server, keys):
    srv = server(key="the-only-good-key")
    plan = load_plan(write_plan(tmp_path, srv.url, ("openai",)))
    with pytest.raises(AuthError) as err:
        run(plan, tmp_path / "out", log=_quiet)
    assert keys["OPENAI_API_KEY"] not in str(err.value) and "401" in str(err.value)


def test_missing_key_is_one_line_before_any_request(tmp_path, server, keys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    srv = server()
    plan = load_plan(write_plan(tmp_path, srv.url, ("anthropic", "openai")))
    with pytest.raises(WhowroteError, match="ANTHROPIC_API_KEY"):
        run(plan, tmp_path / "out", log=_quiet)
    assert srv.requests == []


def test_concurrency_per_provider_is_respected(tmp_path, server, keys):
    srv = server(delay=0.3)
    topics = tuple(f"Topic {i}" for i in range(6))
    plan = load_plan(write_plan(tmp_path, srv.url, ("openai", "anthropic"), topics=topics,
                                extra="[concurrency]\nopenai = 3\nanthropic = 1"))
    run(plan, tmp_path / "out", log=_quiet)

    def most_at_once(api: str) -> int:
        times = sorted(r["at"] for r in srv.requests if WIRE[api] in r["path"])
        # Requests that arrive within one server delay of each other were in flight together.
        return max(sum(1 for u in times if t <= u < t + 0.25) for t in times)

    assert most_at_once("openai") == 3
    assert most_at_once("anthropic") == 1


def test_endpoint_urls_are_written_without_credentials():
    from whowrote.data.generate.run import _public_url

    assert _public_url("https://user:s3cret@api.example.com:8443/v1?key=abc") == "https://api.example.com:8443/v1"
    assert _public_url("http://[::1]:8000/v1") == "http://[::1]:8000/v1"
