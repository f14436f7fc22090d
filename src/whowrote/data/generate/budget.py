"""The dry run: which cells a plan makes, which are done, and what the rest will cost.

Token estimates: prompts at 4 characters per token; answers at ``TOKENS_PER_WORD`` tokens per
asked-for word (English prose under current BPE tokenizers), with the output budget
(``max_tokens``) as the upper bound. Costs need the plan's ``price = {input = ..., output = ...}``
(USD per million tokens) per model; none is assumed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from whowrote.data.generate.plan import Cell, Plan

CHARS_PER_TOKEN = 4
TOKENS_PER_WORD = 1.35


@dataclass
class Line:
    model: str
    api: str
    provider: str
    cells: int = 0
    done: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    max_output_tokens: int = 0
    cost: float | None = None
    max_cost: float | None = None


@dataclass
class Budget:
    lines: list[Line] = field(default_factory=list)
    proposal_requests: int = 0
    missing_keys: list[str] = field(default_factory=list)

    def totals(self) -> Line:
        t = Line("total", "", "")
        for ln in self.lines:
            t.cells += ln.cells
            t.done += ln.done
            t.input_tokens += ln.input_tokens
            t.output_tokens += ln.output_tokens
            t.max_output_tokens += ln.max_output_tokens
            for attr in ("cost", "max_cost"):
                if getattr(ln, attr) is not None:
                    setattr(t, attr, (getattr(t, attr) or 0.0) + getattr(ln, attr))
        return t

    def to_dict(self) -> dict:
        return {"models": [ln.__dict__ for ln in self.lines], "total": self.totals().__dict__,
                "topic_proposal_requests": self.proposal_requests, "missing_keys": self.missing_keys}


def estimate(plan: Plan, cells: Iterable[Cell], done: set[str], proposal_requests: int = 0) -> Budget:
    from whowrote.data.generate.clients import missing_key

    lines = {m.name: Line(m.name, m.api, m.provider) for m in plan.models}
    for c in cells:
        ln = lines[c.model.name]
        ln.cells += 1
        if c.id in done:
            ln.done += 1
            continue
        ln.input_tokens += -(-(len(c.prompt) + len(c.genre.system or "")) // CHARS_PER_TOKEN) + 8
        ln.output_tokens += min(c.max_tokens, round(c.words * TOKENS_PER_WORD))
        ln.max_output_tokens += c.max_tokens
    for m in plan.models:
        ln = lines[m.name]
        if m.price_in is not None and m.price_out is not None:
            ln.cost = (ln.input_tokens * m.price_in + ln.output_tokens * m.price_out) / 1e6
            ln.max_cost = (ln.input_tokens * m.price_in + ln.max_output_tokens * m.price_out) / 1e6
    missing = sorted({k for m in plan.models if (k := missing_key(m))})
    return Budget(list(lines.values()), proposal_requests, missing)


def render(budget: Budget, console) -> None:
    from rich.table import Table

    table = Table(title="Generation plan (dry run: nothing is sent)")
    for col in ("model", "api", "provider", "cells", "done", "to do", "input tok", "output tok (est.)",
                "output tok (max)", "cost USD (est.)", "cost USD (max)"):
        table.add_column(col, justify="left" if col in ("model", "api", "provider") else "right")

    def money(x: float | None) -> str:
        return "-" if x is None else f"{x:,.2f}"

    for ln in [*budget.lines, budget.totals()]:
        table.add_row(ln.model, ln.api, ln.provider, f"{ln.cells:,}", f"{ln.done:,}", f"{ln.cells - ln.done:,}",
                      f"{ln.input_tokens:,}", f"{ln.output_tokens:,}", f"{ln.max_output_tokens:,}",
                      money(ln.cost), money(ln.max_cost))
    console.print(table)
    if budget.proposal_requests:
        console.print(f"plus {budget.proposal_requests} topic-proposal request(s) before generating")
    if budget.missing_keys:
        console.print(f"missing API keys (set them in the environment): {', '.join(budget.missing_keys)}")
