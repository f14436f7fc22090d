"""The ASGI app: JSON API over a :class:`whowrote.style.StyleModel` and the page that shows it.

``create_app(model)`` takes any object with ``attribute(texts) -> [Attribution]`` (each with
``to_dict()``); ``model=None`` loads the bundled default. The CPU work of a request runs in a
:class:`~whowrote.serve.pool.WorkerPool` (``workers`` processes, default one per usable core),
started with the app's lifespan (or by the first request) and stopped with it. Texts live only in
memory for the length of a request: nothing is written to disk and nothing of the text is logged.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from whowrote.formats import conversation_turns, conversation_warning, is_document
from whowrote.serve.card import model_card
from whowrote.serve.limits import BodyLimitMiddleware, SecurityHeadersMiddleware, install_error_handlers
from whowrote.serve.pool import DEFAULT_QUEUE, PoolSettings, WorkerPool, usable_cores
from whowrote.serve.schemas import (
    ERROR_RESPONSES,
    Attribution,
    BatchResult,
    Health,
    ModelCard,
    PredictRequest,
    ReadHtmlRequest,
    ReadHtmlResult,
)
from whowrote.serve.work import ApiError, check_text
from whowrote.style.documents import DocumentError, document_to_markdown
from whowrote.style.html_reader import html_to_markdown
from whowrote.types import WhowroteError

DEFAULT_MAX_BODY_BYTES = 2_000_000
DEFAULT_TIMEOUT_S = 30.0
STATIC_DIR = files("whowrote.serve") / "static"
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
ODT_TYPE = "application/vnd.oasis.opendocument.text"
PDF_TYPE = "application/pdf"
EPUB_TYPE = "application/epub+zip"
RTF_TYPE = "application/rtf"
MSG_TYPE = "application/vnd.ms-outlook"
DOC_TYPE = "application/msword"
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def request_texts(payload: PredictRequest) -> tuple[list[str], list[str], list[list[str]]]:
    """The texts a request attributes, where each came from (for errors) and the warnings each
    answer carries before the model's: a chat log is its assistant turns, with the warning
    ``whowrote predict`` gives a ``messages`` row. Linear in the body, which the body limit bounds."""
    if payload.messages is not None:
        turns = conversation_turns(payload.messages)
        if turns is None:
            raise ApiError(422, "messages is not a list of chat turns (each an object with a string "
                                "'role', 'from' or 'sender' and its text in 'content', 'value', 'parts' or 'text')")
        text, n_assistant, n_user = turns
        if not n_assistant:
            raise ApiError(422, "messages has no assistant turn to attribute")
        return [text], ["messages"], [[conversation_warning("messages", n_assistant, n_user)]]
    texts = [payload.text] if payload.text is not None else list(payload.texts or [])
    where = [f"texts[{i}]" for i in range(len(texts))] if payload.texts is not None else ["text"]
    return texts, where, [[] for _ in texts]


def create_app(model: Any = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
               timeout_s: float = DEFAULT_TIMEOUT_S, workers: int | None = None,
               queue: int = DEFAULT_QUEUE) -> FastAPI:
    """Build the app. ``model=None`` loads the bundled default model now (not per request).
    ``workers``: processes for the CPU work (``None``: one per usable core; 0: a thread of this
    process); ``queue``: how many more requests may wait for one (503 beyond). Bad settings
    raise :class:`WhowroteError` with one line."""
    if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int) or max_body_bytes < 1:
        raise WhowroteError(f"--max-body-mb must give at least 1 byte, not {max_body_bytes!r}")
    settings = PoolSettings(usable_cores() if workers is None else workers, queue, timeout_s)
    if model is None:
        from whowrote.style import load_model

        model = load_model()
    card = model_card(model)
    version = card["version"]
    pool = WorkerPool(model, settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await pool.start()  # every worker has loaded the model before the first request
        try:
            yield
        finally:
            await pool.close()

    app = FastAPI(
        title="whowrote",
        version=version,
        summary="Name the AI assistant (CLAUDE, CHATGPT, GEMINI or OTHER) that wrote a text, and say why.",
        docs_url=None, redoc_url=None,  # the Swagger UI would load assets from a CDN
        lifespan=lifespan,
    )
    app.state.model = model
    app.state.pool = pool
    install_error_handlers(app)
    app.add_middleware(BodyLimitMiddleware, max_bytes=max_body_bytes)

    app.add_middleware(SecurityHeadersMiddleware)

    @app.post("/v1/predict", response_model=None, summary="Attribute one text or a batch",
              responses={200: {"model": Attribution | BatchResult, "description": "Attribution(s)"},
                         **ERROR_RESPONSES})
    async def predict(payload: PredictRequest) -> Response:
        """`{"text": ...}` answers one attribution (the dict `whowrote predict --json` prints);
        `{"texts": [...]}` answers `{"results": [...]}` in order; `{"messages": [...]}` (one chat
        log) answers the attribution of its assistant turns. Set `"highlight": true` to get the
        character spans (code-point offsets) of the tells too (`text` / `texts` only), and
        `"among": ["CLAUDE", "CHATGPT", "GEMINI"]` to assume the text is by one of those labels."""
        texts, where, notes = request_texts(payload)
        # The event loop only parses and answers: the checks, the model, the spans and the JSON
        # rendering run in a worker process under the timeout, so a slow text delays its own
        # answer, never /healthz or other clients. The body is what JSONResponse would render.
        body = await pool.run(texts, payload.n_tells, payload.highlight, where, payload.texts is not None, notes,
                              payload.among)
        return Response(body, media_type="application/json")

    @app.post("/v1/read-html", response_model=ReadHtmlResult, summary="HTML read as the Markdown it displays",
              responses=ERROR_RESPONSES)
    async def read_html(payload: ReadHtmlRequest) -> dict[str, str]:
        """The page's text as the model reads an HTML input: the page pastes formatted text (the
        clipboard's HTML) through this, so its headings, lists and bold stay visible to the model
        (a browser's plain-text copy drops them). Linear in the body, which the body limit bounds."""
        check_text(payload.html, "html")
        return {"text": await run_in_threadpool(html_to_markdown, payload.html)}

    @app.post("/v1/read-document", response_model=ReadHtmlResult, summary="A Word, OpenDocument, PDF, EPUB or RTF document or an Outlook message read as the Markdown it shows",
              responses=ERROR_RESPONSES, openapi_extra={"requestBody": {"required": True, "content": {
                  kind: {"schema": {"type": "string", "format": "binary"}} for kind in (DOCX_TYPE, DOC_TYPE, ODT_TYPE, PDF_TYPE, EPUB_TYPE, RTF_TYPE, MSG_TYPE)}}})
    async def read_document(request: Request) -> dict[str, str]:
        """The body is a .docx, .doc, .odt, .pdf, .epub, .rtf or .msg file's bytes; the answer is its text as ``whowrote predict``
        reads the file (headings, lists, emphasis, tables, code and links as Markdown). The page
        sends a dropped or opened document through this. Bounded by the body limit and the
        reader's caps."""
        raw = await request.body()
        if not is_document(raw):
            raise ApiError(422, "the body is not a Word, OpenDocument, PDF, EPUB or RTF document or an Outlook message (.docx, .doc, .odt, .pdf, .epub, .rtf, .msg): send the file's bytes")
        try:
            text, _ = await run_in_threadpool(document_to_markdown, raw)
        except DocumentError as e:
            raise ApiError(422, str(e)) from None
        check_text(text, "the document's text")
        return {"text": text}

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
