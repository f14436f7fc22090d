"""Per-genre accuracy of k = 4 evals whose traces predate the ``genre`` field (session 21).

The ladder's val mixes blog posts (CLAUDE and CHATGPT only) with debates (all three), so a pooled
number can hide a genre that fails: under the Markdown edits the answer-only LM lost 5.5 points in
all, which was its CLAUDE blog posts. This reads every ``DIR/eval_k4*/traces.jsonl``, takes each
prompt's genre from the split file by id, and writes :func:`whowrote.llm.metrics.per_genre` for each
eval (the harness now records the genre itself, so new runs have ``per_genre`` in ``summary.json``)::

    python scripts/gpu/genre_breakdown.py --split .gguf/data/val.jsonl.gz .gguf/edits/chat.jsonl.gz \\
        --runs /tmp/s21t/qwen05b/sft_answer_only --out results/session21/A0_splits/per_genre.json

``--by model`` groups by the split's ``model`` field instead (session 38: which assistant versions
the LM reads among the Arena-Hard answers, held-out versions included); ``--by held_out`` pools them
into the versions no training file holds (``external_answers.HELD_OUT``) and the others (session 39).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from external_answers import HELD_OUT  # noqa: E402

from whowrote.data.generate.store import atomic_write
from whowrote.llm.evaluate import load_traces
from whowrote.llm.metrics import per_genre
from whowrote.train.data import read_rows
from whowrote.types import PROVIDERS

GROUPS = ("genre", "model", "held_out")


def group_of(row: dict, by: str) -> str | None:
    """A split row's group: its ``genre`` or ``model`` field, or for ``held_out`` whether its model is one
    of the versions no training file holds (``held-out version``) or not (``other version``)."""
    if by == "held_out":
        return "held-out version" if HELD_OUT.match(str(row.get("model") or "")) else "other version"
    return row.get(by)


def eval_k(eval_dir: Path) -> int:
    """Samples per prompt of an eval: its ``run.json``'s ``k``, else the 4 of its ``eval_k4`` name
    (the traces archives carry no ``run.json``)."""
    run_json = eval_dir / "run.json"
    if not run_json.is_file():
        return 4
    try:
        return int(json.loads(run_json.read_text())["k"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise SystemExit(f"error: {run_json}: no readable k ({e})") from None


def breakdown(splits: list[Path], runs: list[Path], by: str = "genre") -> dict[str, dict]:
    """``{"RUN/EVAL": per_genre block}`` for every eval folder with traces under each run folder; each
    prompt's group (its ``by`` field: genre or model) from whichever split file holds its id."""
    group = {str(r["id"]): group_of(r, by) for split in splits for r in read_rows(split)}
    out: dict[str, dict] = {}
    for run in runs:
        for traces in sorted(run.glob("eval_k4*/traces.jsonl")):
            k = eval_k(traces.parent)
            records, _ = load_traces(traces, k)  # the harness's reader: torn or corrupt lines are skipped
            missing = {r["prompt_id"] for r in records} - set(group)
            if missing:
                raise SystemExit(f"error: {traces}: {len(missing)} prompt ids are in none of the split files")
            block = per_genre([{**r, "genre": group[r["prompt_id"]]} for r in records], PROVIDERS)  # per_genre reads "genre"
            out[f"{run.name}/{traces.parent.name}"] = block.get("per_genre", {})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", type=Path, nargs="+", required=True, help="the splits the evals scored (ids -> genre)")
    ap.add_argument("--runs", type=Path, nargs="+", required=True, help="run folders holding eval_k4*/traces.jsonl")
    ap.add_argument("--out", type=Path, help="write the breakdown here (JSON)")
    ap.add_argument("--by", choices=GROUPS, default="genre", help="the split field (or held_out) to group by")
    a = ap.parse_args(argv)
    for p in (*a.split, *a.runs):
        if not p.exists():
            print(f"error: not found: {p}", file=sys.stderr)
            return 2
    result = breakdown(a.split, a.runs, a.by)
    if not result:
        print("error: no eval_k4*/traces.jsonl under the run folders", file=sys.stderr)
        return 2
    for name, genres in result.items():
        cells = "; ".join(f"{g} {b['accuracy']:.3f} (" + ", ".join(f"{k} {v:.2f}" for k, v in b["recall"].items()) + ")"
                          for g, b in genres.items())
        print(f"{name}: {cells}")
    if a.out:
        atomic_write(a.out, json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
