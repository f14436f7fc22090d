"""Hostile requests: a slow request never blocks /healthz or other clients, and the span
patterns stay linear on the inputs that made them quadratic."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from serve_fakes import FakeModel, SlowSpansModel, served

from whowrote.serve import create_app
from whowrote.style.highlight import tell_spans

TEXT = "# A heading\n\nThis is **bold** - and perhaps it is very clear.\n" * 20


async def _slow_request_and_health(app, body: dict) -> tuple[httpx.Response, float, float]:
    """Start ``POST /v1/predict``; while it runs, time ``GET /healthz``. Returns the predict
    answer, the health check's latency and the predict's latency."""
    async with served(app) as client:
        t0 = time.monotonic()
        slow = asyncio.create_task(client.post("/v1/predict", json=body))
        await asyncio.sleep(0.2)  # the slow request is in flight
        t1 = time.monotonic()
        health = await client.get("/healthz")
        health_s = time.monotonic() - t1
        assert health.status_code == 200 and not slow.done()
        r = await slow
        return r, health_s, time.monotonic() - t0


def _slow_spans_app(monkeypatch, workers: int, delay: float, timeout_s: float):
    """An app whose highlighting takes ``delay`` seconds: in the worker processes (a model that
    patches them as it loads) or, with ``workers=0``, in the server's thread (patched here)."""
    if workers:
        return create_app(SlowSpansModel(delay), workers=workers, timeout_s=timeout_s)
    import whowrote.serve.work as work

    monkeypatch.setattr(work, "highlight_spans", lambda *a, **k: time.sleep(delay) or [])
    return create_app(FakeModel(), workers=0, timeout_s=timeout_s)


@pytest.mark.parametrize("workers", [1, 0])
def test_slow_highlighting_does_not_block_healthz(monkeypatch, workers):
    """Span finding (a regex pass per tell) runs in the worker pool, not on the event loop."""
    app = _slow_spans_app(monkeypatch, workers, 1.5, timeout_s=10)
    r, health_s, total_s = asyncio.run(_slow_request_and_health(app, {"text": TEXT, "highlight": True}))
    assert r.status_code == 200 and r.json()["highlights"] == []
    assert health_s < 0.5 < 1.5 <= total_s


@pytest.mark.parametrize("workers", [1, 0])
def test_slow_highlighting_is_under_the_timeout(monkeypatch, workers):
    app = _slow_spans_app(monkeypatch, workers, 2.0, timeout_s=0.5)
    r, health_s, total_s = asyncio.run(_slow_request_and_health(app, {"text": TEXT, "highlight": True}))
    assert r.status_code == 504 and "longer than" in r.json()["error"]
    assert health_s < 0.4 and total_s < 1.5


@pytest.mark.parametrize("workers", [1, 0])
def test_slow_model_does_not_block_other_clients(workers):
    app = create_app(FakeModel(delay=1.5), workers=workers, timeout_s=10)
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
