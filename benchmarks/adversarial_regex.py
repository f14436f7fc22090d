"""Regexes and the predict/serve text path on adversarial inputs: is every step linear?

    python benchmarks/adversarial_regex.py                 # both parts
    python benchmarks/adversarial_regex.py --part path --sizes 10000 100000 1000000 2000000

- ``audit``: every module-level compiled regex of every importable ``whowrote`` module and every
  feature's highlight pattern, run (``finditer`` to the end) over
  each adversarial input at two sizes 4x apart. A linear regex takes ~4x as long; a quadratic one
  ~16x. Rows whose larger run took over ``--min-s`` seconds and grew more than ``--flag`` x are
  printed as SUPERLINEAR.
- ``path``: what ``whowrote predict`` and ``POST /v1/predict`` do with one text - the input check
  (HTML stripping), the 197 features, the highlight spans of the features that are not plain
  words (and three that are), as ``tell_spans`` and as the page's ``highlight_spans`` - over each
  adversarial input at each size, with the growth per 10x of size (~10 = linear).
"""

from __future__ import annotations

import argparse
import importlib
import math
import pkgutil
import re
import time

import whowrote

# Runs of one unit: newlines, spaces, Markdown marks, quotes, unclosed tags and delimiters.
UNITS = ("\n", " ", "\t", " \n", "\n ", "-", "- ", "#", "*", "**a ", "`", "$", "~", ":", "|", "| ", '"', "'",
         "<", "<p ", "<a ", "<!--", "<!-- >", "</", "<script>", "<![", "<?", "<br ", "<answer>", "<reason_why>",
         "[a", "[a](", "\\[", "\\(", "_a ", "a", "1.", ">", "\u2014", "  \n", "-- ", "<p>a")


def adversarial(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


def _patterns() -> dict[str, re.Pattern[str]]:
    out: dict[str, re.Pattern[str]] = {}
    for info in pkgutil.walk_packages(whowrote.__path__, "whowrote."):
        try:
            mod = importlib.import_module(info.name)
        except Exception:  # noqa: BLE001  (modules of extras that are not installed)
            continue
        for key, value in vars(mod).items():
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                out[f"{info.name}.{key}"] = value
    from whowrote.style.highlight import highlight_patterns

    out.update({f"feature:{f}": re.compile(p) for f, p in highlight_patterns("full").items()})
    return out


def _time(fn, text: str, repeat: int = 1) -> float:
    """Best of ``repeat`` runs (a busy machine's preemptions only ever add time)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - t0)
    return best


def audit(small: int, flag: float, min_s: float) -> None:
    pats = _patterns()
    print(f"audit: {len(pats)} regexes x {len(UNITS)} inputs at {small:,} and {4 * small:,} characters")
    bad = 0
    for name, rx in pats.items():
        for unit in UNITS:
            ts = [_time(lambda t, rx=rx: sum(1 for _ in rx.finditer(t)), adversarial(unit, n), 3)
                  for n in (small, 4 * small)]
            if ts[1] > min_s and ts[1] / max(ts[0], 1e-9) > flag:
                bad += 1
                print(f"SUPERLINEAR {name:55s} {unit!r:14s} {ts[0]:.3f} s -> {ts[1]:.3f} s ({ts[1] / ts[0]:.0f}x)")
    print(f"{bad} superlinear (regex, input) pairs")


def path(sizes: list[int], units: tuple[str, ...] = UNITS) -> None:
    from whowrote.style.features import extract
    from whowrote.style.highlight import highlight_patterns, highlight_spans, tell_spans_many
    from whowrote.style.textcheck import inspect_text

    # Every pattern that is not a plain word (Markdown, punctuation: the risky ones) plus three
    # word patterns; all 197 at 2 MB take ~30 s (linear, but a word regex costs ~0.2 s/MB).
    pats = highlight_patterns("full")
    features = [f for f, p in pats.items() if not p.startswith(r"(?i)\b")] + ["fw_the", "lex_hedges", "ph_in_fact"]
    steps = {
        "inspect_text": inspect_text,
        "extract(full)": lambda t: extract([t], "full"),
        "tell_spans": lambda t: tell_spans_many(t, features),
        "highlight_spans": lambda t: highlight_spans(t, features),
    }
    print("path: seconds per step; 'growth' = time ratio per 10x size (10 = linear, 100 = quadratic)")
    print(f"{'input':14s} {'step':16s} " + " ".join(f"{n:>10,}" for n in sizes) + "   growth")
    worst = 0.0
    for unit in units:
        for step, fn in steps.items():
            ts = [_time(fn, adversarial(unit, n), 3 if n <= 100_000 else 1) for n in sizes]
            per10 = (ts[-1] / max(ts[0], 1e-6)) ** (1 / max(math.log10(sizes[-1] / sizes[0]), 1e-9))
            worst = max(worst, ts[-1])
            print(f"{unit!r:14s} {step:16s} " + " ".join(f"{t:10.4f}" for t in ts) + f"   {per10:6.1f}")
    print(f"slowest step at {sizes[-1]:,} characters: {worst:.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("audit", "path", "both"), default="both")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000, 2_000_000])
    ap.add_argument("--audit-size", type=int, default=5_000)
    ap.add_argument("--flag", type=float, default=8.0, help="growth (for 4x size) counted as superlinear")
    ap.add_argument("--min-s", type=float, default=0.05, help="ignore pairs faster than this (timer noise)")
    ap.add_argument("--units", nargs="+", help="only these inputs for the path part (Python escapes: '\\n')")
    args = ap.parse_args()
    if args.part in ("audit", "both"):
        audit(args.audit_size, args.flag, args.min_s)
    if args.part in ("path", "both"):
        units = tuple(u.encode().decode("unicode_escape") for u in args.units) if args.units else UNITS
        path(args.sizes, units)


if __name__ == "__main__":
    main()
