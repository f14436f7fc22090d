"""The generation plan: a typed TOML file naming topics, models, genres, lengths and settings.

A plan expands into **cells** (model × genre × topic × length × sample). Each cell has a stable
id computed from what it asks for (model, genre, prompt id, category, topic, length, sample), so
a re-run skips the cells already written and an edited prompt template makes new cells rather
than silently mixing two prompts under one id. See docs/generate.md for every key.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from whowrote.data.providers import ProviderMap, parse_rules
from whowrote.types import WhowroteError

APIS = ("openai", "anthropic", "google", "openai-compatible", "transformers", "vllm")
LOCAL_APIS = ("transformers", "vllm")
# Where a model's API is not named, the provider rules pick it (CLAUDE -> anthropic, ...).
API_OF_PROVIDER = {"CLAUDE": "anthropic", "CHATGPT": "openai", "GEMINI": "google"}
KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "google": "GEMINI_API_KEY"}

# Built-in prompt templates (a plan may override any of them or add genres of its own).
# They ask for the text only: no title block, no YAML, no mention of who wrote it.
DEFAULT_TEMPLATES = {
    "blog": ("Write a blog post of about {words} words on this topic: {topic}\n"
             "The blog's subject area is {category}. Write it in Markdown for a thoughtful general "
             "audience. Output only the post itself."),
    "essay": ("Write an essay of about {words} words on this question: {topic}\n"
              "Subject area: {category}. Argue a clear position and engage with the strongest "
              "objections. Output only the essay."),
    "story": ("Write a short story of about {words} words inspired by this premise: {topic}\n"
              "Genre or setting: {category}. Output only the story."),
    "explanation": ("Explain the following to an interested reader in about {words} words: {topic}\n"
                    "Field: {category}. Be accurate and concrete. Output only the explanation."),
}
DEFAULT_LENGTHS = {"short": 2500, "long": 5500}  # research spec §1.1 buckets (words)
TOPIC_PROPOSAL_PROMPT = (
    "List {n} distinct, specific topics for long-form {genre} pieces in the area \"{category}\". "
    "One topic per line, no numbering, no commentary.")


@dataclass(frozen=True)
class Sampling:
    """Sampling settings; ``None`` means "not sent" (some models refuse temperature or top_p)."""

    temperature: float | None = 1.0
    top_p: float | None = None
    seed: int | None = None

    def merged(self, over: dict[str, Any]) -> Sampling:
        return Sampling(**{**self.__dict__, **over})


@dataclass(frozen=True)
class ModelSpec:
    name: str  # the id sent to the API and written as ``model``
    api: str
    provider: str
    base_url: str | None = None
    api_key_env: str | None = None
    path: str | None = None  # local backends: HF id, folder or GGUF file
    sampling: Sampling = field(default_factory=Sampling)
    extra: dict[str, Any] = field(default_factory=dict)  # passed through to the API body / backend
    extra_output_tokens: int = 0  # for thinking models: their reasoning spends the output budget
    price_in: float | None = None  # USD per million tokens, for the dry-run estimate
    price_out: float | None = None
    batch_size: int = 8

    @property
    def group(self) -> str:
        """The concurrency group: an API, an endpoint URL, or one local model."""
        if self.api in LOCAL_APIS:
            return f"{self.api}:{self.name}"
        return f"{self.api}:{self.base_url}" if self.api == "openai-compatible" else self.api

    @property
    def key_env(self) -> str | None:
        return self.api_key_env or KEY_ENV.get(self.api)


@dataclass(frozen=True)
class Genre:
    name: str
    template: str
    prompt_id: str
    system: str | None = None
    lengths: tuple[str, ...] | None = None  # None: every bucket


@dataclass(frozen=True)
class Topic:
    category: str
    topic: str


@dataclass(frozen=True)
class Cell:
    id: str
    model: ModelSpec
    genre: Genre
    topic: Topic
    length: str
    words: int
    max_tokens: int
    sample: int

    @property
    def prompt(self) -> str:
        return self.genre.template.format(words=self.words, topic=self.topic.topic,
                                          category=self.topic.category, genre=self.genre.name)


@dataclass(frozen=True)
class TopicProposal:
    """``categories × per_category`` topics, asked of one of the plan's models before generating."""

    categories: tuple[str, ...]
    per_category: int
    model: str
    genre: str


@dataclass(frozen=True)
class Plan:
    name: str
    models: tuple[ModelSpec, ...]
    genres: tuple[Genre, ...]
    lengths: dict[str, int]
    max_tokens: dict[str, int]
    samples: int
    topics: tuple[Topic, ...]
    proposal: TopicProposal | None
    concurrency: dict[str, int]
    max_retries: int = 4
    timeout_s: float = 600.0
    initial_delay_s: float = 1.0
    drop: tuple[str, ...] = ("self_identification", "metadata_line", "names_own_model", "empty")
    source: str = ""

    def concurrency_of(self, group: str) -> int:
        api = group.split(":", 1)[0]
        return max(1, int(self.concurrency.get(group, self.concurrency.get(api, self.concurrency.get("default", 4)))))

    def model(self, name: str) -> ModelSpec:
        for m in self.models:
            if m.name == name:
                return m
        raise WhowroteError(f"plan names model {name!r}, which is not in [[models]]")


def cell_id(model: str, genre: Genre, topic: Topic, length: str, sample: int) -> str:
    key = json.dumps([model, genre.name, genre.prompt_id, topic.category, topic.topic, length, sample])
    return "gen-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


def cells(plan: Plan, topics: tuple[Topic, ...] | None = None) -> list[Cell]:
    """Every cell of the plan, in a stable order (model, genre, topic, length, sample)."""
    topics = plan.topics if topics is None else topics
    out = []
    for m in plan.models:
        for g in plan.genres:
            for t in topics:
                for length in g.lengths or tuple(plan.lengths):
                    for s in range(plan.samples):
                        out.append(Cell(cell_id(m.name, g, t, length, s), m, g, t, length, plan.lengths[length],
                                        plan.max_tokens[length] + m.extra_output_tokens, s))
    return out


def load_plan(path: str | Path) -> Plan:
    """Read and check a plan file; every mistake is one ``WhowroteError`` line naming the key."""
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WhowroteError(f"plan not found: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise WhowroteError(f"{path}: cannot read plan ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise WhowroteError(f"{path}: not valid TOML ({e})") from None
    try:
        return _parse(raw, path)
    except (TypeError, ValueError, KeyError) as e:
        raise WhowroteError(f"{path}: {e}") from None


def _parse(raw: dict, path: Path) -> Plan:
    known = {"name", "models", "genres", "lengths", "samples", "topics", "sampling", "concurrency", "retry",
             "hygiene", "provider_rules"}
    _no_unknown(raw, known, "plan")
    pmap = ProviderMap(parse_rules(raw.get("provider_rules", [])))
    base = Sampling().merged(_sampling(_table(raw, "sampling", {"temperature", "top_p", "seed"}), "sampling"))
    models = tuple(_model(m, pmap, base) for m in raw.get("models", []))
    if not models:
        raise ValueError("no [[models]] given")
    if len({m.name for m in models}) != len(models):
        raise ValueError("a model is listed twice in [[models]]")

    lengths, max_tokens = dict(DEFAULT_LENGTHS), {}
    if "lengths" in raw:
        lengths = {}
        for name, spec in raw["lengths"].items():
            spec = spec if isinstance(spec, dict) else {"words": spec}
            _no_unknown(spec, {"words", "max_tokens"}, f"[lengths.{name}]")
            lengths[name] = _positive(spec.get("words"), f"lengths.{name}.words")
            if "max_tokens" in spec:
                max_tokens[name] = _positive(spec["max_tokens"], f"lengths.{name}.max_tokens")
    # ~1.3 tokens per English word; twice that plus slack keeps a normal-length answer untruncated.
    max_tokens = {n: max_tokens.get(n, 2 * w + 1024) for n, w in lengths.items()}

    genres = []
    for name, spec in (raw.get("genres") or {"blog": {}}).items():
        _no_unknown(spec, {"template", "prompt_id", "system", "lengths"}, f"[genres.{name}]")
        template = spec.get("template") or DEFAULT_TEMPLATES.get(name)
        if not template:
            raise ValueError(f"[genres.{name}] needs a template (built-in ones: {', '.join(DEFAULT_TEMPLATES)})")
        try:
            template.format(words=1, topic="t", category="c", genre="g")
        except (KeyError, IndexError, ValueError) as e:
            raise ValueError(f"[genres.{name}] template: bad placeholder {e} (use {{words}}, {{topic}}, "
                             "{category}, {genre})") from None
        glen = tuple(spec["lengths"]) if "lengths" in spec else None
        for length in glen or ():
            if length not in lengths:
                raise ValueError(f"[genres.{name}] lengths: {length!r} is not in [lengths]")
        default_id = f"{name}-builtin-v1" if "template" not in spec else f"{name}-" + hashlib.sha256(
            template.encode()).hexdigest()[:8]
        genres.append(Genre(name, template, str(spec.get("prompt_id", default_id)), spec.get("system"), glen))

    topics, proposal = _topics(raw.get("topics"), path, [g.name for g in genres])
    if proposal is not None and proposal.model not in {m.name for m in models}:
        raise ValueError(f"[topics] model {proposal.model!r} is not in [[models]]")
    retry = _table(raw, "retry", {"max_retries", "timeout_s", "initial_delay_s"})
    hygiene = _table(raw, "hygiene", {"drop"})
    if "drop" in hygiene:
        from whowrote.data.audit import KINDS

        bad = sorted(set(hygiene["drop"]) - set(KINDS))
        if bad:
            raise ValueError(f"[hygiene] drop: unknown kinds {bad} (known: {', '.join(KINDS)})")
    concurrency = {str(k): _positive(v, f"concurrency.{k}") for k, v in (raw.get("concurrency") or {}).items()}
    return Plan(
        name=str(raw.get("name", path.stem)), models=models, genres=tuple(genres), lengths=lengths,
        max_tokens=max_tokens, samples=_positive(raw.get("samples", 1), "samples"), topics=topics,
        proposal=proposal, concurrency=concurrency,
        max_retries=_count(retry.get("max_retries", 4), "retry.max_retries"),
        timeout_s=_number(retry.get("timeout_s", 600.0), "retry.timeout_s", positive=True),
        initial_delay_s=_number(retry.get("initial_delay_s", 1.0), "retry.initial_delay_s"),
        drop=tuple(hygiene.get("drop", Plan.drop)), source=str(path),
    )


def _model(spec: dict, pmap: ProviderMap, base: Sampling) -> ModelSpec:
    keys = {"name", "api", "base_url", "api_key_env", "path", "sampling", "extra", "extra_output_tokens",
            "price", "batch_size"}
    _no_unknown(spec, keys, "[[models]]")
    if "name" not in spec:
        raise ValueError("a [[models]] entry has no name")
    name = str(spec["name"])
    provider = pmap(name)
    api = spec.get("api") or API_OF_PROVIDER.get(provider)
    if api is None:
        raise ValueError(f"model {name!r} ({provider}): say which api serves it "
                         f"(api = one of {', '.join(APIS)})")
    if api not in APIS:
        raise ValueError(f"model {name!r}: unknown api {api!r} (choose from {', '.join(APIS)})")
    if api == "openai-compatible" and not spec.get("base_url"):
        raise ValueError(f"model {name!r}: an openai-compatible model needs base_url")
    if api in LOCAL_APIS and not spec.get("path"):
        raise ValueError(f"model {name!r}: a {api} model needs path (HF id, folder or .gguf)")
    sampling = spec.get("sampling", {})
    _no_unknown(sampling, {"temperature", "top_p", "seed"}, f"model {name!r} sampling")
    _sampling(sampling, f"model {name!r} sampling")
    price = spec.get("price", {})
    _no_unknown(price, {"input", "output"}, f"model {name!r} price")
    for key, value in price.items():
        _number(value, f"model {name!r} price.{key}")
    return ModelSpec(
        name=name, api=api, provider=provider, base_url=spec.get("base_url"), api_key_env=spec.get("api_key_env"),
        path=spec.get("path"), sampling=base.merged(sampling), extra=dict(spec.get("extra", {})),
        extra_output_tokens=_count(spec.get("extra_output_tokens", 0), f"model {name!r} extra_output_tokens"),
        price_in=price.get("input"), price_out=price.get("output"), batch_size=_positive(spec.get("batch_size", 8),
                                                                                         "batch_size"))


def _topics(spec: dict | None, plan_path: Path, genres: list[str]) -> tuple[tuple[Topic, ...], TopicProposal | None]:
    if not spec:
        raise ValueError("no [topics] given (file = ..., [topics.inline], or categories + per_category + model)")
    _no_unknown(spec, {"file", "inline", "categories", "per_category", "model", "genre"}, "[topics]")
    topics: list[Topic] = []
    if "file" in spec:
        topics += read_topics(plan_path.parent / spec["file"])
    for category, items in (spec.get("inline") or {}).items():
        topics += [Topic(str(category), str(t)) for t in items]
    proposal = None
    if "categories" in spec:
        if "model" not in spec:
            raise ValueError("[topics] categories need model = (the plan model that proposes the topics)")
        proposal = TopicProposal(tuple(map(str, spec["categories"])), _positive(spec.get("per_category", 10),
                                 "topics.per_category"), str(spec["model"]), str(spec.get("genre", genres[0])))
    if not topics and proposal is None:
        raise ValueError("[topics] gives no topics")
    seen: dict[tuple[str, str], Topic] = {}
    for t in topics:
        seen.setdefault((t.category, t.topic), t)
    return tuple(seen.values()), proposal


def read_topics(path: Path) -> list[Topic]:
    """Topics from a file: ``.jsonl`` / ``.csv`` with ``topic`` and ``category`` columns, or text
    lines ``category<TAB>topic`` (a line without a tab is a topic in category ``general``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"topics file {path}: cannot read ({e})") from None
    rows: list[dict] = []
    if path.suffix == ".jsonl":
        for i, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    raise ValueError(f"topics file {path}:{i}: not JSON") from None
    elif path.suffix == ".csv":
        rows = list(csv.DictReader(text.splitlines()))
    else:
        for line in text.splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                cat, tab, topic = line.partition("\t")
                rows.append({"category": cat, "topic": topic} if tab else {"category": "general", "topic": line})
    out = []
    for i, r in enumerate(rows, 1):
        if not isinstance(r, dict) or not str(r.get("topic") or "").strip():
            raise ValueError(f"topics file {path}: row {i} has no topic")
        out.append(Topic(str(r.get("category") or "general").strip(), str(r["topic"]).strip()))
    if not out:
        raise ValueError(f"topics file {path} holds no topics")
    return out


def _table(raw: dict, key: str, allowed: set[str]) -> dict:
    value = raw.get(key, {})
    if not isinstance(value, dict):
        raise ValueError(f"[{key}] must be a table")
    _no_unknown(value, allowed, f"[{key}]")
    return value


def _no_unknown(spec: Any, allowed: set[str], where: str) -> None:
    if not isinstance(spec, dict):
        raise ValueError(f"{where} must be a table")
    bad = sorted(set(spec) - allowed)
    if bad:
        raise ValueError(f"{where}: unknown key(s) {', '.join(bad)} (known: {', '.join(sorted(allowed))})")


def _sampling(values: dict, where: str) -> dict:
    """``values`` (a [sampling] table), each setting checked: temperature >= 0, top_p in (0, 1], seed >= 0."""
    if "temperature" in values:
        _number(values["temperature"], f"{where}.temperature")
    if "top_p" in values:
        _number(values["top_p"], f"{where}.top_p", positive=True, at_most=1.0)
    if "seed" in values:
        _count(values["seed"], f"{where}.seed")
    return values


def _number(value: Any, where: str, *, positive: bool = False, at_most: float | None = None) -> float:
    """A finite number >= 0 (> 0 when ``positive``; <= ``at_most`` when given)."""
    ok = (not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)
          and (value > 0 if positive else value >= 0) and (at_most is None or value <= at_most))
    if not ok:
        want = ("a number > 0" if positive else "a number >= 0") + (f" and <= {at_most:g}" if at_most is not None else "")
        raise ValueError(f"{where} must be {want} (got {value!r})")
    return float(value)


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{where} must be an integer >= 0 (got {value!r})")
    return value


def _positive(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{where} must be a positive integer (got {value!r})")
    return value
