"""Raw tables -> the one clean corpus table (``whowrote.types.CORPUS_COLUMNS`` + extra metadata).

Column meaning is auto-detected from common names and can be overridden with ``columns=``
(e.g. ``{"text": "body", "model": "generator"}``). The HF ``question/answer/info`` layout is
understood too (``info`` keys are flattened into columns).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from whowrote.data.clean import strip_frontmatter
from whowrote.data.providers import ProviderMap
from whowrote.data.readers import expand_sources, read_source
from whowrote.formats import (
    CHAT_ASSISTANT_ROLES,
    COLUMN_CANDIDATES,
    CONVERSATION_COLUMNS,
    conversation_turns,
    mapping_turns,
)
from whowrote.types import CORPUS_COLUMNS, LABELS, OTHER, WhowroteError

# Provider columns sometimes hold company names.
PROVIDER_ALIASES = {"ANTHROPIC": "CLAUDE", "OPENAI": "CHATGPT", "GPT": "CHATGPT", "GOOGLE": "GEMINI"}
# A row longer than this is a dump, not a document (the longest real texts are ~100k characters).
MAX_TEXT_CHARS = 2_000_000

# The assistants' data exports (conversations.json), by the column that holds their turns.
EXPORT_MAKERS = {"mapping": "ChatGPT", "chat_messages": "Claude", "safeHtmlItem": "Gemini"}
EXPORT_MODEL = {"chat_messages": "claude", "safeHtmlItem": "gemini"}  # exports that name no model version
# File stems of the shared corpus -> the genre name used in leave-one-genre-out splits.
GENRE_OF_STEM = {"blogs": "blog", "debates": "debate", "fiction": "fiction", "longform": "longform"}


def load_corpus(
    paths: str | Path | Sequence[str | Path],
    columns: Mapping[str, str] | None = None,
    genre: str | None = None,
    provider_rules: Iterable[tuple[str, str]] = (),
    keep_frontmatter: bool = False,
    on_source: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    """Read one or more corpora into one table with columns ``CORPUS_COLUMNS`` first.

    - ``genre``: the corpus-level genre for every row; by default taken from the file name
      (``blogs.jsonl`` -> ``blog``) or ``"text"``. A source ``genre`` column that holds finer
      labels (fiction sub-genres, longform steps) is kept as ``subgenre``.
    - ``provider``: from the model name by :class:`ProviderMap` rules when a model is known;
      a source provider/label column is used only where no model name is given.
    - ``category`` defaults to the sub-genre or the genre; ``topic`` to the id (each text its own
      topic) so that splits stay honest when a corpus has no topic column.
    - ``on_source(name)`` is called after each source is read (for progress displays).
    """
    if isinstance(paths, str | Path):
        paths = [paths]
    paths = expand_sources(list(paths))
    if not paths:
        raise WhowroteError("no corpus given")
    provider_map = ProviderMap(provider_rules)
    frames = []
    for p in paths:
        frames.append(normalise(read_source(p), source=str(p), columns=columns, genre=genre,
                                provider_map=provider_map, keep_frontmatter=keep_frontmatter))
        if on_source is not None:
            on_source(str(p))
    notes = [note for frame in frames for note in frame.attrs.get("load_notes", [])]
    corpus = pd.concat(frames, ignore_index=True)
    if corpus.empty:
        raise WhowroteError("corpus is empty: no rows with text were found")
    dup = corpus["id"].duplicated(keep=False)
    if dup.any():  # ids must be unique across sources; qualify clashing ones by genre
        corpus.loc[dup, "id"] = corpus.loc[dup, "genre"] + ":" + corpus.loc[dup, "id"]
    again = corpus["id"].duplicated(keep="first")
    if again.any():  # still clashing (duplicate ids inside one source): number them
        corpus.loc[again, "id"] = corpus.loc[again, "id"] + "#" + corpus.groupby("id").cumcount()[again].astype(str)
        notes.append(f"{int(again.sum())} duplicate ids renamed with a #n suffix")
    corpus.attrs["load_notes"] = notes
    return corpus


def normalise(
    raw: pd.DataFrame,
    source: str,
    columns: Mapping[str, str] | None = None,
    genre: str | None = None,
    provider_map: ProviderMap | None = None,
    keep_frontmatter: bool = False,
) -> pd.DataFrame:
    """One raw table -> corpus columns (see :func:`load_corpus`)."""
    provider_map = provider_map or ProviderMap()
    raw = _flatten_info(raw)
    if raw.empty:
        raise WhowroteError(f"{source}: corpus is empty")
    chosen = _choose_columns(raw, columns or {}, source)
    out = pd.DataFrame(index=raw.index)
    notes: list[str] = []
    if chosen["text"] in EXPORT_MAKERS and not chosen.get("model") and not chosen.get("provider"):
        raw = raw.assign(model=_export_models(raw, chosen["text"], provider_map))  # an assistant's own export labels itself
        chosen["model"] = "model"
        if chosen["text"] == "safeHtmlItem":  # Gemini's answers are HTML: train-probe reads them as Markdown
            raw = raw.assign(markup="html")
        raw.attrs["genre"] = raw.attrs.get("genre") or "chat"
        notes.append(f"{source}: {EXPORT_MAKERS[chosen['text']]}'s data export: each conversation labelled by "
                     "its maker" + ("" if chosen["text"] in EXPORT_MODEL else " and the model most of its answers name"))
    text, n_conversations = _assistant_sides(raw[chosen["text"]])
    if n_conversations:
        notes.append(f"{source}: {n_conversations} chat-format records ({chosen['text']!r}) read by their "
                     "assistant turns (the user's dropped)")
    out["text"] = _text_column(text, source)
    if not keep_frontmatter:
        had = out["text"].str.startswith("---")
        out["text"] = out["text"].map(strip_frontmatter)
        stripped = int((had & ~out["text"].str.startswith("---")).sum())
        if stripped:
            notes.append(f"{source}: YAML frontmatter stripped from {stripped} texts")

    stem = Path(source).name.split(".")[0]
    # A reader that knows its genre (a FastChat benchmark folder) says so in ``attrs``.
    out["genre"] = genre or raw.attrs.get("genre") or GENRE_OF_STEM.get(stem, stem if Path(source).exists() else "text")
    extra_genre = chosen.get("genre")
    subgenre = None
    if extra_genre and "subgenre" in raw.columns and not genre:
        # Files this package wrote: ``genre`` is already the corpus genre, ``subgenre`` the finer one.
        out["genre"] = _strings(raw[extra_genre]).fillna(out["genre"])
        subgenre = _strings(raw["subgenre"])
        subgenre = None if subgenre.isna().all() else subgenre
    elif extra_genre:
        subgenre = _strings(raw[extra_genre]).fillna(out["genre"])

    model = raw[chosen["model"]].astype("string").fillna("") if chosen.get("model") else pd.Series("", index=raw.index)
    out["model"] = model.astype(str)
    from_model = out["model"].map(provider_map)
    # A row with neither a model name nor a provider label has no label at all (not OTHER): dropped.
    unlabelled = out["model"].str.strip() == ""
    if chosen.get("provider"):
        given = raw[chosen["provider"]].astype("string").fillna("").str.strip().str.upper()
        unlabelled &= given == ""
        given = given.replace(PROVIDER_ALIASES)
        odd = (given != "") & ~given.isin(LABELS) & (out["model"].str.strip() == "")
        if odd.any():  # only rows the label decides (the model rules win elsewhere)
            seen = given[odd].value_counts()
            notes.append(f"{source}: warning: {int(odd.sum())} rows have a provider label that is not one of "
                         f"{', '.join(LABELS)} and were labelled OTHER: "
                         + ", ".join(f"{label!r} ({n})" for label, n in seen.head(10).items())
                         + (f" and {len(seen) - 10} more labels" if len(seen) > 10 else ""))
        given = given.where(given.isin(LABELS), OTHER)
        out["provider"] = from_model.where(out["model"] != "", given)
        differ = (out["model"] != "") & (given != out["provider"])
        if differ.any():  # keep the source's label where the rules disagree, and say so
            out["source_provider"] = given
            pairs = sorted(set(zip(out["model"][differ], given[differ], strict=True)))[:5]
            notes.append(f"{source}: {int(differ.sum())} rows whose provider column disagrees with the "
                         f"model rules (model rules win), e.g. {pairs}")
    else:
        if not chosen.get("model"):
            raise WhowroteError(f"{source}: no model or provider column (name it with --model-column / columns={{'model': ...}})")
        out["provider"] = from_model

    out["id"] = (
        raw[chosen["id"]].astype(str) if chosen.get("id")
        else [f"{stem}-{_short_hash(t)}-{i}" for i, t in enumerate(out["text"])]
    )
    fallback = subgenre.fillna(out["genre"]) if subgenre is not None else out["genre"]
    out["category"] = _strings(raw[chosen["category"]]).fillna(fallback) if chosen.get("category") else fallback
    # A row without a topic is its own topic, so that splits stay honest.
    out["topic"] = _strings(raw[chosen["topic"]]).fillna(out["id"]) if chosen.get("topic") else out["id"]
    if subgenre is not None:
        out["subgenre"] = subgenre
    used = {c for c in chosen.values() if c}
    for col in raw.columns:  # keep the source's other metadata as it is
        if col not in used and col not in out.columns:
            out[col] = raw[col]
    empty = out["text"].str.strip() == ""
    if empty.any():
        notes.append(f"{source}: {int(empty.sum())} rows with empty text dropped")
    unlabelled &= ~empty
    if unlabelled.any():
        notes.append(f"{source}: {int(unlabelled.sum())} rows with neither a model name nor a provider label dropped")
    empty |= unlabelled
    huge = out["text"].str.len() > MAX_TEXT_CHARS
    if huge.any():
        notes.append(f"{source}: {int(huge.sum())} rows longer than {MAX_TEXT_CHARS:,} characters dropped "
                     "(not one document)")
    out = out[~empty & ~huge].reset_index(drop=True)
    if out.empty and huge.any():
        raise WhowroteError(f"{source}: no usable text: {int(huge.sum())} rows are longer than "
                            f"{MAX_TEXT_CHARS:,} characters (one document each is expected)")
    if out.empty:
        raise WhowroteError(f"{source}: corpus is empty: no row has usable text")
    out = out[[*CORPUS_COLUMNS, *[c for c in out.columns if c not in CORPUS_COLUMNS]]]
    out.attrs["load_notes"] = notes
    return out


def _export_models(raw: pd.DataFrame, column: str, provider_map: ProviderMap) -> pd.Series:
    """The model of each conversation of a data export: a ChatGPT conversation's most common
    ``model_slug`` among its shown answers (else its ``default_model_slug``), prefixed ``chatgpt``
    where the provider rules would not read it as ChatGPT's (``auto``, ``research``); Claude's export
    names no model: ``claude``; nor does Gemini's: ``gemini``."""
    if column in EXPORT_MODEL:
        return pd.Series(EXPORT_MODEL[column], index=raw.index)
    defaults = raw["default_model_slug"] if "default_model_slug" in raw.columns else pd.Series(None, index=raw.index)
    out = []
    for tree, default in zip(raw[column], defaults, strict=True):
        turns = (mapping_turns(tree) or []) if isinstance(tree, dict) else []
        slugs = Counter(t["model"] for t in turns if "model" in t and t["role"] in CHAT_ASSISTANT_ROLES)
        slug = slugs.most_common(1)[0][0] if slugs else default if isinstance(default, str) and default else ""
        out.append(slug if slug and provider_map(slug) == "CHATGPT" else f"chatgpt {slug}".strip())
    return pd.Series(out, index=raw.index)


def _assistant_sides(column: pd.Series) -> tuple[pd.Series, int]:
    """A column of chat-format records (lists of turns or a ChatGPT export's tree,
    :func:`whowrote.formats.conversation_turns`) as their assistant turns, and how many were; any
    other value is left for :func:`_text_column`."""
    as_lists = [v.tolist() if type(v).__name__ == "ndarray" else v for v in column]  # Parquet lists
    if not any(isinstance(v, list | dict) for v in as_lists):
        return column, 0
    turns = [conversation_turns(v) for v in as_lists]
    read = pd.Series([v if t is None else t[0] for v, t in zip(column, turns, strict=True)], index=column.index,
                     name=column.name)
    return read, sum(t is not None for t in turns)


def _text_column(column: pd.Series, source: str) -> pd.Series:
    """The text column as strings; missing values become "" (dropped later). A value of another
    type (a number, a list, bytes, a nested object) is an error: its repr is not the text."""
    def bad(v) -> bool:
        return not isinstance(v, str) and v is not None and not (isinstance(v, float) and v != v) \
            and v is not pd.NA

    wrong = [(i, v) for i, v in enumerate(column) if bad(v)]
    if wrong:
        i, v = wrong[0]
        kind = "list" if isinstance(v, list | tuple) or type(v).__name__ == "ndarray" else type(v).__name__
        raise WhowroteError(f"{source}: text column {column.name!r} holds {len(wrong)} non-string value(s) "
                            f"(first in data row {i + 1}: {kind}); texts must be strings")
    return column.map(lambda t: t if isinstance(t, str) else "")


def _strings(column: pd.Series) -> pd.Series:
    """A column as strings with missing values kept missing (NaN), empty strings too."""
    values = [str(v).strip() if v is not None and v == v else "" for v in column]
    return pd.Series([v or None for v in values], index=column.index, dtype=object)


def _choose_columns(raw: pd.DataFrame, overrides: Mapping[str, str], source: str) -> dict[str, str | None]:
    chosen: dict[str, str | None] = {}
    lower = {c.lower(): c for c in raw.columns if isinstance(c, str)}
    for field, candidates in COLUMN_CANDIDATES.items():
        if field in overrides:
            if overrides[field] not in raw.columns:
                raise WhowroteError(f"{source}: column {overrides[field]!r} not found (has: {', '.join(map(str, raw.columns))})")
            chosen[field] = overrides[field]
        else:
            chosen[field] = next((lower[c] for c in candidates if c in lower), None)
    if chosen["text"] is None and "text" not in overrides:  # a chat log: its turns (see _assistant_sides)
        chosen["text"] = next((lower[c.lower()] for c in CONVERSATION_COLUMNS if c.lower() in lower), None)
    if chosen["text"] is None:
        raise WhowroteError(f"{source}: no text column found (looked for {', '.join(COLUMN_CANDIDATES['text'])}, "
                            f"and a chat log's {', '.join(CONVERSATION_COLUMNS)}; "
                            f"has: {', '.join(map(str, raw.columns))})")
    if chosen.get("provider") == chosen.get("text") or chosen.get("topic") == chosen.get("text"):
        raise WhowroteError(f"{source}: the same column cannot be both text and a label")
    return chosen


def _flatten_info(raw: pd.DataFrame) -> pd.DataFrame:
    """The HF ``question/answer/info`` layout keeps metadata in a dict column: lift its keys."""
    if "info" not in raw.columns or raw.empty or not isinstance(raw["info"].iloc[0], dict):
        return raw
    info = pd.DataFrame([i if isinstance(i, dict) else {} for i in raw["info"]], index=raw.index)
    info = info[[c for c in info.columns if c not in raw.columns]]
    return pd.concat([raw.drop(columns="info"), info], axis=1)


def _short_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=6).hexdigest()
