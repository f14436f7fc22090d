"""Load benchmark for ``whowrote serve``: requests/s and latency percentiles on loopback.

Starts ``whowrote serve`` on 127.0.0.1 (a free port, access log off) unless ``--url`` points at a
running server, then sends single-text ``POST /v1/predict`` requests with blog posts from
``../shared/corpus/blogs.jsonl`` (read at run time, cycled) from a bounded asyncio/httpx client:
``--concurrency`` requests in flight at most, ``--requests`` in all after ``--warmup``.
Besides requests/s and latency percentiles it reports the load average around the run and the
CPU seconds the server's processes (the server and its workers, read from ``/proc``) and the
client spent in it, so a busy shared machine shows in the numbers.

    python benchmarks/serve_load.py --requests 300 --concurrency 4
    python benchmarks/serve_load.py --concurrency 8 --server-arg=--workers --server-arg=1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from itertools import islice
from pathlib import Path

import httpx

from whowrote.data.readers import iter_json_rows

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "blogs.jsonl"


def load_texts(path: Path, n: int) -> list[str]:
    rows = (row for _, row in islice(iter_json_rows(path), n))
    texts = [t for t in (row.get("content") or row.get("text") or "" for row in rows) if t.strip()]
    if not texts:
        raise SystemExit(f"no texts in {path}")
    return texts


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, model: str | None, extra: list[str]) -> subprocess.Popen:
    cmd = [sys.executable, "-c", "from whowrote.cli import main; main()", "serve",
           "--host", "127.0.0.1", "--port", str(port), "--no-access-log", *extra]
    if model:
        cmd += ["--model", model]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    proc.terminate()
    raise SystemExit("server did not start within 60 s")


def tree_cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its living children (Linux ``/proc``; 0 elsewhere)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(stat.parent.name) == pid or int(fields[1]) == pid:
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


async def run_load(url: str, texts: list[str], total: int, concurrency: int,
                   highlight: bool = False) -> tuple[list[float], int, float]:
    latencies: list[float] = []
    errors = 0
    counter = iter(range(total))
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:

        async def worker() -> None:
            nonlocal errors
            for i in counter:
                t0 = time.perf_counter()
                r = await client.post("/v1/predict", json={"text": texts[i % len(texts)], "highlight": highlight})
                latencies.append(time.perf_counter() - t0)
                if r.status_code != 200:
                    errors += 1

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - t0
    return latencies, errors, wall


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--requests", type=int, default=300)
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--texts", type=int, default=40, help="how many blog posts to cycle through")
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    p.add_argument("--highlight", action="store_true", help='ask for spans too, as the page does')
    p.add_argument("--url", help="benchmark a running server instead of starting one")
    p.add_argument("--model", help="--model for the started server (default: bundled)")
    p.add_argument("--server-arg", action="append", default=[],
                   help="one more argument for the started server (repeat), e.g. --server-arg=--workers")
    p.add_argument("--json-out", type=Path, help="also write the numbers as JSON here")
    args = p.parse_args(argv)

    texts = load_texts(args.corpus, args.texts)
    proc = None
    url = args.url
    if not url:
        port = free_port()
        proc = start_server(port, args.model, args.server_arg)
        url = f"http://127.0.0.1:{port}"
    try:
        asyncio.run(run_load(url, texts, args.warmup, args.concurrency, args.highlight))
        load_before = os.getloadavg()[0]
        server_cpu, client_cpu = tree_cpu_s(proc.pid) if proc else 0.0, time.process_time()
        lat, errors, wall = asyncio.run(run_load(url, texts, args.requests, args.concurrency, args.highlight))
        server_cpu = (tree_cpu_s(proc.pid) if proc else 0.0) - server_cpu
        client_cpu = time.process_time() - client_cpu
        load_after = os.getloadavg()[0]
        version = httpx.get(f"{url}/healthz").json().get("model_version")
    finally:
        if proc:
            proc.terminate()
            proc.wait(timeout=10)
    words = [len(t.split()) for t in texts]
    result = {
        "requests": args.requests, "concurrency": args.concurrency, "highlight": args.highlight, "errors": errors,
        "texts": len(texts), "mean_words": round(statistics.mean(words)), "model_version": version,
        "wall_s": round(wall, 2), "requests_per_s": round(args.requests / wall, 1),
        "p50_ms": round(1000 * percentile(lat, 50), 1), "p90_ms": round(1000 * percentile(lat, 90), 1),
        "p99_ms": round(1000 * percentile(lat, 99), 1), "max_ms": round(1000 * max(lat), 1),
        "server_cpu_s": round(server_cpu, 2), "client_cpu_s": round(client_cpu, 2),
        "load_avg_1min": [round(load_before, 2), round(load_after, 2)],
        "server_args": args.server_arg, "cpus": os.cpu_count(),
    }
    print(json.dumps(result, indent=2))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
