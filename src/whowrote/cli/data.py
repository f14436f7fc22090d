"""``whowrote data audit | split | convert | providers``: thin wrappers over :mod:`whowrote.data`.

Heavy imports (pandas, numpy) happen inside the commands: ``whowrote --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import typer

from whowrote.cli.app import data_app
from whowrote.types import LABELS, WhowroteError

PATHS_HELP = "Corpus files or folders (JSONL, JSON, CSV, TSV, Parquet, save_to_disk, Markdown tree) or hub ids."
RULE_HELP = "Extra model->provider rule PATTERN=LABEL (regex, tried before the defaults); repeatable."
_TEXT_COL = typer.Option(None, "--text-column", help="Column holding the text (default: auto-detect).")
_MODEL_COL = typer.Option(None, "--model-column", help="Column holding the generator model id.")
_PROVIDER_COL = typer.Option(None, "--provider-column", help="Column holding the provider label.")
_TOPIC_COL = typer.Option(None, "--topic-column", help="Column holding the topic / prompt id.")
_CATEGORY_COL = typer.Option(None, "--category-column", help="Column holding the category.")
_RULES = typer.Option([], "--rule", help=RULE_HELP)


def _load(paths: list[str], rules: list[str], text: str | None, model: str | None, provider: str | None,
          topic: str | None, category: str | None, steps=None):
    from whowrote.data.corpus import load_corpus
    from whowrote.data.providers import parse_rules
    from whowrote.data.readers import expand_sources

    columns = {k: v for k, v in {"text": text, "model": model, "provider": provider, "topic": topic,
                                 "category": category}.items() if v}
    if steps is None:
        return load_corpus(paths, columns=columns or None, provider_rules=parse_rules(rules))
    with steps.step("reading corpus", total=len(expand_sources(list(paths)))) as advance:
        return load_corpus(paths, columns=columns or None, provider_rules=parse_rules(rules),
                           on_source=lambda _name: advance())


def _labels(value: str | None) -> list[str] | None:
    if not value:
        return None
    labels = [v.strip().upper() for v in value.split(",") if v.strip()]
    bad = [lab for lab in labels if lab not in LABELS]
    if bad:
        raise WhowroteError(f"unknown label(s) {', '.join(bad)} (choose from {', '.join(LABELS)})")
    return labels


@data_app.command()
def audit(
    paths: list[str] = typer.Argument(..., help=PATHS_HELP),
    json_out: str = typer.Option(None, "--json", help="Also write the full report as JSON to this file "
                                 "('-': stdout, with the tables on stderr)."),
    clean_out: Path = typer.Option(None, "--clean-out", help="Write the corpus without dropped rows (JSONL)."),
    drop: list[str] = typer.Option([], "--drop", help="Problem kind to drop for --clean-out (repeatable; "
                                   "default: self_identification, metadata_line, exact_duplicate, empty)."),
    near: bool = typer.Option(True, "--near-duplicates/--no-near-duplicates", help="Look for near-duplicates."),
    min_words: int = typer.Option(50, help="Texts with fewer words are reported as too_short."),
    max_problems: int = typer.Option(25, help="Problems listed per kind (0 = all)."),
    rules: list[str] = _RULES,
    text_column: str = _TEXT_COL, model_column: str = _MODEL_COL, provider_column: str = _PROVIDER_COL,
    topic_column: str = _TOPIC_COL, category_column: str = _CATEGORY_COL,
) -> None:
    """Print counts per genre / category / model and every leak, duplicate and label problem."""
    import json

    from whowrote.data.audit import DROP_BY_DEFAULT, KINDS, drop_flagged
    from whowrote.data.audit import audit as run_audit
    from whowrote.data.providers import parse_rules
    from whowrote.data.render import render_audit
    from whowrote.data.writers import write_jsonl
    from whowrote.study.progress import Steps

    unknown = sorted(set(drop) - set(KINDS))
    if unknown:  # checked before the (slow) audit, not after its report
        raise WhowroteError(f"unknown problem kinds: {unknown} (known: {', '.join(KINDS)})")
    _refuse_input_as_output(clean_out, paths, "--clean-out")
    _refuse_input_as_output(Path(json_out) if json_out and json_out != "-" else None, paths, "--json")
    to_stdout = json_out == "-"
    with Steps() as steps:
        corpus = _load(paths, rules, text_column, model_column, provider_column, topic_column, category_column,
                       steps)
        with steps.step("auditing (duplicates, leaks)", total=None):
            report = run_audit(corpus, near_duplicates=near, min_words=min_words, provider_rules=parse_rules(rules))
    render_audit(report, _console(stderr=to_stdout), max_per_kind=max_problems)
    if json_out:
        text = json.dumps(report.to_dict(), indent=2, default=str) + "\n"
        if to_stdout:
            typer.echo(text, nl=False)
        else:
            _atomic_text(Path(json_out), text)
    if clean_out:
        clean = drop_flagged(corpus, report, drop or DROP_BY_DEFAULT)
        _atomic(clean_out, lambda tmp: write_jsonl(clean, tmp))
        typer.echo(f"wrote {len(clean)} of {len(corpus)} texts to {clean_out}", err=to_stdout)
    counts = report.problem_counts()
    problems = ", ".join(f"{n} {k}" for k, n in counts.items()) or "no problems"
    typer.echo(f"audit: {report.n_rows} texts, {problems}; {steps.summary()}", err=True)


@data_app.command()
def split(
    paths: list[str] = typer.Argument(..., help=PATHS_HELP),
    out: Path = typer.Option(..., "--out", help="Output folder (created; replaced if it holds an earlier split)."),
    seed: int = typer.Option(0, help="Random seed: the same seed and corpus give the same files."),
    scheme: str = typer.Option("topic", help="topic (3/4-way, the research split), binary (CLAUDE vs "
                               "CHATGPT), logo (leave-one-genre-out), or a train curriculum on the topic "
                               "split: pair, hardpair, trio."),
    curriculum_steps: int = typer.Option(56, "--steps", min=1, help="Curriculum steps of 12 rows (--scheme pair|hardpair|trio)."),
    pair_weights: str = typer.Option("2,2,2", help="Pairs per step on the CvP,CvG,PvG boundaries "
                                     "(--scheme pair; the research pvg build: 1,2,3)."),
    val_frac: float = typer.Option(0.15, help="Share of each category's topics held out for val."),
    ood_category: list[str] = typer.Option([], "--ood-category", help="Category held out whole as val_ood "
                                           "(repeatable). Default: automatic (see docs/data.md)."),
    ood_genre: list[str] = typer.Option([], "--ood-genre", help="Genre held out whole as val_ood (repeatable)."),
    no_ood: bool = typer.Option(False, "--no-ood", help="No held-out categories (unless --ood-genre)."),
    labels: str = typer.Option(None, help="Providers to keep, comma-separated (default: all, OTHER included)."),
    balance: bool = typer.Option(True, "--balance/--no-balance", help="Subsample providers to equal counts."),
    balance_labels: str = typer.Option(None, help="Providers to balance (others kept whole), comma-separated."),
    balance_within: str = typer.Option("genre", help="Balance inside each value of this column, or 'none'."),
    max_words: int = typer.Option(None, help="Drop texts longer than this many words."),
    max_tokens: int = typer.Option(None, help="Drop texts longer than this many tokens (needs --tokenizer)."),
    tokenizer: str = typer.Option(None, help="Local HF tokenizer folder or cached id, for --max-tokens."),
    strip_frac: float = typer.Option(0.0, help="Share of train rows given strip augmentation (spec: 0.4)."),
    formats: str = typer.Option(None, "--format", help="Outputs: jsonl, qa (question/answer/info JSONL), hf "
                                "(save_to_disk); comma-separated. Default: all three, hf only if `datasets` "
                                "is installed."),
    keep_flagged: bool = typer.Option(False, help="Keep rows the audit would drop (leaks, exact duplicates)."),
    push_to_hub: str = typer.Option(None, "--push-to-hub", help="Also push the DatasetDict to this Hugging Face "
                                    "hub dataset repo (owner/name; needs a login, e.g. `hf auth login`)."),
    private: bool = typer.Option(False, "--private", help="With --push-to-hub: create the repo private."),
    rules: list[str] = _RULES,
    text_column: str = _TEXT_COL, model_column: str = _MODEL_COL, provider_column: str = _PROVIDER_COL,
    topic_column: str = _TOPIC_COL, category_column: str = _CATEGORY_COL,
) -> None:
    """Write DIR/train.jsonl, DIR/val.jsonl and DIR/val_ood.jsonl (+ qa/ and hf/ layouts)."""
    from whowrote.data.audit import DROP_BY_DEFAULT
    from whowrote.data.build import SplitConfig, build_splits
    from whowrote.data.hf import push_to_hub as hub_push
    from whowrote.data.hf import require_datasets
    from whowrote.data.outdir import check_replaceable
    from whowrote.data.render import render_split_summary
    from whowrote.data.writers import resolve_formats, write_splits
    from whowrote.study.progress import Steps
    from whowrote.task.curricula import CURRICULA, build_curriculum, parse_pair_weights

    if push_to_hub:
        require_datasets("--push-to-hub")
    fmt, note = resolve_formats(formats.split(",") if formats else None)  # checked before the slow work
    if push_to_hub and "hf" not in fmt:
        fmt.append("hf")  # what is pushed is the saved DatasetDict
    check_replaceable(out)
    if note:
        typer.echo(f"note: {note}", err=True)
    config = SplitConfig(
        scheme=scheme, seed=seed, val_frac=val_frac,
        ood_categories=None if no_ood else (ood_category or "auto"), ood_genres=ood_genre,
        labels=_labels(labels), balance=balance, balance_labels=_labels(balance_labels),
        balance_within=None if balance_within.lower() == "none" else balance_within,
        max_words=max_words, max_tokens=max_tokens, tokenizer=tokenizer, strip_frac=strip_frac,
        drop=() if keep_flagged else DROP_BY_DEFAULT,
    )
    with Steps() as steps:
        corpus = _load(paths, rules, text_column, model_column, provider_column, topic_column, category_column,
                       steps)
        with steps.step("auditing and splitting", total=None):
            if scheme in CURRICULA:
                result = build_curriculum(corpus, config, scheme=scheme, n_steps=curriculum_steps,
                                          pair_weights=parse_pair_weights(pair_weights))
            else:
                result = build_splits(corpus, config)
        kept = {p for part in result.splits.values() for p in part["provider"]}  # after --labels, not before
        task_type = "binary" if scheme == "binary" else ("4way" if "OTHER" in kept else "3way")
        with steps.step(f"writing {', '.join(fmt)}", total=None):
            write_splits(result.splits, out, result.info, formats=fmt, task_type=task_type)
        if push_to_hub:
            with steps.step(f"pushing to {push_to_hub}", total=None):
                hub_push(out, push_to_hub, private=private)
    render_split_summary(result.splits, result.info, _console())
    rows = sum(len(p) for p in result.splits.values())
    typer.echo(f"wrote {', '.join(f'{n}.jsonl' for n in result.splits)} to {out} "
               f"({rows} rows in {len(result.splits)} splits from {len(corpus)} texts; {steps.summary()})")
    if push_to_hub:
        typer.echo(f"pushed the DatasetDict to https://huggingface.co/datasets/{push_to_hub}")


@data_app.command()
def convert(
    paths: list[str] = typer.Argument(..., help=PATHS_HELP),
    out: Path = typer.Option(..., "--out", help="Output file: .jsonl, .parquet or .csv."),
    rules: list[str] = _RULES,
    text_column: str = _TEXT_COL, model_column: str = _MODEL_COL, provider_column: str = _PROVIDER_COL,
    topic_column: str = _TOPIC_COL, category_column: str = _CATEGORY_COL,
) -> None:
    """Read any supported corpus and write the one clean table (id, text, provider, ...)."""
    from whowrote.data.writers import write_jsonl, write_parquet

    suffix = out.suffix.lower()
    if suffix not in {".jsonl", ".parquet", ".csv"}:
        raise WhowroteError(f"{out}: output must end in .jsonl, .parquet or .csv")
    _refuse_input_as_output(out, paths, "--out")
    corpus = _load(paths, rules, text_column, model_column, provider_column, topic_column, category_column)
    writer = {".jsonl": lambda tmp: write_jsonl(corpus, tmp),
              ".parquet": lambda tmp: write_parquet(corpus, tmp),
              ".csv": lambda tmp: corpus.to_csv(tmp, index=False)}[suffix]
    _atomic(out, writer)
    typer.echo(f"wrote {len(corpus)} texts to {out}")


@data_app.command()
def providers(models: list[str] = typer.Argument(..., help="Model ids to map."), rules: list[str] = _RULES) -> None:
    """Show which provider each model id maps to (and whether a rule knows it)."""
    from whowrote.data.providers import ProviderMap, parse_rules

    pmap = ProviderMap(parse_rules(rules))
    for model in models:
        typer.echo(f"{model}\t{pmap(model)}" + ("" if pmap.is_known(model) else "\t(unknown model: OTHER)"))


def _console(stderr: bool = False):
    """Rich console; when piped, wide enough that model names and problems are not cut."""
    import sys

    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    tty = stream.isatty()
    return Console(file=stream, width=None if tty else 160, soft_wrap=not tty)


def _refuse_input_as_output(out: Path | None, paths: list[str], option: str) -> None:
    """A one-line error when ``out`` is one of the inputs (or a file of an input folder): writing
    it would replace what the command reads."""
    from whowrote.data.readers import expand_sources

    if out is None:
        return
    for source in dict.fromkeys([*paths, *expand_sources(list(paths))]):
        if _same_file(out, Path(source)):
            raise WhowroteError(f"{option} {out} is the input {source}; write to another file (nothing was changed)")


def _same_file(a: Path, b: Path) -> bool:
    import os

    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except (OSError, RuntimeError):  # a path the OS cannot resolve, a symlink loop
        return False


def _atomic(path: Path, write) -> None:
    """Write via ``write(tmp_path)`` next to ``path``, then rename; nothing left on error."""
    import os
    import tempfile

    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent)
        os.close(fd)
        write(Path(tmp))
        os.replace(tmp, path)
    except OSError as e:
        raise WhowroteError(f"{path}: cannot write ({e.strerror or e})") from None
    finally:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)


def _atomic_text(path: Path, text: str) -> None:
    _atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
