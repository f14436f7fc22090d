"""Hostile requests: a slow request never blocks /healthz or other clients, and the span
patterns stay linear on the inputs that made them quadratic."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from serve_fakes import FakeModel

from whowrote.serve import create_app
from whowrote.style.highlight import tell_spans

TEXT = "# A heading\n\nThis is **bold** - and perhaps it is very clear.\n" * 20


async def _slow_request_and_health(app, body: dict) -> tuple[httpx.Response, float, float]:
    """Start ``POST /v1/predict``; while it runs, time ``GET /healthz``. Returns the predict
    answer, the health check's latency and the predict's latency."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=30) as client:
        t0 = time.monotonic()
        slow = asyncio.create_task(client.post("/v1/predict", json=body))
        await asyncio.sleep(0.2)  # the slow request is in flight
        t1 = time.monotonic()
        health = await client.get("/healthz")
        health_s = time.monotonic() - t1
        assert health.status_code == 200 and not slow.done()
        r = await slow
        return r, health_s, time.monotonic() - t0


def test_slow_highlighting_does_not_block_healthz(monkeypatch):
    """Span finding (a regex pass per tell) runs in the worker pool, not on the event loop."""
    import whowrote.serve.app as serve_app

    def slow_spans(*args, **kwargs):
        time.sleep(1.5)  # stands in for a slow pattern over a huge text
        return []

    monkeypatch.setattr(serve_app, "highlight_spans", slow_spans)
    app = create_app(FakeModel(), timeout_s=10)
    r, health_s, total_s = asyncio.run(_slow_request_and_health(app, {"text": TEXT, "highlight": True}))
    assert r.status_code == 200 and r.json()["highlights"] == []
    assert health_s < 0.5 < 1.5 <= total_s


def test_slow_highlighting_is_under_the_timeout(monkeypatch):
    import whowrote.serve.app as serve_app

    monkeypatch.setattr(serve_app, "highlight_spans", lambda *a, **k: time.sleep(2.0) or [])
    app = create_app(FakeModel(), timeout_s=0.5)
    r, health_s, total_s = asyncio.run(_slow_request_and_health(app, {"text": TEXT, "highlight": True}))
    assert r.status_code == 504 and "longer than" in r.json()["error"]
    assert health_s < 0.4 and total_s < 1.5


def test_slow_model_does_not_block_other_clients():
    app = create_app(FakeModel(delay=1.5), timeout_s=10)
    r, health_s, _ = asyncio.run(_slow_request_and_health(app, {"text": TEXT}))
    assert r.status_code == 200 and health_s < 0.5


# Inputs that took quadratic time before (bold_bullet's ^\s* on blank lines: 40k newlines ~25 s;
# bold and link patterns on one long line of unclosed '**a ' / '[a'). A generous bound: each must
# finish well under a few seconds at sizes where the old patterns took minutes.
@pytest.mark.parametrize(("feature", "text"), [
    ("bold_bullet", TEXT * 10 + "\n" * 200_000),
    ("bold_bullet", " \n" * 200_000),
    ("hrule", "---" + " \n" * 200_000),
    ("colon_eol", ":" * 400_000),
    ("md_bold", "**a " * 200_000), ("link", "[a" * 300_000), ("link", "[a](" * 200_000),
    ("contraction_rate", "a" * 400_000), ("italic_asterisk", "*" * 400_000), ("inline_code", "`" * 400_000),
])
def test_feature_spans_are_linear(feature, text):
    t0 = time.monotonic()
    tell_spans(text, feature, limit=len(text))  # no cap: every match to the end of the text
    assert time.monotonic() - t0 < 3.0


def test_hostile_request_answers_and_server_keeps_serving():
    """The issue's request (text x10 plus 60,000 newlines, 20 tells, highlighted) on the real model."""
    from fastapi.testclient import TestClient

    with TestClient(create_app(None, max_body_bytes=2_000_000, timeout_s=10)) as c:
        t0 = time.monotonic()
        r = c.post("/v1/predict", json={"text": TEXT * 10 + "\n" * 60_000, "n_tells": 20, "highlight": True})
        assert r.status_code == 200 and time.monotonic() - t0 < 5
        assert c.get("/healthz").status_code == 200
