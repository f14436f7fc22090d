"""``whowrote data generate``: build a labelled corpus from the providers' own APIs (or local models).

plan.py (the typed TOML plan and its cells) -> clients.py (one interface over the official SDKs
and the ``whowrote.llm`` backends) -> run.py (concurrency, resume, hygiene) -> store.py (the
append-only rows and the Markdown tree); budget.py is the dry run, fake_server.py a local
stand-in for the three APIs (tests and docs). See docs/generate.md.
"""

from whowrote.data.generate.plan import Plan, load_plan
from whowrote.data.generate.run import RunReport, run

__all__ = ["Plan", "RunReport", "load_plan", "run"]
