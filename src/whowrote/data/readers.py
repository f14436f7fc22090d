"""Readers: every corpus format people have -> a raw pandas DataFrame (source columns as-is).

Formats: JSONL / JSON, CSV / TSV, Parquet, a Hugging Face ``save_to_disk`` folder, a Hugging Face
hub dataset id, a FastChat ``model_answer`` folder (one benchmark's answers, one file a model), and
a folder tree of Markdown files with YAML frontmatter (the research layout
``<root>/<category>/<topic>/<model>__<length>.md``). Column meaning is decided later, in
:mod:`whowrote.data.corpus`. File kinds and the binary and JSON checks are
:mod:`whowrote.formats`'s, shared with ``whowrote predict``'s inputs (:mod:`whowrote.cli.inputs`).
"""

from __future__ import annotations

import csv
import gzip
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pandas as pd

from whowrote.data.clean import fix_surrogates, split_frontmatter
from whowrote.formats import (
    BINARY_PROBE,
    DATA_EXTRA,
    PARQUET_SUFFIXES,
    TABLE_SUFFIXES,
    TEXT_SUFFIXES,
    JSONError,
    not_text,
    parse_json,
    table_suffix,
)
from whowrote.types import WhowroteError

# Bigger single files than this are refused: a corpus row is a text, not a dump.
MAX_FILE_BYTES = 2 * 1024**3


def read_source(source: str | Path) -> pd.DataFrame:
    """Read one corpus source (file, folder or hub id) into a raw DataFrame."""
    path = Path(source)
    if path.is_dir():
        if _is_hf_folder(path):
            return read_hf_disk(path)
        return read_fastchat_answers(path) if is_fastchat_folder(path) else read_markdown_tree(path)
    if path.is_file():
        if path.stat().st_size > MAX_FILE_BYTES:
            raise WhowroteError(f"{path}: file is larger than {MAX_FILE_BYTES >> 30} GiB")
        suffix = table_suffix(path)
        if suffix in {".jsonl", ".ndjson", ".json", ".csv", ".tsv"} and path.suffix.lower() != ".gz":
            _check_text_file(path)
        if suffix in {".jsonl", ".ndjson", ".json"}:
            return read_json_lines(path)
        if suffix in {".csv", ".tsv"}:
            sep = "\t" if suffix == ".tsv" else ","
            check_csv_quotes(path, sep)
            return _read_with(pd.read_csv, path, sep=sep)
        if suffix in PARQUET_SUFFIXES:
            return _read_with(pd.read_parquet, path)
        if suffix in TEXT_SUFFIXES:
            return read_markdown_files([path], root=path.parent)
        raise WhowroteError(f"{path}: unknown corpus format {path.suffix or '(no suffix)'!r}")
    if _looks_like_hub_id(str(source)):
        return read_hf_hub(str(source))
    raise WhowroteError(f"{source}: no such file or folder")


def _check_text_file(path: Path) -> None:
    """Refuse binary and non-UTF-8 files early, from their first bytes (cheap on big files)."""
    try:
        with open(path, "rb") as f:
            head = f.read(65536)
    except OSError as e:
        raise WhowroteError(f"{path}: cannot read ({e.strerror or e})") from None
    reason = not_text(head)
    if reason:
        raise WhowroteError(f"{path}: {reason} (expected {path.suffix.lstrip('.')})")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 4:  # a multi-byte character cut at the end of the block is fine
            raise WhowroteError(f"{path}: not valid UTF-8 text ({e.reason} at byte {e.start})") from None


def _read_with(reader, path: Path, **kwargs) -> pd.DataFrame:
    try:
        return reader(path, **kwargs)
    except UnicodeDecodeError as e:
        raise WhowroteError(f"{path}: not valid UTF-8 text ({e.reason} at byte {e.start})") from None
    except Exception as e:  # parser errors differ per library; all mean "unreadable"
        raise WhowroteError(f"{path}: cannot read as {path.suffix.lstrip('.')}: {str(e).splitlines()[0]}") from None


def check_csv_quotes(path: Path, sep: str) -> None:
    """Refuse a CSV whose quoting is broken, naming the line where the bad field starts.

    pandas reads an unclosed quote up to the next quote character anywhere later in the file,
    silently swallowing the rows between; Python's ``csv`` in strict mode stops there instead.
    """
    csv.field_size_limit(2**31 - 1)  # texts are long; the file size cap bounds memory
    with _open_text(path, newline="") as f:
        reader = csv.reader(f, delimiter=sep, strict=True)
        start = 1
        try:
            for _ in reader:
                start = reader.line_num + 1
        except csv.Error as e:
            raise WhowroteError(f"{path}:{start}: broken CSV quoting in the record starting on this line "
                                f"({e}; the error shows at line {reader.line_num})") from None
        except UnicodeDecodeError as e:
            raise WhowroteError(f"{path}: not valid UTF-8 text ({e.reason})") from None


def read_json_lines(path: Path) -> pd.DataFrame:
    """JSONL (one object per line, gzip-compressed or not), or a JSON file holding a list of objects."""
    if _first_char(path) == "[":
        return pd.DataFrame(_read_json_list(path))
    return pd.DataFrame([row for _, row in iter_json_rows(path)])


def iter_json_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of a JSONL or JSONL.gz file.

    The one JSONL row reader (corpus loading, task examples, training splits): lines end at
    ``\n`` only (a raw CR, U+2028, U+0085 or U+000B inside a row is not a line break, as JSON
    allows), a leading BOM is skipped, lone surrogates in top-level strings become U+FFFD, and a
    bad line, bad bytes or a damaged gzip stream is a one-line :class:`WhowroteError` naming the
    file (and the line).
    """
    path = Path(path)
    try:
        with _open_text(path) as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = parse_json(line)
                except JSONError as e:
                    raise WhowroteError(f"{path}:{lineno}: invalid JSON ({e.msg})") from None
                if not isinstance(row, dict):
                    raise WhowroteError(f"{path}:{lineno}: each line must be a JSON object, "
                                        f"got {type(row).__name__}")
                yield lineno, _fix_row(row)
    except UnicodeDecodeError as e:  # decoded in blocks: the offset is not a line's
        raise WhowroteError(f"{path}: not valid UTF-8 text ({e.reason})") from None


def _read_json_list(path: Path) -> list[dict[str, Any]]:
    try:
        with _open_text(path) as f:
            data = parse_json(f.read())
    except JSONError as e:
        raise WhowroteError(f"{path}{'' if e.lineno is None else f':{e.lineno}'}: invalid JSON ({e.msg})") from None
    except UnicodeDecodeError as e:
        raise WhowroteError(f"{path}: not valid UTF-8 text ({e.reason} at byte {e.start})") from None
    if not isinstance(data, list):
        raise WhowroteError(f"{path}: a JSON file must hold a list of objects")
    return [_fix_row(r) for r in data if isinstance(r, dict)]


@contextmanager
def _open_text(path: Path, newline: str = "\n") -> Iterator[IO[str]]:
    """A text stream over ``path`` (gunzipped for ``.gz``); ``utf-8-sig`` skips a leading BOM.

    ``newline="\n"``: lines end at ``\n`` only (universal newlines would also split at a lone
    CR, which JSON allows as whitespace between tokens). A missing file or a bad or truncated gzip
    stream, on opening or while reading inside the ``with`` block, is a one-line
    :class:`WhowroteError`.
    """
    try:
        with (gzip.open(path, "rt", encoding="utf-8-sig", newline=newline) if path.suffix.lower() == ".gz"
              else open(path, encoding="utf-8-sig", newline=newline)) as f:
            yield f
    except (OSError, EOFError) as e:
        raise WhowroteError(f"{path}: cannot read ({getattr(e, 'strerror', None) or e})") from None


def _first_char(path: Path) -> str:
    try:
        with _open_text(path) as f:
            return f.read(4096).lstrip()[:1]
    except UnicodeDecodeError:
        return ""  # the row reader reports it, with the line


def _fix_row(row: dict[str, Any]) -> dict[str, Any]:
    # JSON may escape a lone surrogate (a cut emoji): no UTF-8 string can hold one.
    return {k: fix_surrogates(v) if isinstance(v, str) else v for k, v in row.items()}


def read_markdown_tree(root: Path) -> pd.DataFrame:
    """Every ``.md``/``.markdown``/``.txt`` file under ``root``, recursively."""
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES)
    if not files:
        raise WhowroteError(f"{root}: folder holds no dataset and no .md/.txt files")
    return read_markdown_files(files, root=root)


def read_markdown_files(files: list[Path], root: Path) -> pd.DataFrame:
    """Markdown files -> rows; frontmatter keys become columns, the body is ``text``.

    In the research layout ``<category>/<topic>/<model>__<length>.md`` the path supplies
    category, topic, model and length where the frontmatter does not.
    """
    rows = []
    for file in files:
        raw = file.read_bytes()
        reason = not_text(raw[:BINARY_PROBE])
        if reason:
            raise WhowroteError(f"{file}: {reason}")
        try:
            content = raw.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise WhowroteError(f"{file}: not valid UTF-8 text ({e.reason} at byte {e.start})") from None
        meta, body = split_frontmatter(content)
        rel = file.relative_to(root)
        stem, _, length = file.stem.partition("__")
        row = {"path": str(file), "text": body}
        if len(rel.parts) >= 3:
            row["category"], row["topic"] = rel.parts[-3], rel.parts[-2]
        elif len(rel.parts) == 2:
            row["category"] = rel.parts[0]
        if length:
            row["length"] = length
            row["model"] = stem
        row["id"] = str(rel.with_suffix(""))
        row.update({k: v for k, v in meta.items() if isinstance(k, str) and k != "text"})
        rows.append(row)
    return pd.DataFrame(rows)


def read_hf_disk(path: Path) -> pd.DataFrame:
    """A ``datasets`` ``save_to_disk`` folder (a Dataset, or a DatasetDict: splits are concatenated
    with their name in a ``split`` column)."""
    try:
        import datasets
    except ImportError:
        raise WhowroteError(f"{path}: reading save_to_disk folders needs the `datasets` library: {DATA_EXTRA}") from None
    try:
        ds = datasets.load_from_disk(str(path))
    except Exception as e:
        raise WhowroteError(f"{path}: cannot load dataset folder: {str(e).splitlines()[0]}") from None
    return _hf_to_frame(ds)


def read_hf_hub(dataset_id: str) -> pd.DataFrame:
    """A Hugging Face hub dataset id (``owner/name`` or ``owner/name:split``); honours
    ``HF_HUB_OFFLINE`` / ``HF_DATASETS_OFFLINE`` (then only the local cache is used)."""
    try:
        import datasets
    except ImportError:
        raise WhowroteError(f"{dataset_id}: reading hub datasets needs the `datasets` library: {DATA_EXTRA}") from None
    name, _, split = dataset_id.partition(":")
    try:
        ds = datasets.load_dataset(name, split=split or None)
    except Exception as e:
        raise WhowroteError(f"{dataset_id}: cannot load hub dataset: {str(e).splitlines()[0]}") from None
    return _hf_to_frame(ds)


def _hf_to_frame(ds) -> pd.DataFrame:
    import datasets

    if isinstance(ds, datasets.DatasetDict):
        frames = []
        for split, part in ds.items():
            frame = part.to_pandas()
            frame["split"] = split
            frames.append(frame)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return ds.to_pandas()


def expand_sources(sources: list[str | Path]) -> list[str | Path]:
    """A folder of table files (e.g. ``../shared/corpus``) stands for those files, sorted, each
    its own source (so each keeps its genre); other folders (a dataset, a FastChat
    ``model_answer`` folder: its files are models, not corpora) and paths are kept as they are."""
    out: list[str | Path] = []
    for source in sources:
        path = Path(source)
        whole = not path.is_dir() or _is_hf_folder(path) or is_fastchat_folder(path)
        tables = [] if whole else sorted(p for p in path.iterdir() if p.is_file() and table_suffix(p) in TABLE_SUFFIXES)
        out.extend(tables or [source])
    return out


# FastChat ``model_answer`` folders (MT-Bench, Arena-Hard-Auto and their forks): one ``<model>.jsonl``
# a model, a line an answer (``question_id``, ``model_id``, ``choices[0].turns[*].content``). Read
# as one source, so the benchmark is one genre and a prompt's answers share their topic (a topic
# split never puts one prompt's answers on both sides).
FASTCHAT_ANSWER_DIR = "model_answer"
_BENCH_VERSION = re.compile(r"[-_]v\d[\w.]*$")


def is_fastchat_folder(path: Path) -> bool:
    """A folder of ``*.jsonl`` files whose first row has ``question_id`` and ``choices``."""
    if not path.is_dir():
        return False
    first = next(iter(sorted(path.glob("*.jsonl"))), None)
    if first is None:
        return False
    try:
        _, row = next(iter_json_rows(first), (0, {}))
    except WhowroteError:
        return False
    return "question_id" in row and isinstance(row.get("choices"), list)


def benchmark_genre(path: Path) -> str:
    """``.../arena-hard-v0.1/model_answer`` -> ``arena-hard``; ``.../mt_bench/model_answer`` -> ``mt_bench``."""
    folder = path.resolve()
    name = folder.parent.name if folder.name == FASTCHAT_ANSWER_DIR else folder.name
    return _BENCH_VERSION.sub("", name) or name


def read_fastchat_answers(path: Path) -> pd.DataFrame:
    """Every answer in a ``model_answer`` folder, one row each: ``text`` (the first choice's turns,
    each stripped, joined by a blank line), ``model`` (``model_id``, else the file's stem), ``topic``
    (``question_id``), ``id`` (``<model>:<question_id>``); the genre, :func:`benchmark_genre`, is in
    ``attrs["genre"]``. A row that is not an answer is a one-line error naming the file and line."""
    rows = []
    for file in sorted(path.glob("*.jsonl")):
        for lineno, row in iter_json_rows(file):
            choices = row.get("choices")
            if "question_id" not in row or not isinstance(choices, list):
                raise WhowroteError(f"{file}:{lineno}: not a FastChat answer (needs question_id and a choices list)")
            turns = choices[0].get("turns", []) if choices and isinstance(choices[0], dict) else []
            # Arena-Hard-Auto's turns are {"content": ...}; MT-Bench's first release's plain strings
            parts = [t.get("content") if isinstance(t, dict) else t for t in turns]
            text = "\n\n".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
            model = str(row.get("model_id") or file.stem)
            question = str(row["question_id"])
            rows.append({"id": f"{model}:{question}", "model": model, "topic": question, "text": text})
    frame = pd.DataFrame(rows, columns=["id", "model", "topic", "text"])
    frame.attrs["genre"] = benchmark_genre(path)
    return frame


def _is_hf_folder(path: Path) -> bool:
    return any((path / name).exists() for name in ("dataset_info.json", "state.json", "dataset_dict.json"))


def _looks_like_hub_id(source: str) -> bool:
    name = source.partition(":")[0]
    if table_suffix(name) in (*TABLE_SUFFIXES, *TEXT_SUFFIXES):
        return False  # a missing file, not a dataset id
    parts = name.split("/")
    return len(parts) == 2 and all(p and not p.startswith(".") for p in parts) and "\\" not in name
