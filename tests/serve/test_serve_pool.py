"""The worker pool: CPU work in processes, the same answers as in process, a runaway job killed at
the timeout without stalling /healthz, a crashed worker replaced, a bounded queue, one-line
configuration errors, and no worker left behind."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest
from serve_fakes import (
    CrashModel,
    FakeModel,
    RefusingModel,
    SlowModel,
    SlowSpansModel,
    UnloadableModel,
    served,
)

from whowrote.serve import create_app
from whowrote.serve.work import predict_body
from whowrote.types import WhowroteError

TEXT = "# A heading\n\nThis is **bold** - and perhaps it is very clear.\n" * 20


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def wait_for(condition, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def waitable(pid: int) -> bool:
    """True once this process could reap child ``pid`` (its whole thread group has exited: a killed
    worker's main thread shows as a zombie in /proc while its other threads are still exiting, and
    until then the pool's ``is_alive()`` still says it runs)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # already reaped
        return True


async def _until(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.05)


def test_work_runs_in_worker_processes_not_the_server():
    async def go():
        app = create_app(FakeModel(), workers=2)
        async with served(app) as c:
            pids = app.state.pool.pids
            assert len(pids) == 2 and os.getpid() not in pids and all(alive(p) for p in pids)
            assert (await c.post("/v1/predict", json={"text": TEXT})).status_code == 200
        return pids

    pids = asyncio.run(go())
    assert wait_for(lambda: not any(alive(p) for p in pids), 10)  # closed with the app


def test_answers_equal_in_process_attribution(real_model, blog_texts):
    """Byte for byte what the in-process path renders, and the dicts StyleModel.attribute gives."""
    import json

    bodies = [({"text": blog_texts[0]}, [blog_texts[0]], None, False, False),
              ({"text": blog_texts[1], "highlight": True, "n_tells": 8}, [blog_texts[1]], 8, True, False),
              ({"texts": blog_texts, "n_tells": 0}, blog_texts, 0, False, True),
              ({"texts": blog_texts[:2], "highlight": True}, blog_texts[:2], None, True, True),
              ({"messages": [{"role": "user", "content": "Write a post."},
                             {"role": "assistant", "content": blog_texts[2].strip()}]}, [blog_texts[2].strip()],
               None, False, False)]

    async def go(workers):
        async with served(create_app(real_model, workers=workers)) as c:
            return [(await c.post("/v1/predict", json=body)) for body, *_ in bodies]

    pooled, threaded = asyncio.run(go(2)), asyncio.run(go(0))
    for (_body, texts, n_tells, highlight, batch), r, t in zip(bodies, pooled, threaded, strict=True):
        chat_log = "messages" in _body
        where = [f"texts[{i}]" for i in range(len(texts))] if batch else ["messages" if chat_log else "text"]
        notes = [["a conversation record ('messages'): only the assistant's 1 turn(s) were attributed, "
                  "not the user's 1"]] if chat_log else None
        expected = predict_body(real_model, texts, n_tells, highlight, where, batch, notes)
        assert r.status_code == 200 and r.headers["content-type"] == "application/json"
        assert r.content == expected == t.content
        found = real_model.attribute(texts) if n_tells is None else real_model.attribute(texts, n_tells=n_tells)
        dicts = [a.to_dict() for a in found]
        answer = json.loads(r.content)
        got = answer["results"] if batch else [answer]
        if chat_log:  # the chat log's warning, then the model's own
            assert got[0]["warnings"][0] == notes[0][0] and got[0]["warnings"][1:] == dicts[0]["warnings"]
            got = [{**got[0], "warnings": dicts[0]["warnings"]}]
        assert [{k: v for k, v in d.items() if k != "highlights"} for d in got] == dicts
        assert all(("highlights" in d) is highlight for d in got)


def test_request_errors_cross_the_process_boundary():
    async def go():
        app = create_app(RefusingModel(), workers=1)
        async with served(app) as c:
            empty = await c.post("/v1/predict", json={"texts": ["ok", "  "]})
            binary = await c.post("/v1/predict", json={"text": "a\x00b"})
            refused = await c.post("/v1/predict", json={"text": TEXT})
            bug = await c.post("/v1/predict", json={"text": "BUG " + TEXT})
            return empty, binary, refused, bug, app.state.pool.restarts

    empty, binary, refused, bug, restarts = asyncio.run(go())
    assert empty.status_code == 422 and empty.json() == {"error": "texts[1] is empty"}
    assert binary.status_code == 422 and "binary" in binary.json()["error"]
    assert refused.status_code == 422 and refused.json() == {"error": "text is not attributable"}
    assert bug.status_code == 500 and bug.json() == {"error": "internal error (ZeroDivisionError)"}
    assert restarts == 0  # a request's own error leaves its worker in the pool


@pytest.mark.parametrize(("model", "body"), [
    (SlowModel(delay=60), {"text": "SLOW " + TEXT}),
    (SlowSpansModel(), {"text": TEXT, "highlight": True}),  # highlighting is under the timeout too
])
def test_timeout_answers_at_once_never_stalls_healthz_and_kills_the_runaway(model, body):
    async def go():
        app = create_app(model, workers=1, timeout_s=0.5)
        pool = app.state.pool
        async with served(app) as c:
            (stuck,) = pool.pids
            t0 = time.monotonic()
            slow = asyncio.create_task(c.post("/v1/predict", json=body))
            await asyncio.sleep(0.2)
            t1 = time.monotonic()
            health = await c.get("/healthz")
            health_s = time.monotonic() - t1
            assert health.status_code == 200 and not slow.done()
            r = await slow
            total_s = time.monotonic() - t0
            # The runaway worker is killed, not left computing for a client that got its answer,
            # and a new one serves the next request.
            await _until(lambda: not alive(stuck))
            await _until(lambda: len(pool.pids) == 1 and pool.pids != [stuck])
            after = await c.post("/v1/predict", json={"text": TEXT})
            return r, health_s, total_s, after, pool.restarts

    r, health_s, total_s, after, restarts = asyncio.run(go())
    assert r.status_code == 504 and r.json() == {"error": "attribution took longer than 0.5 s"}
    assert health_s < 0.4 and total_s < 2.0
    assert after.status_code == 200 and restarts == 1


def test_a_crashed_worker_is_replaced_and_says_so():
    async def go():
        app = create_app(CrashModel(), workers=1, timeout_s=60)
        pool = app.state.pool
        async with served(app) as c:
            (first,) = pool.pids
            crashed = await c.post("/v1/predict", json={"text": "CRASH " + TEXT})
            health = await c.get("/healthz")
            after = await c.post("/v1/predict", json={"text": TEXT})  # waits for the new worker
            return crashed, health, after, first, pool.pids, pool.restarts

    crashed, health, after, first, pids, restarts = asyncio.run(go())
    assert crashed.status_code == 500
    assert crashed.json() == {"error": "the worker process died during this request; a new one has been started"}
    assert health.status_code == 200 and after.status_code == 200
    assert restarts == 1 and len(pids) == 1 and pids != [first]


def test_a_worker_killed_while_idle_is_replaced_without_failing_a_request():
    async def go():
        app = create_app(FakeModel(), workers=1, timeout_s=60)
        async with served(app) as c:
            (first,) = app.state.pool.pids
            os.kill(first, signal.SIGKILL)  # e.g. the OOM killer
            await _until(lambda: waitable(first))
            return await c.post("/v1/predict", json={"text": TEXT}), app.state.pool.pids

    r, pids = asyncio.run(go())
    assert r.status_code == 200 and len(pids) == 1, r.text


def test_queue_is_bounded_with_503():
    async def go():
        app = create_app(SlowModel(delay=1.5), workers=1, queue=1, timeout_s=30)
        async with served(app) as c:
            running = asyncio.create_task(c.post("/v1/predict", json={"text": "SLOW " + TEXT}))
            await asyncio.sleep(0.3)
            waiting = asyncio.create_task(c.post("/v1/predict", json={"text": TEXT}))
            await asyncio.sleep(0.3)
            t0 = time.monotonic()
            refused = await c.post("/v1/predict", json={"text": TEXT})
            refused_s = time.monotonic() - t0
            health = await c.get("/healthz")
            return await running, await waiting, refused, refused_s, health

    running, waiting, refused, refused_s, health = asyncio.run(go())
    assert running.status_code == 200 and waiting.status_code == 200 and health.status_code == 200
    assert refused.status_code == 503 and refused_s < 0.5
    assert refused.json() == {"error": "server busy: 2 requests in progress or waiting (the limit is 2); "
                                       "try again shortly"}


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"workers": -1}, "--workers must be a whole number from 0 to 256, not -1"),
    ({"workers": 1000}, "--workers must be a whole number from 0 to 256, not 1000"),
    ({"workers": 1.5}, "--workers must be a whole number from 0 to 256, not 1.5"),
    ({"workers": True}, "--workers must be a whole number from 0 to 256, not True"),
    ({"queue": -3}, "--queue must be a whole number from 0 to 10000, not -3"),
    ({"timeout_s": 0}, "--timeout must be a positive number of seconds, not 0"),
    ({"timeout_s": float("nan")}, "--timeout must be a positive number of seconds, not nan"),
    ({"timeout_s": float("inf")}, "--timeout must be a positive number of seconds, not inf"),
    ({"max_body_bytes": 0}, "--max-body-mb must give at least 1 byte, not 0"),
])
def test_bad_settings_are_one_line_errors(kwargs, message):
    with pytest.raises(WhowroteError) as e:
        create_app(FakeModel(), **kwargs)
    assert str(e.value) == message


def test_a_model_that_cannot_reach_the_workers_is_a_one_line_error():
    model = FakeModel()
    model.attribute = lambda texts, n_tells=5: []  # a lambda cannot be pickled
    with pytest.raises(WhowroteError, match=r"cannot be sent to worker processes .*use --workers 0"):
        create_app(model, workers=1)
    create_app(model, workers=0)  # in the server process it is fine


def test_workers_that_cannot_start_fail_the_start_clearly():
    async def go():
        async with served(create_app(UnloadableModel(), workers=2)):
            pass

    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="worker processes could not start"):
        asyncio.run(go())
    assert time.monotonic() - t0 < 60


def test_among_is_answered_as_the_model_attributes_it(real_model, blog_texts):
    """`"among"` reaches the model in the worker process: the answer is its conditioned attribution."""
    import json

    async def go():
        async with served(create_app(real_model, workers=1)) as c:
            ok = await c.post("/v1/predict", json={"texts": blog_texts[:2], "among": ["CLAUDE", "CHATGPT", "GEMINI"]})
            bad = await c.post("/v1/predict", json={"text": blog_texts[0], "among": ["CLAUDE", "CLAUDE"]})
            return ok, bad

    ok, bad = asyncio.run(go())
    want = [a.to_dict() for a in real_model.attribute(blog_texts[:2], among=("CLAUDE", "CHATGPT", "GEMINI"))]
    assert ok.status_code == 200 and json.loads(ok.content)["results"] == want
    assert all(r["probabilities"]["OTHER"] == 0 for r in want)
    assert bad.status_code == 422 and "two or more" in bad.json()["error"]
