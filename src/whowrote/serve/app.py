"""The ASGI app: JSON API over a :class:`whowrote.style.StyleModel` and the page that shows it.

``create_app(model)`` takes any object with ``attribute(texts) -> [Attribution]`` (each with
``to_dict()``); ``model=None`` loads the bundled default. Texts live only in memory for the length
of a request: nothing is written to disk and nothing of the text is logged.
"""

from __future__ import annotations

import asyncio
import os
from functools import partial
from importlib.resources import files
from typing import Any

import anyio
from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from whowrote.serve.card import model_card
from whowrote.serve.limits import ApiError, BodyLimitMiddleware, check_text, install_error_handlers
from whowrote.serve.schemas import (
    ERROR_RESPONSES,
    Attribution,
    BatchResult,
    Health,
    ModelCard,
    PredictRequest,
)
from whowrote.style.highlight import highlight_spans

DEFAULT_MAX_BODY_BYTES = 2_000_000
DEFAULT_TIMEOUT_S = 30.0
STATIC_DIR = files("whowrote.serve") / "static"
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def create_app(model: Any = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
               timeout_s: float = DEFAULT_TIMEOUT_S, max_concurrency: int | None = None) -> FastAPI:
    """Build the app. ``model=None`` loads the bundled default model now (not per request)."""
    if model is None:
        from whowrote.style import load_model

        model = load_model()
    card = model_card(model)
    version = card["version"]
    limiter = anyio.CapacityLimiter(max_concurrency or max(2, os.cpu_count() or 2))

    app = FastAPI(
        title="whowrote",
        version=version,
        summary="Name the AI assistant (CLAUDE, CHATGPT, GEMINI or OTHER) that wrote a text, and say why.",
        docs_url=None, redoc_url=None,  # the Swagger UI would load assets from a CDN
    )
    app.state.model = model
    install_error_handlers(app)
    app.add_middleware(BodyLimitMiddleware, max_bytes=max_body_bytes)

    @app.middleware("http")
    async def _security_headers(request: Request, call_next: Any) -> Response:
        response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("Cache-Control", "no-store")
        return response

    def work(texts: list[str], n_tells: int | None, highlight: bool, where: list[str]) -> list[dict[str, Any]]:
        """All CPU work of one request (checks, model, spans): run in a worker thread."""
        for text, name in zip(texts, where, strict=True):
            check_text(text, name)
        found = model.attribute(texts) if n_tells is None else model.attribute(texts, n_tells=n_tells)
        results = [a.to_dict() for a in found]
        if highlight:
            for text, result in zip(texts, results, strict=True):
                result["highlights"] = highlight_spans(text, [t["feature"] for t in result.get("tells", [])])
        return results

    @app.post("/v1/predict", response_model=None, summary="Attribute one text or a batch",
              responses={200: {"model": Attribution | BatchResult, "description": "Attribution(s)"},
                         **ERROR_RESPONSES})
    async def predict(payload: PredictRequest) -> JSONResponse:
        """`{"text": ...}` answers one attribution (the dict `whowrote predict --json` prints);
        `{"texts": [...]}` answers `{"results": [...]}` in order. Set `"highlight": true` to get
        the character spans (code-point offsets) of the tells too."""
        texts = payload.all_texts()
        where = ["text"] if payload.text is not None else [f"texts[{i}]" for i in range(len(texts))]
        # The event loop only parses and answers: a slow text delays its own answer (up to the
        # timeout), never /healthz or other clients.
        call = partial(work, texts, payload.n_tells, payload.highlight, where)
        try:
            results = await asyncio.wait_for(anyio.to_thread.run_sync(call, limiter=limiter), timeout_s)
        except TimeoutError:
            raise ApiError(504, f"attribution took longer than {timeout_s:g} s") from None
        # Returned as the model gives it (no re-serialisation), so it equals `whowrote predict --json`.
        return JSONResponse(results[0] if payload.text is not None else {"results": results})

    @app.get("/v1/model", response_model=ModelCard, summary="Model card")
    async def get_model() -> dict[str, Any]:
        """Version, classes, training data summary, metrics and the features behind the tells."""
        return card

    @app.get("/healthz", response_model=Health, summary="Liveness")
    async def healthz() -> dict[str, Any]:
        return {"status": "ok", "model_version": version}

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(str(STATIC_DIR / "index.html"), media_type="text/html",
                            headers={"Content-Security-Policy": PAGE_CSP})

    app.mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static")
    return app
