"""Safety limits: body size, security headers and one-line JSON errors for every failure (the text checks,
``check_text``, live in :mod:`whowrote.serve.work`, which the worker processes import).

Error messages never echo the submitted text (it is not logged or written anywhere either).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from whowrote.serve.work import ApiError
from whowrote.types import WhowroteError

log = logging.getLogger("whowrote.serve")

def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(message).split())}, status_code=status, headers=headers)


class BodyLimitMiddleware:
    """Answer 413 when a request body is larger than ``max_bytes`` (declared or streamed)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > self.max_bytes
            except ValueError:
                await error_response(400, "invalid Content-Length")(scope, receive, send)
                return
            if too_big:
                await self._reject(scope, receive, send)
                return
        # Read the whole body (bounded) before the app sees it, then replay it.
        chunks: list[bytes] = []
        received = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body = message.get("body", b"")
            received += len(body)
            if received > self.max_bytes:
                await self._reject(scope, receive, send)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _reject(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(413, f"request body larger than {self.max_bytes} bytes",
                                  headers={"Connection": "close"})
        await response(scope, receive, send)


SECURITY_HEADERS = ((b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
                    (b"cache-control", b"no-store"))


class SecurityHeadersMiddleware:
    """Adds :data:`SECURITY_HEADERS` to every answer that lacks them. Plain ASGI, not
    ``@app.middleware("http")``, whose per-request streams cost the server process CPU."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                present = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


def _validation_message(exc: RequestValidationError) -> tuple[int, str]:
    errors = exc.errors()
    invalid = next((e for e in errors if e.get("type") == "json_invalid"), None)
    if invalid is not None:
        return 400, f"malformed JSON: {invalid.get('ctx', {}).get('error')}".rstrip(": ")
    parts = []
    for e in errors[:3]:
        loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
        parts.append(f"{loc}: {e.get('msg', 'invalid')}")
    return 422, "; ".join(parts)


def install_error_handlers(app: FastAPI) -> None:
    """Every failure becomes ``{"error": "..."}`` on one line; the server keeps serving."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.message)

    @app.exception_handler(WhowroteError)
    async def _user_error(request: Request, exc: WhowroteError) -> JSONResponse:
        return error_response(422, str(exc))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        ctype = request.headers.get("content-type", "")
        if request.method == "POST" and "json" not in ctype.lower():
            return error_response(415, "Content-Type must be application/json")
        status, message = _validation_message(exc)
        return error_response(status, message)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail: Any = exc.detail
        if exc.status_code == 400 and "parsing the body" in str(detail):
            detail = "could not decode the body as UTF-8 JSON"
        return error_response(exc.status_code, str(detail), headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("internal error on %s %s: %s", request.method, request.url.path, type(exc).__name__)
        return error_response(500, f"internal error ({type(exc).__name__})")
