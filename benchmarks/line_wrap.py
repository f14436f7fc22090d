"""Hard-wrapped lines joined back (issue 17, session 53): what a tool's line wrapping costs the verdict.

Mail clients, ``fmt``, editors and pandoc's Markdown output wrap every long line at 60–80 columns
(``whowrote.style.line_wrap.hard_wrap``: the suite's ``hard_wrap`` edit, 72). Since session 53 the
canonical form the model reads joins a wrapped text's lines back (``line_wrap.unwrap``). This fits
the default recipe on the topic hold-out's train part (as ``benchmarks/robustness.py`` does,
sharing its feature cache) and scores the val texts:

- ``raw``; ``wrap60`` / ``wrap72`` / ``wrap80``: wrapped at that width, read as the model reads them
  now (joined back where the rule fires);
- ``wrap72_kept``: wrapped at 72 and read with the joining switched off (the model before session 53).

Drops are raw minus reading, in points, with 95 % paired topic-bootstrap intervals. It also counts
how often the rule fires: on every corpus text as written (``--corpus`` files, all of them), and on
the val texts' wrapped copies (and how many of those come back exactly).

    OMP_NUM_THREADS=1 python benchmarks/line_wrap.py --corpus ../shared/corpus/{blogs,debates,fiction,longform,chat}.jsonl \\
        --out results/line_wrap

``--answers DIR`` (a FastChat ``model_answer`` folder, e.g. MT-Bench's) scores the bundled model on
those answers instead (drops over bootstrapped questions):

    OMP_NUM_THREADS=1 python benchmarks/line_wrap.py --answers /tmp/mtbench/model_answer --out results/line_wrap_mtbench

Writes ``line_wrap.json`` and ``line_wrap.png`` under ``--out``.
"""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

from html_reader import (
    model_and_texts,
    readings_args,
    readings_result,
    score_readings,
    write_readings,
)
from robustness import timed_log

from whowrote.data.corpus import load_corpus
from whowrote.style import canonical as canonical_module
from whowrote.style.line_wrap import hard_wrap, unwrap

WIDTHS = (60, 72, 80)


def firing(texts: list[str]) -> dict:
    """How often the rule fires on ``texts`` as written and on their wrapped copies, and how many
    of those come back exactly."""
    out: dict = {"n": len(texts), "fired_as_written": int(sum(unwrap(t)[1] is not None for t in texts))}
    for width in WIDTHS:
        pairs = [(t, hard_wrap(t, width)) for t in texts]
        changed = [(t, w) for t, w in pairs if w != t]
        back = [(t, unwrap(w)) for t, w in changed]
        out[f"wrap{width}"] = {"changed_by_the_wrap": len(changed), "joined": int(sum(j[1] is not None for _, j in back)),
                               "exactly_back": int(sum(j[0] == t for t, j in back))}
    return out


def main() -> None:
    ap = readings_args(__doc__.splitlines()[0])
    args = ap.parse_args()
    log = timed_log()
    model, val, featurise = model_and_texts(ap, args, log)
    every = load_corpus([Path(p) for p in args.corpus])["text"].tolist() if args.corpus and not args.answers else None
    texts = val["text"].tolist()
    readings = {"raw": texts, **{f"wrap{w}": [hard_wrap(t, w) for t in texts] for w in WIDTHS}}
    P = score_readings(model, readings, featurise)
    with mock.patch.object(canonical_module, "unwrap", lambda text: (text, None)):  # the reading before session 53
        P["wrap72_kept"] = score_readings(model, {"k": readings["wrap72"]}, featurise)["k"]
    log("scored " + ", ".join(P))
    result = {"n": len(texts), "seed": args.seed, "answers": str(args.answers or ""),
              **readings_result(model, val, P, args.seed), "firing_val": firing(texts)}
    if every is not None:
        result["fired_on_every_corpus_text"] = {"n": len(every), "fired": int(sum(unwrap(t)[1] is not None for t in every))}
    log("counted firing")
    write_readings(result, args.out, "line_wrap", "A text hard-wrapped by a tool, read back", log)
    print(json.dumps({k: result[k] for k in ("firing_val", "fired_on_every_corpus_text") if k in result}, indent=1))


if __name__ == "__main__":
    main()
