"""Running a plan: topics, then every cell not yet done, written as it arrives.

Requests run in one thread pool per concurrency group (an API, an endpoint, a local model) with
the plan's ``[concurrency]`` workers each; the main thread alone audits and appends the replies,
so rows never interleave. A re-run reads ``generated.jsonl`` and ``dropped.jsonl`` back
(:func:`whowrote.data.generate.store.recover`) and sends only the missing cells. An auth failure
or a refused request stops the run (after writing whatever already arrived); cells still failing
after the retries are listed in the report and retried by the next run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from whowrote.data.generate import store
from whowrote.data.generate.clients import Client, Reply, Request, TransientError, make_client
from whowrote.data.generate.hygiene import check
from whowrote.data.generate.plan import TOPIC_PROPOSAL_PROMPT, Cell, Plan, Topic, cells
from whowrote.data.outdir import claim_folder
from whowrote.types import WhowroteError

Log = Callable[[str], None]


@dataclass
class RunReport:
    planned: int = 0
    already_done: int = 0
    written: int = 0
    truncated: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    dropped_rows: list[dict] = field(default_factory=list)  # id + why, for the report file
    failed: list[dict] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    markdown_files: int = 0

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    def summary(self) -> str:
        drops = ", ".join(f"{k} {v}" for k, v in sorted(self.dropped.items())) or "none"
        return (f"{self.planned} cells: {self.already_done} already done, {self.written} written now "
                f"({self.truncated} truncated, kept and marked), dropped by leak hygiene: {drops}; "
                f"{len(self.failed)} failed; {self.prompt_tokens:,} prompt + {self.completion_tokens:,} "
                f"completion tokens in {self.seconds:.1f} s")


def done_ids(out: Path, log: Log, repair: bool = True) -> set[str]:
    """Ids of the cells already written (kept or dropped), after cutting any partial last line
    (``repair=False``, for the dry run: the files are left as they are)."""
    return {str(r["id"]) for name in (store.ROWS, store.DROPPED) for r in store.recover(out / name, log, repair)}


def resolve_topics(plan: Plan, out: Path, clients: Mapping[str, Client] | None, log: Log,
                   dry_run: bool = False) -> tuple[tuple[Topic, ...], int]:
    """The plan's topics plus the proposed ones (cached in ``DIR/topics.jsonl``), and how many
    proposal requests are still to make. In a dry run, missing proposals are placeholders."""
    if plan.proposal is None:
        return plan.topics, 0
    p = plan.proposal
    cached = store.recover(out / store.TOPICS, log, repair=not dry_run)
    have: dict[str, list[str]] = {}
    for r in cached:
        have.setdefault(str(r["category"]), []).append(str(r["topic"]))
    todo = [c for c in p.categories if len(have.get(c, [])) == 0]
    if todo and dry_run:
        for c in todo:
            have[c] = [f"<topic {i + 1} to be proposed by {p.model}>" for i in range(p.per_category)]
    elif todo:
        client = _client(plan, p.model, clients)
        out.mkdir(parents=True, exist_ok=True)
        with store.Appender(out / store.TOPICS) as app:
            for c in todo:
                prompt = TOPIC_PROPOSAL_PROMPT.format(n=p.per_category, genre=p.genre, category=c)
                budget = 60 * p.per_category + 256 + plan.model(p.model).extra_output_tokens
                try:
                    reply = client.generate([Request(prompt=prompt, max_tokens=budget)])[0]
                except TransientError as e:
                    raise WhowroteError(f"{p.model} could not propose topics for {c!r} ({e}); run again") from None
                topics = parse_topic_list(reply.text)[: p.per_category]
                if not topics:
                    raise WhowroteError(f"{p.model} proposed no topics for category {c!r}")
                if len(topics) < p.per_category:
                    log(f"{p.model} proposed {len(topics)} of {p.per_category} topics for {c!r}")
                for t in topics:
                    app.write({"id": f"{c}\t{t}", "category": c, "topic": t, "proposed_by": p.model})
                have[c] = topics
                log(f"topics: {len(topics)} for {c!r} from {p.model}")
    proposed = tuple(Topic(c, t) for c in p.categories for t in have.get(c, [])[: p.per_category])
    return tuple(dict.fromkeys(plan.topics + proposed)), len(todo)


def parse_topic_list(text: str) -> list[str]:
    """One topic per line; list markers, numbering and wrapping quotes removed, duplicates dropped."""
    out: list[str] = []
    seen: set[str] = set()
    for line in text.splitlines():
        t = line.strip().lstrip("-*•").strip()
        digits = len(t) - len(t.lstrip("0123456789"))
        if 0 < digits < len(t) and t[digits] in ".):":  # "1." / "2)" / "3:" numbering
            t = t[digits + 1:].strip()
        t = t.strip("\"'“”*").strip()
        if t and len(t) <= 300 and t.lower() not in seen:
            out.append(t)
            seen.add(t.lower())
    return out


def row_of(cell: Cell, reply: Reply, plan: Plan) -> dict[str, Any]:
    """The JSONL row of one reply: the corpus columns first, then full provenance (never a key)."""
    s = cell.model.sampling
    return {
        "id": cell.id, "text": reply.text, "provider": cell.model.provider, "model": cell.model.name,
        "category": cell.topic.category, "topic": cell.topic.topic, "genre": cell.genre.name,
        "subgenre": None,  # with ``genre`` present, load_corpus keeps our genre (not the file name)
        "length": cell.length, "words_asked": cell.words, "sample": cell.sample,
        "prompt_id": cell.genre.prompt_id, "prompt": cell.prompt, "system": cell.genre.system,
        "api": cell.model.api, "base_url": _public_url(cell.model.base_url) if cell.model.api == "openai-compatible"
        else None,
        # What was sent (an SDK may not take every setting the plan names), plus the output budget.
        "sampling": {**(reply.sent if reply.sent is not None else {"temperature": s.temperature, "top_p": s.top_p,
                                                                    "seed": _seed(cell)}),
                     "max_tokens": cell.max_tokens, **({"extra": cell.model.extra} if cell.model.extra else {})},
        "response_id": reply.response_id, "served_model": reply.served_model,
        "finish_reason": reply.finish_reason, "truncated": reply.truncated,
        "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
        "reasoning_tokens": reply.reasoning_tokens, "n_words": len(reply.text.split()),
        "created": datetime.now(UTC).isoformat(timespec="seconds"), "plan": plan.name,
    }


def _public_url(url: str | None) -> str | None:
    """``url`` without a ``user:password@`` part or a query string (either may carry a secret)."""
    from urllib.parse import urlsplit, urlunsplit

    if not url:
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host  # IPv6
    return urlunsplit((parts.scheme, host + (f":{parts.port}" if parts.port else ""), parts.path, "", ""))


def _seed(cell: Cell) -> int | None:
    s = cell.model.sampling.seed
    return None if s is None else s + cell.sample


def _client(plan: Plan, name: str, clients: Mapping[str, Client] | None) -> Client:
    if clients and name in clients:
        return clients[name]
    return make_client(plan.model(name), plan)


def run(plan: Plan, out: str | Path, *, clients: Mapping[str, Client] | None = None, markdown: bool = False,
        log: Log = print) -> RunReport:
    """Generate every missing cell of ``plan`` into ``out`` (see the module docstring)."""
    from whowrote.data.generate.clients import missing_key

    out = Path(out)
    missing = sorted({k for m in plan.models if (k := missing_key(m)) and not (clients and m.name in clients)})
    if missing:
        raise WhowroteError(f"set the API key(s) in the environment first: {', '.join(missing)}")
    claim_folder(out, "whowrote data generate", _earlier_run)  # never appends to a user's files
    started = time.perf_counter()
    done = done_ids(out, log)
    topics, _ = resolve_topics(plan, out, clients, log)
    todo_all = cells(plan, topics)
    report = RunReport(planned=len(todo_all))
    todo = [c for c in todo_all if c.id not in done]
    report.already_done = len(todo_all) - len(todo)
    log(f"{len(todo_all)} cells, {report.already_done} already done, {len(todo)} to generate")
    if todo:
        _generate(plan, out, todo, clients, report, log)
    report.seconds = round(time.perf_counter() - started, 2)
    if markdown:
        report.markdown_files = store.write_markdown_tree(out / store.MARKDOWN, store.recover(out / store.ROWS, log))
    store.atomic_write(out / store.REPORT, _json(report.to_dict()))
    return report


def _earlier_run(out: Path) -> bool:
    """A run folder written before folders were marked: its report, or a first row with our provenance."""
    import json

    firsts = {store.ROWS: "plan", store.DROPPED: "plan", store.TOPICS: "proposed_by", store.REPORT: "planned"}
    for name, key in firsts.items():
        try:
            with (out / name).open(encoding="utf-8") as f:
                first = json.loads(f.read() if name == store.REPORT else f.readline())
        except (OSError, ValueError):
            continue
        if isinstance(first, dict) and key in first:
            return True
    return False


def _generate(plan: Plan, out: Path, todo: list[Cell], clients: Mapping[str, Client] | None,
              report: RunReport, log: Log) -> None:
    by_model: dict[str, list[Cell]] = {}
    for c in todo:
        by_model.setdefault(c.model.name, []).append(c)
    built = {name: _client(plan, name, clients) for name in by_model}  # auth / SDK problems surface here
    check({"text": "warm-up", "model": "m"}, plan.drop)  # import the audit now, not while replies wait
    lock = threading.Lock()
    n_done = [0]
    pools: dict[str, ThreadPoolExecutor] = {}
    futures: dict[Future, list[Cell]] = {}
    fatal: BaseException | None = None
    with store.Appender(out / store.ROWS) as rows, store.Appender(out / store.DROPPED) as dropped:

        def work(client: Client, batch: list[Cell]) -> None:
            reqs = [Request(prompt=c.prompt, max_tokens=c.max_tokens, system=c.genre.system, seed=_seed(c))
                    for c in batch]
            replies = client.generate(reqs)
            # Written by the thread that received it, at once: a kill loses only requests in flight.
            with lock:
                for cell, reply in zip(batch, replies, strict=True):
                    n_done[0] += 1
                    _keep(plan, cell, reply, rows, dropped, report, log, f"[{n_done[0]}/{len(todo)}]")

        try:
            for name, group in by_model.items():
                spec, client = plan.model(name), built[name]
                pool = pools.setdefault(spec.group, ThreadPoolExecutor(plan.concurrency_of(spec.group),
                                                                       thread_name_prefix=f"gen-{spec.api}"))
                size = max(1, client.batch_size)
                for i in range(0, len(group), size):
                    futures[pool.submit(work, client, group[i:i + size])] = group[i:i + size]
            pending = set(futures)
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    batch = futures[fut]
                    if fut.cancelled():
                        continue
                    try:
                        fut.result()
                    except TransientError as e:
                        report.failed += [{"id": c.id, "model": c.model.name, "error": str(e)} for c in batch]
                        log(f"failed ({len(batch)} cell(s), {batch[0].model.name}): {e}")
                    except (WhowroteError, OSError) as e:  # auth, refused request, disk: stop sending
                        if fatal is None:
                            fatal = e if isinstance(e, WhowroteError) else WhowroteError(f"{out}: cannot write ({e})")
                            for f in pending:
                                f.cancel()
                    except Exception as e:  # noqa: BLE001 (an SDK or backend bug must not lose the run)
                        report.failed += [{"id": c.id, "model": c.model.name, "error": f"{type(e).__name__}: {e}"}
                                          for c in batch]
                        log(f"failed ({len(batch)} cell(s), {batch[0].model.name}): {type(e).__name__}: {e}")
        except KeyboardInterrupt:
            for f in futures:
                f.cancel()
            log("interrupted: writing the replies still in flight (Ctrl-C again to abandon them)")
            raise
        finally:
            # Let the requests already sent finish and be written before the files close.
            for pool in pools.values():
                pool.shutdown(wait=True, cancel_futures=True)
    if fatal is not None:
        raise fatal


def _keep(plan: Plan, cell: Cell, reply: Reply, rows: store.Appender, dropped: store.Appender,
          report: RunReport, log: Log, step: str) -> None:
    row = row_of(cell, reply, plan)
    verdict = check(row, plan.drop)
    row["text"] = verdict.text
    row["n_words"] = len(verdict.text.split())
    row["frontmatter_stripped"] = verdict.frontmatter_stripped
    row["leak_flags"] = list(verdict.flags)
    report.prompt_tokens += reply.prompt_tokens or 0
    report.completion_tokens += reply.completion_tokens or 0
    what = (f"{step} {cell.model.name} {cell.genre.name}/{cell.topic.category}: {cell.topic.topic[:50]} "
            f"({cell.length}) {row['n_words']} words, {reply.finish_reason}")
    if verdict.drop:
        dropped.write({**row, "dropped_for": list(verdict.drop), "audit": list(verdict.details)})
        for k in verdict.drop:
            report.dropped[k] = report.dropped.get(k, 0) + 1
        report.dropped_rows.append({"id": cell.id, "model": cell.model.name, "why": list(verdict.details)})
        log(f"{what}: DROPPED ({', '.join(verdict.drop)})")
        return
    rows.write(row)
    report.written += 1
    report.truncated += bool(reply.truncated)
    log(what + (" TRUNCATED (kept, marked)" if reply.truncated else ""))


def _json(obj: Any) -> str:
    import json

    from whowrote.types import jsonable

    return json.dumps(jsonable(obj), indent=1, ensure_ascii=False) + "\n"
