"""Every command in README.md and docs/*.md parses as written.

The documented commands are the product's front door, and an option renamed in the code but not in
the docs is the commonest way for them to rot. Running them all would take hours (benchmarks, GPU
calls), so this test checks what can be checked in seconds: every ``whowrote`` command line of a
```` ```bash ````, ```` ```sh ```` or unlabelled block is parsed by the real CLI parser (argparse for
``predict``, click for the rest), and every ``python benchmarks/….py`` / ``python scripts/….py`` line
by the script's own argparse parser (run up to its ``parse_args`` and stopped there), so an unknown
option, a missing value or a script that is gone fails here. A line with a shell variable (``$C``)
has only the option names it writes out checked; a line with a ``<placeholder>`` is counted, not
parsed (a test keeps that count small). What the commands then do is covered by the other tests and
by hand."""

from __future__ import annotations

import argparse
import os
import re
import runpy
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

FENCE = re.compile(r"^ {0,3}```")
REDIRECTS = {">", ">>", "<", ">&", "&>", "<<", ">|", "&>>"}
SEPARATORS = {"&&", "||", ";", "|", "&", "(", ")"}
WRAPPERS = {"time", "nohup", "exec", "env"}
# placeholders a reader fills in (`<your file>`): a command holding one is not parsed
PLACEHOLDER = re.compile(r"<[A-Za-z][^<>\n]{0,40}>")
SHELL_VALUE = re.compile(r"\$\{[^{}\n]*\}|\$\([^()\n]*\)|\$[A-Za-z_]\w*|\$\d")
SYNOPSIS_FLAG = re.compile(r"\[(--?[\w-]+)\]")  # a usage synopsis's optional flag: `[--dry-run]`
SKIPPED: list[str] = []
# packages of the extras a script may need and this environment may lack (a missing one skips its commands)
OPTIONAL = {"torch", "transformers", "trl", "vllm", "peft", "datasets", "accelerate", "gguf", "verifiers",
            "sentence_transformers", "openai", "anthropic", "google", "fastapi", "uvicorn", "playwright"}  # commands holding a placeholder (pinned by a test, so new ones are seen)


@dataclass(frozen=True)
class DocCommand:
    where: str  # "docs/x.md:12"
    argv: tuple[str, ...]
    cwd: str = "."  # where the block's `cd` left the shell, relative to the repository
    # a shell variable ($C, ${ARGS[@]}, $(...)) holds words this test cannot know: only the option
    # names written out are checked against the parser then
    options_only: bool = False

    def __str__(self) -> str:
        return f"{self.where}: {shlex.join(self.argv)}"


def shell_blocks(path: Path) -> list[tuple[int, list[str]]]:
    """``(first line number, lines)`` of each ```` ```bash ```` / ```` ```sh ```` / unlabelled block of a
    Markdown file (an unlabelled block may hold output too: only its command lines are picked)."""
    blocks, lines, start, fence = [], [], 0, None  # fence: the open block's info string, None outside
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            if fence is None:
                fence, start, lines = line.strip().removeprefix("```"), n + 1, []
            else:
                if fence in ("bash", "sh", ""):
                    blocks.append((start, lines))
                fence = None
            continue
        if fence is not None:
            lines.append(line)
    return blocks


def _uncomment(line: str) -> str:
    """The line without a shell comment (a ``#`` that starts a word, outside quotes)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def _brace_expand(token: str) -> list[str]:
    """Bash's brace expansion of one level (``a/{b,c}.x`` → ``a/b.x a/c.x``)."""
    m = re.search(r"\{([^{}]*,[^{}]*)\}", token)
    if not m:
        return [token]
    head, tail = token[:m.start()], token[m.end():]
    return [x for part in m.group(1).split(",") for x in _brace_expand(head + part + tail)]


def _words(text: str) -> list[str]:
    lex = shlex.shlex(text, posix=True, punctuation_chars=True)
    lex.whitespace_split, lex.commenters = True, ""
    return list(lex)


def _simple_commands(words: list[str]) -> list[list[str]]:
    """Split on ``&&``, ``;``, ``|`` …, drop redirections (``2>&1`` included) and their targets."""
    out, cur, skip = [], [], False
    for i, w in enumerate(words):
        if skip:
            skip = False
            continue
        if w in SEPARATORS:
            out.append(cur)
            cur = []
        elif w in REDIRECTS:
            if cur and cur[-1].isdigit() and i > 0 and words[i - 1] == cur[-1]:
                cur.pop()  # the "2" of "2>&1"
            skip = True
        else:
            cur.append(w)
    out.append(cur)
    return [c for c in out if c]


def _strip_prefix(argv: list[str]) -> list[str]:
    """Drop ``VAR=value`` assignments and wrappers (``nice -n 10``, ``timeout 60``, ``taskset -c 1``,
    ``env``, ``time``)."""
    i = 0
    while i < len(argv):
        w = argv[i]
        if re.fullmatch(r"[A-Za-z_]\w*=.*", w) or w in WRAPPERS:
            i += 1
        elif w in ("nice", "taskset"):  # nice -n N, taskset -c CORES
            i += 3 if argv[i + 1:i + 2] in (["-n"], ["-c"]) else 1
        elif w == "timeout":
            i += 1
            while argv[i:i + 1] and argv[i].startswith("-"):  # -k 5 / -s KILL / --preserve-status
                i += 1 if argv[i].startswith("--") else 2
            i += 1  # the duration
        else:
            break
    return argv[i:]


def doc_commands() -> list[DocCommand]:
    """Every ``whowrote`` / ``python <script>.py`` command of the docs' bash blocks."""
    found = []
    for path in DOCS:
        rel = path.relative_to(REPO).as_posix()
        for start, lines in shell_blocks(path):
            if any("<<" in ln for ln in lines):  # a here-document: its body is not shell
                continue
            logical, first, open_quote, cwd = "", start, False, REPO
            for n, raw in enumerate(lines, start):
                line = raw.rstrip() if open_quote else _uncomment(raw).rstrip()
                if not logical:
                    first = n
                if line.endswith("\\"):
                    logical += line[:-1] + " "
                    continue
                logical += line
                try:
                    words = _words(logical.strip().removeprefix("$ "))
                except ValueError:  # a quoted string that goes on over the next line
                    logical, open_quote = logical + "\n", True
                    continue
                open_quote = False
                if PLACEHOLDER.search(logical):  # `<your file>`: the reader's to fill
                    if re.search(r"\b(?:whowrote|python3?) ", logical):
                        SKIPPED.append(f"{rel}:{first}: {logical.strip()[:80]}")
                else:
                    if "$" in logical:
                        words = _words(SHELL_VALUE.sub("X", logical.strip().removeprefix("$ ")))
                    for argv in _simple_commands(words):
                        argv = [x for w in _strip_prefix(argv) for x in _brace_expand(w)]
                        if argv[:1] == ["cd"] and len(argv) == 2:
                            cwd = (cwd / argv[1]).resolve()
                        elif argv and (argv[0] == "whowrote" or (argv[0] in ("python", "python3") and len(argv) > 1
                                                               and argv[1].endswith(".py"))):
                            argv = [m.group(1) if (m := SYNOPSIS_FLAG.fullmatch(w)) else w for w in argv]
                            found.append(DocCommand(f"{rel}:{first}", tuple(argv), os.path.relpath(cwd, REPO),
                                                    options_only="$" in logical))
                logical = ""
    return found


COMMANDS = doc_commands()


# click's usage errors as typer raises them (typer ships its own click: typer._click)
USAGE_ERRORS = next(c for c in type(typer.BadParameter("")).__mro__ if c.__name__ == "ClickException")


PARSE_ARGS = argparse.ArgumentParser.parse_args  # argparse's own (a test may patch it more than once)


class _Parsed(Exception):
    """Raised from a patched ``parse_args`` once a script's arguments parsed."""


def _parse_whowrote(args: list[str]) -> None:
    if args[:1] == ["predict"]:
        from whowrote.cli.predict import parser

        parser().parse_args(args[1:])
        return
    from whowrote.cli import _build_app

    # (typer ships its own copy of click: its classes are not the `click` package's, hence the duck typing)
    cmd = typer.main.get_command(_build_app())
    ctx = None
    name = "whowrote"
    while True:
        ctx = cmd.make_context(name, list(args), parent=ctx)
        if not hasattr(cmd, "resolve_command"):  # a command, not a group
            return
        protected = getattr(ctx, "_protected_args", None) or getattr(ctx, "protected_args", [])
        args = [*protected, *ctx.args]  # the subcommand and its arguments
        if not args:
            return
        name, sub, args = cmd.resolve_command(ctx, args)
        cmd = sub


def _run_to_parser(argv: list[str], cwd: str, monkeypatch, parse: bool) -> argparse.ArgumentParser | None:
    """Run the script ``argv[1]`` (with ``argv[2:]``) up to its ``parse_args`` and stop there, after
    parsing them when ``parse``; its parser, or None when the script ended without calling it."""
    script = REPO / cwd / argv[1]
    assert script.is_file(), f"{argv[1]} does not exist"
    seen: list[argparse.ArgumentParser] = []

    def stop(self, args=None, namespace=None):
        if parse:
            PARSE_ARGS(self, args, namespace)
        seen.append(self)
        raise _Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", stop)
    monkeypatch.setattr(sys, "argv", [str(script), *argv[2:]])
    monkeypatch.syspath_prepend(str(script.parent))
    try:
        runpy.run_path(str(script), run_name="__main__")
    except _Parsed:
        return seen[-1]
    return None


def _parse_script(argv: list[str], cwd: str, monkeypatch) -> None:
    if _run_to_parser(argv, cwd, monkeypatch, parse=True) is None:
        # only a trial's `--table RESULTS.json` (print a results file's tables) may run to its end here
        assert "--table" in argv, f"{argv[1]} finished without parsing its arguments with argparse"


def _whowrote_options(args: list[str]) -> set[str]:
    """The option names of the ``whowrote`` command that ``args`` names (its subcommand path)."""
    if args[:1] == ["predict"]:
        from whowrote.cli.predict import parser

        return set(parser()._option_string_actions)
    from whowrote.cli import _build_app

    cmd = typer.main.get_command(_build_app())
    for word in args:
        if word.startswith("-") or not hasattr(cmd, "get_command"):
            break
        sub = cmd.get_command(cmd.make_context("whowrote", [], resilient_parsing=True), word)
        assert sub is not None, f"whowrote has no subcommand {word!r}"
        cmd = sub
    return {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)}


def _script_options(argv: list[str], cwd: str, monkeypatch) -> set[str]:
    """The option names of a script's argparse parser (the script run up to its ``parse_args``)."""
    parser = _run_to_parser(argv[:2], cwd, monkeypatch, parse=False)
    assert parser is not None, f"{argv[1]} does not parse its arguments with argparse"
    return set(parser._option_string_actions)


def _check_option_names(command: DocCommand, monkeypatch) -> None:
    argv = list(command.argv)
    known = _whowrote_options(argv[1:]) if argv[0] == "whowrote" else _script_options(argv, command.cwd, monkeypatch)
    written = {w.split("=", 1)[0] for w in argv[2:] if w.startswith("--")}
    assert written <= known, f"{command}\n  unknown option(s): {sorted(written - known)}"


def test_the_docs_have_commands_to_check():
    # the extraction itself is wrong if this drops: the docs hold ~230 such commands
    assert len(COMMANDS) > 200
    kinds = {c.argv[0] for c in COMMANDS}
    assert kinds <= {"whowrote", "python", "python3"} and "whowrote" in kinds
    # a command with a `<placeholder>` is not parsed: keep them few, and seen
    assert len(SKIPPED) <= 2, SKIPPED


def test_extraction_reads_shell_as_bash_does():
    assert _brace_expand("c/{a,b}.jsonl") == ["c/a.jsonl", "c/b.jsonl"]
    words = _words("OMP_NUM_THREADS=1 nice -n 10 python b.py --x=a#b > log 2>&1 && whowrote predict a.md")
    cmds = [_strip_prefix(c) for c in _simple_commands(words)]
    assert cmds == [["python", "b.py", "--x=a#b"], ["whowrote", "predict", "a.md"]]
    assert _uncomment("whowrote predict a.md  # one file") == "whowrote predict a.md  "
    assert _uncomment("echo '# kept'") == "echo '# kept'"


@pytest.mark.parametrize("command", COMMANDS, ids=str)
def test_doc_command_parses(command: DocCommand, monkeypatch, capsys):
    argv = list(command.argv)
    if command.options_only:
        _check_option_names(command, monkeypatch)
        return
    try:
        if argv[0] == "whowrote":
            _parse_whowrote(argv[1:])
        else:
            _parse_script(argv, command.cwd, monkeypatch)
    except USAGE_ERRORS as e:
        pytest.fail(f"{command}\n  does not parse: {e.format_message()}")
    except RuntimeError as e:  # click's Exit (--help) is a RuntimeError
        if type(e).__name__ != "Exit":
            raise
        assert e.exit_code == 0, str(command)
    except SystemExit as e:
        if e.code not in (0, None):  # --help exits 0
            err = capsys.readouterr().err.strip().splitlines()
            pytest.fail(f"{command}\n  does not parse: {err[-1] if err else e}")
    except ModuleNotFoundError as e:  # a script that needs an extra this environment lacks (torch, vllm)
        if (e.name or "").split(".")[0] not in OPTIONAL:
            raise  # the project's own import broke: a failure, not a skip
        pytest.skip(f"{argv[1]} needs {e.name}")


def test_a_wrong_option_is_caught(monkeypatch, capsys):
    assert USAGE_ERRORS.__name__ == "ClickException"
    with pytest.raises(USAGE_ERRORS, match="no-such-option"):
        _parse_whowrote(["study", "--no-such-option"])
    with pytest.raises(USAGE_ERRORS, match="Missing parameter: traces"):
        _parse_whowrote(["traces", "/tmp/report"])  # no traces named
    with pytest.raises(USAGE_ERRORS):
        _parse_whowrote(["data", "splits"])  # a subcommand that does not exist
    with pytest.raises(SystemExit):
        _parse_whowrote(["predict", "--explain", "many"])
    with pytest.raises(SystemExit):
        _parse_script(["python", "benchmarks/robustness.py", "--corpus", "c.jsonl", "--out", "o", "--no-such-option"],
                      ".", monkeypatch)
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err
    with pytest.raises(AssertionError, match="does not exist"):
        _parse_script(["python", "benchmarks/gone.py"], ".", monkeypatch)
    _parse_script(["python", "benchmarks/robustness.py", "--corpus", "c.jsonl", "--out", "o", "--splits", "generation"],
                  ".", monkeypatch)  # parses, and stops there (c.jsonl is never read)


def test_a_command_with_shell_variables_still_has_its_option_names_checked(monkeypatch):
    ok = DocCommand("x", ("whowrote", "train", "coldstart", "X", "--set", "a=1"), options_only=True)
    _check_option_names(ok, monkeypatch)
    with pytest.raises(AssertionError, match="--no-such-option"):
        _check_option_names(DocCommand("x", ("whowrote", "study", "X", "--no-such-option"), options_only=True), monkeypatch)
    with pytest.raises(AssertionError, match="--nope"):
        _check_option_names(DocCommand("x", ("python", "benchmarks/robustness.py", "--corpus", "X", "--nope"),
                                       options_only=True), monkeypatch)
    assert any(c.options_only for c in COMMANDS)  # the docs do use variables ($C in docs/train.md)


def test_eval_edit_help_names_every_edit_of_the_suite():
    from whowrote.cli import _build_app
    from whowrote.style.edits import edits

    cmd = typer.main.get_command(_build_app())
    ctx = cmd.make_context("whowrote", [], resilient_parsing=True)
    [edit] = [p for p in cmd.get_command(ctx, "eval").params if "--edit" in p.opts]
    assert all(name in edit.help for name in edits() if name != "raw"), edit.help
