"""``whowrote predict`` (attribute texts with the bundled or a given model) and ``whowrote train-probe``.

Start-up is part of the product: ``whowrote predict`` is parsed here with argparse and run before
the Typer app (and the click, pydantic and rich it pulls in) is ever imported; it loads numpy, the
style package and the standard library only. The Typer app lists ``predict`` and hands its
arguments to :func:`run` unchanged, so the options are defined once, below.

Inputs and outputs are streamed in batches: memory does not grow with the number of texts.
``--jobs N`` attributes the batches in N processes, this one and N-1 workers (results stay in input
order; :mod:`whowrote.cli.batches`).

Exit codes of ``predict``: 0 every input attributed; 3 some inputs could not be read (each still
gets an explicit "cannot tell" result); 1 no input could be read, or a fatal error (bad model);
2 usage error.
"""

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from whowrote.cli.batches import attribute_stream, record
from whowrote.types import LABELS, usable_cores

EXIT_PARTIAL = 3
HELP = "Name the assistant (CLAUDE, CHATGPT, GEMINI or OTHER) that wrote each text, with its tells."
AUTO_PROGRESS = 20  # a bar appears on a terminal once more texts than this are read


def _non_negative(value: str) -> int:
    n = int(value)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {n}")
    return n


def _positive(value: str) -> int:
    n = int(value)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, not {n}")
    return n


def _labels(value: str) -> tuple[str, ...]:
    from whowrote.style.verdict import among_labels  # (the model's own labels are checked once it is loaded)

    labels, unknown = among_labels(value, LABELS)
    if unknown or len(labels) < 2:
        raise argparse.ArgumentTypeError(f"two or more of {','.join(LABELS)}, comma-separated, not {value!r}")
    return labels


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="whowrote predict", description=HELP)
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="Files, folders (recursing into .md/.txt/.html/.docx/.odt/.pdf/.epub/.rtf/.eml/.msg/.doc), globs, '-' for stdin, http(s):// addresses, "
                        "or .jsonl/.csv/.tsv/.json/.parquet tables (one text per row), or a .mbox mailbox (one result per message).")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", dest="json_out", action="store_true", help="One JSON array of results.")
    fmt.add_argument("--jsonl", action="store_true", help="One JSON object per text, one per line.")
    fmt.add_argument("--csv", dest="csv_out", action="store_true",
                     help="CSV: path, id, provider, uncertain, 4 probabilities, words, warnings.")
    p.add_argument("--explain", "-e", type=_non_negative, default=3, metavar="N", help="Show the top N tells per text.")
    p.add_argument("--among", type=_labels, metavar="LABELS",
                   help="Assume each text is by one of these labels, e.g. CLAUDE,CHATGPT,GEMINI: the probabilities "
                        "are conditioned on it (a text by another model still gets one of them).")
    p.add_argument("--column", help="Text column of table inputs (default: text/content/...).")
    p.add_argument("--model", dest="model_path", type=Path, help="A model directory from train-probe.")
    p.add_argument("--jobs", "-j", type=_positive, default=1, metavar="N",
                   help="Processes attributing batches in parallel: this one and N-1 workers (default 1; "
                        "at most the CPUs this process may use, or 2).")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help=f"Progress bar on stderr (default: on a terminal, once more than {AUTO_PROGRESS} texts).")
    return p


# ---- output ------------------------------------------------------------------------------------
class _Progress:
    """A rich progress bar on stderr, started only once it is wanted (rich loads only then)."""

    def __init__(self, wanted: bool | None) -> None:
        self.wanted = wanted
        self.bar = self.task = None
        self.n = 0

    def advance(self) -> None:
        self.n += 1
        if self.bar is None and self.n > AUTO_PROGRESS and (self.wanted or (self.wanted is None and sys.stderr.isatty())):
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(transient=True, console=Console(stderr=True))
            self.bar.start()
            self.task = self.bar.add_task("attributing", total=None, completed=self.n)
            self.wanted = False  # started once
        elif self.bar is not None and self.n % 64 == 0:
            self.bar.update(self.task, completed=self.n)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _held_back(items: Iterable) -> Iterator:
    """The items, except that tables with nothing to attribute are held back while nothing else
    came: if only such tables come, :class:`WhowroteError` says why, on one line, with nothing
    written before it."""
    from whowrote.types import WhowroteError

    held, other = [], False
    for it in items:
        if not other and it.nothing_in_table:
            held.append(it)
            continue
        if not other:
            other = True
            yield from held
        yield it
    if not other:
        if not held:
            raise WhowroteError("no input texts found (folders are searched for .md, .markdown, .txt, .html, .htm, .docx, .odt, .pdf, .epub, .rtf, .eml, .msg and .doc files)")
        raise WhowroteError("; ".join(f"{it.path}: {it.error}" for it in held))


def run(argv: list[str]) -> int:
    """``whowrote predict ARGV``: returns the exit code (usage errors exit 2 from argparse)."""
    from whowrote.cli.inputs import iter_items
    from whowrote.style.io import load_model
    from whowrote.style.verdict import check_among

    args = parser().parse_args(argv)
    model = load_model(args.model_path)
    if args.among is not None:
        check_among(model, args.among)  # a label this model does not have: one line, before any input is read
    # more processes than CPUs only adds forks and memory; 2 stays 2 (the parallel path, checked on one core too)
    jobs = min(args.jobs, max(2, usable_cores()))
    items = _held_back(iter_items(args.paths, column=args.column, defer=jobs > 1))
    out = sys.stdout
    writer = None
    if args.csv_out:
        import csv

        writer = csv.writer(out)
        writer.writerow(["path", "id", "provider", "uncertain", *(f"p_{lab}" for lab in LABELS), "n_words", "warnings"])
    records: list[dict] = []  # the human table only (no texts in them)
    n = n_err = 0
    progress = _Progress(args.progress)
    machine = args.json_out or args.jsonl or args.csv_out
    try:
        # CSV has no tells column: skip the attributions and tells that nothing would print.
        options = {"n_tells": 0 if args.csv_out else args.explain, "among": args.among}
        for item, att in attribute_stream(model, args.model_path, items, options, jobs, lines=args.jsonl):
            n += 1
            n_err += item.error is not None
            progress.advance()
            if item.error and not machine:
                print(f"whowrote: {item.path}: {item.error}", file=sys.stderr)
            if args.jsonl:  # the line was made with the attribution (in the worker, with --jobs)
                out.write(att + "\n")
                continue
            rec = record(item.path, item.id, att, item.error)
            if writer is not None:
                writer.writerow([rec["path"], rec.get("id", ""), rec["provider"], rec["uncertain"],
                                 *(f"{rec['probabilities'][lab]:.6f}" for lab in LABELS), rec["n_words"],
                                 " | ".join(rec["warnings"])])
            elif args.json_out:  # streamed, byte for byte what json.dump(records, indent=1) writes
                body = json.dumps(rec, ensure_ascii=False, indent=1).split("\n")
                out.write(("[\n" if n == 1 else ",\n") + "\n".join(" " + line for line in body))
            else:
                records.append(rec)
    finally:
        progress.stop()
    if args.json_out:
        out.write("\n]\n" if n else "[]\n")
    elif not machine:
        from whowrote.cli.table import print_records

        print_records(records, args.explain, out)
    out.flush()
    if n_err == n:
        return 1
    return EXIT_PARTIAL if n_err else 0


def register(app) -> None:
    """Add ``predict`` (arguments handed to :func:`run`), ``train-probe`` and ``score`` to the Typer app."""
    from typing import Annotated

    import typer

    @app.command(help=HELP, add_help_option=False,
                 context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
    def predict(ctx: typer.Context) -> None:
        code = run(list(ctx.args))
        if code:
            raise typer.Exit(code)

    @app.command("train-probe")
    def train_probe(
        corpus: Annotated[list[Path], typer.Option("--corpus", help="Corpus files (JSONL/CSV/...); repeat for several.")],
        out: Annotated[Path, typer.Option("--out", help="Directory to write model.json, model.npz, MODEL_CARD.md "
                                                        "(e.g. models/mine).")],
        seed: Annotated[int, typer.Option(min=0, help="Seed for the split, the trees and the calibration folds.")] = 0,
        feature_set: Annotated[str, typer.Option(help="research41 or full.")] = "full",
        check: Annotated[bool, typer.Option("--check/--no-check", help="First measure on a topic-held-out split.")] = True,
        force: Annotated[bool, typer.Option("--force", help="Allow --out to be the bundled model's folder.")] = False,
        tree_iter: Annotated[int, typer.Option(min=1, max=5000, help="Boosting rounds of the trees (bundled: 300).")] = 300,
        blend_iter: Annotated[int, typer.Option(min=0, max=5000, help="Rounds of a second, large-leaf ensemble "
                                                "averaged into the trees (bundled: 0, none; 75 reads unseen "
                                                "genres better, docs/predict-trials.md).")] = 0,
        copies: Annotated[list[str] | None, typer.Option(
            "--copies", help="One edited training copy per option, its edit drawn per text from the "
                             "comma-separated names (bundled: truncated,plain_text,combined; add "
                             "--copies single_newlines for a second copy with single line breaks, "
                             "docs/predict-trials.md).")] = None,
        blank_line_genres: Annotated[str, typer.Option(
            "--blank-line-genres", help="Comma-separated genres whose texts also train with blank lines between "
                                        "paragraphs (bundled: debate, whose transcripts put each claim on a line; "
                                        "\"\" for none).")] = "debate",
    ) -> None:
        """Train the stylometric model reproducibly and print its held-out metrics."""
        from whowrote.style.io import DEFAULT_DIR
        from whowrote.types import WhowroteError

        if not force and _same_dir(out, DEFAULT_DIR):
            raise WhowroteError(f"--out {out} is the bundled model: training there replaces the model every "
                                "`whowrote predict` uses. Pick another folder (e.g. --out models/mine) or add --force")
        from whowrote.style.train import AUGMENTATIONS
        from whowrote.style.train import train_probe as train

        groups = [[name.strip() for name in c.split(",")] for c in copies] if copies else AUGMENTATIONS
        metrics = train([str(p) for p in corpus], out, seed=seed, feature_set=feature_set, check=check,
                        log=lambda m: print(m, file=sys.stderr), tree_iter=tree_iter, blend_iter=blend_iter,
                        copies=groups, blank_line_genres=[g.strip() for g in blank_line_genres.split(",") if g.strip()])
        print(json.dumps(metrics, indent=1))

    _register_score(app)


SCORE_CHUNK = 2000  # texts per attribute() call in `score` (a progress step; the verdicts do not depend on it)


def _register_score(app) -> None:
    """Add ``score``: the style model against labelled texts of the user's own."""
    import typer

    from whowrote.cli import data as cli_data

    @app.command("score")
    def score(
        paths: list[str] = typer.Argument(..., help=cli_data.PATHS_HELP + " Labelled: a model or provider column, "
                                          "or an assistant's data export."),
        model_path: Path = typer.Option(None, "--model", help="A model directory from train-probe (default: the bundled one)."),
        among: str = typer.Option(None, "--among", help="Read every text as by one of these labels, as predict --among."),
        json_out: str = typer.Option(None, "--json", help="Also write the scores as JSON to this file ('-': stdout, "
                                     "with the tables on stderr)."),
        figure: Path = typer.Option(None, "--figure", help="Also draw reliability and accuracy against coverage "
                                    "(PNG; needs matplotlib)."),
        edits: str = typer.Option(None, "--edits", help="Also score the texts under these everyday edits, comma-"
                                  "separated (e.g. strip_markdown,first_800_chars), or 'all'."),
        rules: list[str] = cli_data._RULES,
        text_column: str = cli_data._TEXT_COL, model_column: str = cli_data._MODEL_COL,
        provider_column: str = cli_data._PROVIDER_COL,
    ) -> None:
        """Score the style model on labelled texts of your own: accuracy, calibration, what the abstain
        rule keeps, confusion, per genre and per model."""
        from whowrote.study.progress import Steps
        from whowrote.style import load_model
        from whowrote.style.scorecard import (
            edit_names,
            edit_rows,
            render_scorecard,
            score_attributions,
            scorecard_figure,
        )
        from whowrote.style.train import read_markup
        from whowrote.style.verdict import check_among

        cli_data._refuse_input_as_output(Path(json_out) if json_out and json_out != "-" else None, paths, "--json")
        cli_data._refuse_input_as_output(figure, paths, "--figure")
        names = edit_names(edits) if edits else []  # a bad name or label fails before the corpus is read
        model = load_model(model_path)
        assumed = check_among(model, among) if among else None
        with Steps() as steps:
            corpus = read_markup(cli_data._load(paths, rules, text_column, model_column, provider_column, None, None,
                                                steps))

            def attribute(batch: list[str], what: str) -> list:  # in chunks, for the progress bar
                with steps.step(what, total=len(batch)) as advance:
                    out = []
                    for i in range(0, len(batch), SCORE_CHUNK):
                        out += model.attribute(batch[i:i + SCORE_CHUNK], n_tells=0, among=assumed)
                        advance(len(batch[i:i + SCORE_CHUNK]))
                    return out

            texts = corpus["text"].tolist()
            found = attribute(texts, "attributing")
            card = score_attributions(found, corpus["provider"], corpus["genre"], corpus["model"])
            if names:
                card["edits"] = edit_rows(attribute, texts, corpus["provider"], found, names)
        card["model"] = str(model_path) if model_path else "bundled"
        if assumed:
            card["among"] = list(assumed)
        to_stdout = json_out == "-"
        console = cli_data._console(stderr=to_stdout)
        for note in corpus.attrs.get("load_notes", []):
            console.print(f"note: {note}", markup=False, highlight=False)
        render_scorecard(card, console)
        if json_out:
            text = json.dumps(card, indent=1) + "\n"
            if to_stdout:
                sys.stdout.write(text)
            else:
                cli_data._atomic_text(Path(json_out), text)
        if figure:
            scorecard_figure(card, figure)


def _same_dir(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
