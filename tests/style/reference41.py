"""A slow, literal implementation of research-spec §5.1, written from the spec text only."""

from __future__ import annotations

import re

WORDS = ["however", "moreover", "furthermore", "nuanced", "crucial", "essentially", "indeed", "arguably",
         "delve", "tapestry", "underscore", "intricate", "nevertheless", "consequently", "notably", "ultimately"]


def reference41(t: str) -> list[float]:
    n_char = max(len(t), 1)
    words = re.findall(r"[A-Za-z']+", t)
    nw = max(len(words), 1)
    sents = [s for s in re.split(r"[.!?]+", t) if s.strip()]
    ns = max(len(sents), 1)
    low = t.lower()

    def per_k(n: int) -> float:
        return 1000 * n / n_char

    def lines(p: str) -> int:
        return len(re.findall(p, t, re.M))

    out = [
        nw / ns,
        sum(len(w) for w in words) / len(words) if words else 0.0,
        len({w.lower() for w in words}) / nw,
        per_k(t.count(",")), per_k(t.count(";")), per_k(t.count(":")), per_k(t.count("\u2014")),
        per_k(t.count("?")), per_k(t.count("!")), per_k(t.count("(")), per_k(t.count('"')),
        per_k(lines(r"^# ")), per_k(lines(r"^(?:## |### )")), per_k(lines(r"^\s*[-*] ")),
        per_k(lines(r"^\s*\d+\. ")), per_k(t.count("**")), per_k(t.count("```")), per_k(t.count("|")),
        per_k(lines(r"^> ")),
        per_k(t.count("$") + len(re.findall(r"\\\(|\\\[|\\frac|\\begin", t))),
        per_k(len(re.findall(r"[+|\\/_=^<>]{2,}|[\u2500-\u257F]", t))),
        per_k(len(re.findall(r"\bI\b", t))), per_k(len(re.findall(r"\b[Ww]e\b", t))),
    ]
    out += [1000 * len(re.findall(rf"\b{w}\b", low)) / nw for w in WORDS]
    out += [sum(c.isdigit() for c in t) / n_char, sum(c.isupper() for c in t) / n_char]
    return out
