"""Every reference to a section of a doc names a section that exists, and every link a file.

Code, docs and results point readers at the evidence with ``docs/predict.md, "Tree settings"``: a
file and a section's title (or its first words). Pages get split and sections renamed, and such a
reference then sends the reader to nothing. This test reads every tracked-looking text file (Markdown,
Python, shell, TOML) of the repository, finds each ``docs/NAME.md`` followed by a quoted name, and
asks that the file exists and that the name starts a heading or a bold lead-in (``**…**``) there.
``"A → B"`` names a section and a part of it; each part must exist. A quoted name may wrap onto the
next line, behind a comment's ``#``. Every relative Markdown link of README.md and docs/ (outside
inline code) must point to a file that exists, and its ``#anchor``, if any, to a heading there (GitHub's
slug: lower case, punctuation dropped, spaces as hyphens)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SEARCHED = ["README.md", "docs", "src", "tests", "benchmarks", "scripts", "results", "configs", "environments"]
SUFFIXES = {".md", ".py", ".sh", ".toml"}
# `docs/x.md`, optionally a closing backtick or quote, a comma or colon, then the quoted name (which may
# wrap onto a comment line); the name is at most 160 characters, so the pattern stays linear-time
REFERENCE = re.compile(r"(docs/[\w-]+\.md)[`']?[,:]?[ \t]*(?:\n[ \t]*#?[ \t]*)?\"([^\"]{3,160})\"")
HEADING = re.compile(r"^#{1,6} +(.+)$", re.MULTILINE)
BOLD = re.compile(r"\*\*([^*]{3,300}?)\*\*")
LINK = re.compile(r"\]\(([^()\s]{1,300})\)")
INLINE_CODE = re.compile(r"`[^`\n]{0,500}`")


def _squash(text: str) -> str:
    """One space for each run of white space and comment markers (a name wrapped in a comment)."""
    return re.sub(r"[ \t]*\n[ \t]*(?:#[ \t]*)?|[ \t]+", " ", text).strip()


@cache
def section_names(doc: Path) -> tuple[str, ...]:
    text = doc.read_text(encoding="utf-8")
    return tuple(_squash(m) for m in [*HEADING.findall(text), *BOLD.findall(text)])


def names_a_section(doc: Path, name: str) -> bool:
    sections = section_names(doc)
    return all(any(s.startswith(part) for s in sections) for part in _squash(name).split(" → "))


def references(text: str) -> list[tuple[int, str, str]]:
    """``(line, doc path, quoted name)`` of each section reference in a file's text."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)) for m in REFERENCE.finditer(text)]


def _files() -> list[Path]:
    out = []
    for top in SEARCHED:
        path = REPO / top
        out += [path] if path.is_file() else [p for p in sorted(path.rglob("*")) if p.suffix in SUFFIXES]
    return [p for p in out if p != Path(__file__) and "__pycache__" not in p.parts]


def broken_references(paths: list[Path]) -> list[str]:
    broken = []
    for path in paths:
        for line, doc, name in references(path.read_text(encoding="utf-8", errors="replace")):
            where = f"{path.name if not path.is_relative_to(REPO) else path.relative_to(REPO)}:{line}"
            if not (REPO / doc).is_file():
                broken.append(f"{where}: {doc} does not exist")
            elif not names_a_section(REPO / doc, name):
                broken.append(f"{where}: {doc} has no section {name!r}")
    return broken


def test_every_section_reference_names_a_section() -> None:
    assert broken_references(_files()) == []


def test_the_repository_has_references_to_check() -> None:
    # guards the test above against a pattern that silently matches nothing
    assert sum(len(references(p.read_text(encoding="utf-8", errors="replace"))) for p in _files()) > 100


@pytest.mark.parametrize(("text", "expected"), [
    ('see docs/predict.md, "How it works".', True),
    ('(docs/predict.md "Holding up on texts unlike the training data")', True),  # a prefix is enough
    ('docs/predict.md, "How it broke"', False),
    ('docs/gpu-notes.md, "Session 40 → Next session\'s calls"', True),
    ('docs/gpu-notes.md, "Session 40 → Next month\'s calls"', False),
    ('docs/predict-trials.md, "Tree settings"', True),
    ('docs/predict.md, "Tree settings"', False),  # moved to predict-trials.md
    ('# a comment (docs/predict.md,\n    # "How it\n    # works")', True),
])
def test_a_reference_resolves_only_to_a_section_that_exists(text: str, expected: bool) -> None:
    [(_, doc, name)] = references(text)
    assert names_a_section(REPO / doc, name) is expected


def test_a_missing_doc_and_a_missing_section_are_reported(tmp_path: Path) -> None:
    text = tmp_path / "notes.py"
    text.write_text('# see docs/nowhere.md, "Anything"\n# and docs/predict.md, "No such section"\n'
                    '# but docs/predict.md, "How it works" is there\n', encoding="utf-8")
    assert broken_references([text]) == ["notes.py:1: docs/nowhere.md does not exist",
                                         "notes.py:2: docs/predict.md has no section 'No such section'"]


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@cache
def heading_slugs(doc: Path) -> frozenset[str]:
    return frozenset(slug(h) for h in HEADING.findall(doc.read_text(encoding="utf-8")))


def broken_links(page: Path) -> list[str]:
    text = INLINE_CODE.sub("", page.read_text(encoding="utf-8"))
    broken = []
    for m in LINK.finditer(text):
        target = m.group(1)
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        doc = (page.parent / path) if path else page
        if not doc.is_file():
            broken.append(f"{page.name}: {target} does not exist")
        elif anchor and doc.suffix == ".md" and anchor not in heading_slugs(doc.resolve()):
            broken.append(f"{page.name}: {target} names no heading of {doc.name}")
    return broken


def test_every_link_of_the_docs_points_to_a_file_and_heading_that_exist() -> None:
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    assert [b for page in pages for b in broken_links(page)] == []


def test_a_broken_link_or_anchor_is_reported(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# Speed and memory (issue 11)\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[a](there.md#speed-and-memory-issue-11) [b](gone.md) [c](there.md#speed)\n"
                    "`[d](in-code.md)` [e](https://example.org/x)\n", encoding="utf-8")
    assert broken_links(page) == ["page.md: gone.md does not exist", "page.md: there.md#speed names no heading of there.md"]
