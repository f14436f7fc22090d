"""``whowrote eval``: evaluate an LLM on the task (heavy imports inside the command)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import typer

from whowrote.cli.app import app
from whowrote.llm.config import EvalConfig
from whowrote.types import WhowroteError

# The defaults are EvalConfig's (one place); the CLI only parses. (llm.config is stdlib-only.)
D = {f.name: f.default for f in dataclasses.fields(EvalConfig) if f.default is not dataclasses.MISSING}


def _positive(value: float) -> float:
    if not value > 0:
        raise typer.BadParameter(f"must be > 0 seconds, got {value}")
    return value


def _json_object(value: str | None) -> dict | None:
    if value is None:
        return None
    try:
        obj = json.loads(value)
    except json.JSONDecodeError as e:
        raise typer.BadParameter(f"not JSON ({e.msg})") from None
    if not isinstance(obj, dict):
        raise typer.BadParameter("must be a JSON object, e.g. '{\"enable_thinking\": false}'")
    return obj


@app.command("eval")
def eval_command(
    split: Path = typer.Option(..., "--split", help="Split file (JSONL: id,text,provider,... or question/answer/info)."),
    out: Path = typer.Option(..., "--out", help="Output directory (traces.jsonl, summary.json); re-run to resume."),
    model: str = typer.Option(None, "--model", help="HF id, local dir or .gguf file (or a tokenizer for --endpoint)."),
    gguf_file: str = typer.Option(None, "--gguf-file", help="GGUF file name inside --model's directory."),
    endpoint: str = typer.Option(None, "--endpoint", help="OpenAI-compatible base URL, e.g. http://host:8000/v1."),
    api_model: str = typer.Option(None, "--api-model", help="Model name to send to --endpoint."),
    variant: str = typer.Option(D["variant"], "--variant", help="Prompt: 3way, binary, answer_only, hardpair, lexical."),
    k: int = typer.Option(D["k"], "--k", min=1, help="Samples per text (pass@k)."),
    max_new_tokens: int = typer.Option(D["max_new_tokens"], "--max-new-tokens", min=1),
    max_prompt_tokens: int = typer.Option(None, "--max-prompt-tokens", help="Cut the text (not the scaffold) to fit."),
    temperature: float = typer.Option(D["temperature"], "--temperature", min=0.0),
    top_p: float = typer.Option(D["top_p"], "--top-p", min=0.0, max=1.0),
    seed: int = typer.Option(D["seed"], "--seed"),
    batch_size: int = typer.Option(D["batch_size"], "--batch-size", min=1, help="Texts per generate() call (local backend)."),
    limit: int = typer.Option(None, "--limit", min=1, help="Only the first N texts of the split."),
    dtype: str = typer.Option(D["dtype"], "--dtype"),
    device: str = typer.Option(None, "--device", help="cuda, cpu, ... (default: cuda when available)."),
    cheatsheet: str = typer.Option(None, "--cheatsheet",
                                   help="'style' for tells from whowrote's style model, 'default', or a text file."),
    require_reason: bool = typer.Option(D["require_reason"], "--require-reason", help="Score with the reasoning gate."),
    concurrency: int = typer.Option(D["concurrency"], "--concurrency", min=1, help="Parallel requests (endpoint)."),
    timeout: float = typer.Option(D["timeout"], "--timeout", callback=_positive,
                                  help="Seconds per request (endpoint), > 0."),
    chat_template_kwargs: str = typer.Option(None, "--chat-template-kwargs", callback=_json_object,
                                             help='JSON for the chat template (default {"enable_thinking": false}).'),
    quiet: bool = typer.Option(False, "--quiet", help="No console summary."),
    backend: str = typer.Option("transformers", "--backend",
                                help="Local engine for --model: transformers, or vllm (GPU; HF folder or hub id)."),
    edit: str = typer.Option(None, "--edit", help="Apply one everyday edit to every text first (robustness): "
                             "to_ascii, smart_quotes, crlf, strip_markdown, markdown_html, html_file, docx_file, star_bullets, single_newlines, "
                             "hard_wrap, lower, first_800_chars, first_300_words, drop_ends, sent_shuffle or combined."),
) -> None:
    """Evaluate an LLM on naming the assistant that wrote each text; resumable."""
    from whowrote.llm.collapse import detect_collapse
    from whowrote.llm.evaluate import check_model, check_out, run_eval
    from whowrote.llm.report import render_summary
    from whowrote.task.prompts import SINGLE_VARIANTS

    if variant not in SINGLE_VARIANTS:
        raise WhowroteError(f"--variant must be a single-text variant, one of {SINGLE_VARIANTS}")
    cfg = EvalConfig(
        split=str(split), out=str(out), model=model, gguf_file=gguf_file, endpoint=endpoint,
        api_model=api_model, variant=variant, k=k, max_new_tokens=max_new_tokens,
        max_prompt_tokens=max_prompt_tokens, temperature=temperature, top_p=top_p, seed=seed,
        batch_size=batch_size, limit=limit, dtype=dtype, device=device,
        cheatsheet=_cheatsheet(cheatsheet), require_reason=require_reason,
        concurrency=concurrency, timeout=timeout,
        **({"chat_template_kwargs": chat_template_kwargs} if chat_template_kwargs is not None else {}))

    def progress(done: int, total: int) -> None:
        if not quiet:
            typer.echo(f"  {done}/{total} texts", err=True)

    if backend not in ("transformers", "vllm"):
        raise WhowroteError("--backend must be 'transformers' or 'vllm'")
    if backend == "vllm" and (endpoint or not model):
        raise WhowroteError("--backend vllm runs a local --model (not an --endpoint)")
    if edit is not None:  # the edited split lives in --out: the harness hashes and resumes it like any split
        check_out(out, [out / f"split.{edit}.jsonl"])  # before the edited split is written there
        check_model(cfg)
        cfg = dataclasses.replace(cfg, split=str(_edited_split(split, edit, out, seed)))
    engine = None
    if backend == "vllm":
        from whowrote.llm.vllm_backend import VLLMBackend, require_vllm

        require_vllm()
        engine = VLLMBackend(model)
    summary = run_eval(cfg, backend=engine, on_progress=progress)
    if not quiet:
        render_summary(summary, detect_collapse([summary]))
        typer.echo(f"traces: {Path(out) / 'traces.jsonl'}  summary: {Path(out) / 'summary.json'}")


def _cheatsheet(value: str | None) -> str | None:
    if not value:
        return None
    if value == "style":
        from whowrote.task.cheatsheet import cheatsheet_from_style_model

        return cheatsheet_from_style_model()
    if value == "default":
        from whowrote.task.cheatsheet import DEFAULT_CHEATSHEET

        return DEFAULT_CHEATSHEET
    path = Path(value)
    if not path.is_file():
        raise WhowroteError(f"--cheatsheet: {value!r} is not 'style', 'default' or a file")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise WhowroteError(f"--cheatsheet: {path}: not valid UTF-8 text ({e.reason} at byte {e.start})") from None


def _edited_split(split: Path, name: str, out: Path, seed: int) -> Path:
    """``split`` with every row's text (``text``, or ``question`` in the qa layout) put through the
    robustness suite's edit ``name`` (:func:`whowrote.style.edits.edits`), written to
    ``out/split.<name>.jsonl``: the research system's adversarial eval, for any model. Rows are read
    with the project's one JSONL reader (``.jsonl.gz`` too; a bad line is a one-line error)."""
    from whowrote.data.generate.store import atomic_write
    from whowrote.data.readers import iter_json_rows
    from whowrote.style.edits import edits

    table = {k: v for k, v in edits(seed).items() if k != "raw"}
    if name not in table:
        raise WhowroteError(f"--edit must be one of {', '.join(table)}, got {name!r}")
    rows = []
    for n, row in iter_json_rows(split):
        field = "text" if "text" in row else "question"
        if not isinstance(row.get(field), str):
            raise WhowroteError(f"--split {split}, line {n}: no text (a 'text' or 'question' string) to edit")
        rows.append(json.dumps({**row, field: table[name](row[field])}, ensure_ascii=False))
    out.mkdir(parents=True, exist_ok=True)
    dest, text = out / f"split.{name}.jsonl", "".join(r + "\n" for r in rows)
    if dest.is_file() and dest.read_bytes() != text.encode():  # a run's traces belong to the split they were made on
        raise WhowroteError(f"{dest}: exists and is not this edit of {split}; choose another --out (nothing was changed)")
    atomic_write(dest, text)
    return dest
