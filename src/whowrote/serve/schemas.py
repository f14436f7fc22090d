"""Request and response shapes of the JSON API; FastAPI builds ``/openapi.json`` from these.

A single-text answer is exactly the dict ``whowrote predict --json`` prints for that text
(``Attribution.to_dict()`` of :mod:`whowrote.style`), optionally with ``highlights`` added when
the request asks for them. Extra keys the model adds later pass through (``extra="allow"``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, model_validator

Label = Literal["CLAUDE", "CHATGPT", "GEMINI", "OTHER"]
MAX_TEXTS = 64
MAX_TURNS = 1000


class PredictRequest(BaseModel):
    """One text (``text``), a batch (``texts``) or one chat log (``messages``): exactly one of them."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"text": "# A heading\n\nA blog-length text..."},
                                        {"texts": ["first text...", "second text..."]},
                                        {"messages": [{"role": "user", "content": "a question..."},
                                                      {"role": "assistant", "content": "an answer..."}]}]},
    )

    text: StrictStr | None = Field(None, description="One text to attribute (Markdown or plain).")
    texts: Annotated[list[StrictStr], Field(min_length=1, max_length=MAX_TEXTS)] | None = Field(
        None, description=f"A batch of 1..{MAX_TEXTS} texts; the answer is `{{\"results\": [...]}}` in order."
    )
    messages: Annotated[list[dict[str, Any]], Field(min_length=1, max_length=MAX_TURNS)] | None = Field(
        None, description=(
            "One conversation as a list of turns (OpenAI / Hugging Face `role` + `content`, ShareGPT "
            "`from` + `value`, Gemini `role: model` + `parts`, Claude's export `sender` + `text`): its "
            "assistant turns are attributed, "
            "joined by a blank line, with a warning saying so (what `whowrote predict` does with a "
            "`messages` row). Not with `highlight`."))
    n_tells: int | None = Field(None, ge=0, le=20, strict=True, description=(
        "How many tells per text (like `whowrote predict --explain N`); default: the model's (5)."))
    among: Annotated[list[Label], Field(min_length=2, max_length=4)] | None = Field(None, description=(
        "Assume the text is by one of these labels (like `whowrote predict --among`), e.g. "
        "`[\"CLAUDE\", \"CHATGPT\", \"GEMINI\"]`: the probabilities are conditioned on it and the others are 0; a "
        "text by another model still gets one of them."))
    highlight: StrictBool = Field(
        False, description="Also return `highlights`: character spans of the tells, for a UI to mark."
    )

    @model_validator(mode="after")
    def _one_of(self) -> PredictRequest:
        if sum(x is not None for x in (self.text, self.texts, self.messages)) != 1:
            raise ValueError('give exactly one of "text", "texts" or "messages"')
        if self.among is not None and len(set(self.among)) < 2:
            raise ValueError('"among" needs two or more different labels')
        if self.messages is not None and self.highlight:
            # Spans count code points of a submitted text; the joined assistant turns are not one.
            raise ValueError('"highlight" needs "text" or "texts": send the assistant\'s text as "text" for its spans')
        return self


class ReadHtmlRequest(BaseModel):
    """An HTML page or fragment, e.g. what a browser's clipboard holds for copied formatted text."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"html": "<h2>A heading</h2><ul><li>a point</li></ul>"}]})

    html: StrictStr = Field(..., description="HTML to read (a page or a fragment; not sniffed: always read as HTML).")


class ReadHtmlResult(BaseModel):
    text: str = Field(..., description="Its visible text with headings, lists, emphasis, tables, code and links "
                                       "written as Markdown: what the model reads for it.")


class Tell(BaseModel):
    """One stylistic tell: its value in this text against each provider's typical value."""

    model_config = ConfigDict(extra="allow")

    feature: str = Field(description="Feature name (stable id).")
    label: str = Field(description="Human-readable name.")
    value: float | None = Field(None, description="The feature's value in this text.")
    unit: str | None = Field(None, description='Unit of `value` and `norms`, e.g. "per 1,000 characters".')
    norms: dict[str, float | None] = Field(default_factory=dict,
                                           description="Typical value per provider (training data).")
    favours: str | None = Field(None, description="The provider this tell points to.")
    contribution: float | None = Field(None, description="How much it moved the decision.")
    versus: str | None = Field(None, description="The runner-up provider the tell weighs against.")
    cue: str | None = Field(None, description='The habit it measures (one tell per cue), e.g. "bullets".')
    fragile: bool = Field(False, description=(
        "True when an everyday edit (Markdown stripped on paste, an editor's typography) can erase or "
        "move it; on a text with headings, lists or tables this includes the plain-text cues the Markdown "
        "edits move."))
    sentence: str | None = Field(None, description=(
        "The tell in words, e.g. \"em-dashes: 6.1 per 1,000 characters, typical of CLAUDE (1.9) vs CHATGPT (0.1)\"."))


class Highlight(BaseModel):
    """A span of the submitted text that shows a tell; offsets count Unicode code points."""

    feature: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)


class Attribution(BaseModel):
    """The attribution of one text (same keys as ``whowrote predict --json``)."""

    model_config = ConfigDict(extra="allow")

    provider: Label = Field(description=(
        "The most probable label (even when `uncertain`); OTHER with uniform probabilities when nothing "
        "could be attributed."))
    uncertain: bool = Field(False, description="True when the decision is not confident.")
    confidence: float | None = Field(None, description="The probability of `provider`.")
    probabilities: dict[str, float] = Field(description="Probability per label (sums to 1).")
    tells: list[Tell] = Field(default_factory=list, description="Top tells, strongest first.")
    n_words: int = Field(0, description="Word count of the text.")
    warnings: list[str] = Field(default_factory=list, description="E.g. short-text warnings.")
    highlights: list[Highlight] | None = Field(None, description="Only when the request set `highlight`.")


class BatchResult(BaseModel):
    results: list[Attribution]


class ModelCard(BaseModel):
    """What the served model is and how well it did."""

    model_config = ConfigDict(extra="allow")

    name: str
    version: str
    classes: list[str]
    params: dict[str, object] = Field(default_factory=dict, description="The model's settings.")
    training_data: dict[str, object] = Field(default_factory=dict)
    metrics: dict[str, object] = Field(default_factory=dict)
    features: list[dict[str, object]] = Field(default_factory=list)


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    model_version: str


class ErrorBody(BaseModel):
    """Every error answer: one line of JSON."""

    error: str


ERROR_RESPONSES: dict[int | str, dict[str, object]] = {
    code: {"model": ErrorBody, "description": desc}
    for code, desc in {
        400: "Malformed JSON or undecodable body",
        413: "Body larger than the limit",
        415: "Content-Type is not application/json",
        422: "Wrong types, empty or binary text",
        500: "Internal error, or the worker process died during the request (a new one is started)",
        503: "Too many requests in progress or waiting (the pool's queue is full), or shutting down",
        504: "Attribution took longer than the per-request timeout",
    }.items()
}
