"""One eval engine for a whole device call: evaluate checkpoints as the trainers finish them.

    python scripts/gpu/eval_queue.py --jobs JOBS.tsv --split val.jsonl.gz -c configs/qwen25_05b_eval.toml \
        --backend vllm --deadline EPOCH_SECONDS

``JOBS.tsv`` is read again on every poll, so the caller appends jobs while it launches trainers.
One job per line, tab-separated::

    OUT_DIR  MODEL_DIR  VARIANT  MAX_NEW_TOKENS  DONE_FILE  [SPLIT]

``SPLIT`` (optional) is a split file that job scores instead of ``--split`` (an edited copy of val,
another genre). A job is ready when ``DONE_FILE`` exists (``-``: at once): the caller writes it when the process
that trains ``MODEL_DIR`` exits. Ready jobs run in file order, those of the model already loaded
first. A job whose model is missing once its DONE_FILE exists is recorded as failed. A line ``END``
says no more jobs will come; the queue exits when every job is done or failed, or when the deadline
leaves too little time for another eval (those jobs are logged as skipped).

The sampling settings are the config's ``[eval]`` (k, temperature, top_p, batch_size in sequences,
n_val) with ``[data] max_text_tokens`` and ``[model] chat_template_kwargs``, exactly as
``whowrote train evaluate -c CONFIG`` builds them; the evaluation is the harness's ``run_eval``
(same traces, summary, faithfulness). On vLLM one engine serves every checkpoint: after the first,
weights are swapped in with vLLM's ``reload_weights`` (collective_rpc; the architectures are the
same), and the prefix cache is reset. If a swap fails, a fresh engine is built for that model.
Every job's outcome is a line in ``<JOBS>.results.jsonl``. Exit status 1 if any job failed or
was skipped.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wt import patch_vllm  # noqa: E402  (scripts/gpu/wt.py: the per-process engine settings)


@dataclass
class Job:
    out: str
    model: str
    variant: str
    max_new: int
    done_file: str
    split: str = ""

    def ready(self) -> bool:
        return self.done_file == "-" or Path(self.done_file).exists()

    def not_run(self) -> bool:
        """The caller marked the model as deliberately not trained (DONE_FILE says ``skip``)."""
        return self.done_file != "-" and Path(self.done_file).read_text().startswith("skip")


def read_jobs(path: Path) -> tuple[list[Job], bool]:
    """(jobs in file order, whether the END line is there); malformed lines are an error."""
    jobs, end = [], False
    if not path.is_file():
        return jobs, end
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        if line.strip() == "END":
            end = True
            continue
        parts = line.split("\t")
        if len(parts) not in (5, 6):
            raise SystemExit(f"{path}:{n}: want 5 or 6 tab-separated fields, got {len(parts)}: {line!r}")
        jobs.append(Job(parts[0], parts[1], parts[2], int(parts[3]), *parts[4:]))
    return jobs, end


def has_weights(model: str) -> bool:
    p = Path(model)
    return (p / "config.json").is_file() and any(p.glob("*.safetensors"))


class Engines:
    """The backend for each model: one vLLM engine whose weights are swapped, or HF models (CPU dry runs)."""

    def __init__(self, backend: str, dtype: str, template_kwargs: dict, batch_size: int, max_len: int) -> None:
        self.kind, self.dtype, self.template_kwargs = backend, dtype, template_kwargs
        self.batch_size, self.max_len = batch_size, max_len
        self.current: Any = None
        self.model = ""

    def get(self, model: str) -> tuple[Any, float]:
        """(backend for ``model``, seconds spent loading or swapping weights)."""
        t0 = time.perf_counter()
        if self.model == model:
            return self.current, 0.0
        if self.kind == "transformers":
            from whowrote.llm.backends import TransformersBackend

            self.current = None
            gc.collect()
            self.current = TransformersBackend(model, dtype=self.dtype, batch_size=self.batch_size,
                                               template_kwargs=self.template_kwargs)
        elif self.current is None:
            self.current = self._new_vllm(model)
        else:
            try:
                self.current.llm.collective_rpc("reload_weights", kwargs={"weights_path": model})
                self.current.llm.reset_prefix_cache()
                self.current.name = f"vllm:{model}"
            except Exception as e:  # a failed swap must not cost the remaining evals
                log(f"reload_weights failed ({type(e).__name__}: {e}); building a new engine for {model}")
                self.current = None
                gc.collect()
                self.current = self._new_vllm(model)
        self.model = model
        return self.current, time.perf_counter() - t0

    def _new_vllm(self, model: str) -> Any:
        from whowrote.llm.vllm_backend import VLLMBackend

        return VLLMBackend(model, dtype="bfloat16", max_model_len=self.max_len, template_kwargs=self.template_kwargs)


def log(msg: str) -> None:
    print(f"[eval-queue {time.strftime('%H:%M:%S', time.gmtime())}] {msg}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", required=True, type=Path)
    ap.add_argument("--split", required=True)
    ap.add_argument("-c", "--config", required=True)
    ap.add_argument("--set", dest="overrides", action="append", default=[])
    ap.add_argument("--backend", choices=("vllm", "transformers"), default="vllm")
    ap.add_argument("--deadline", type=float, default=0.0, help="epoch seconds; 0 = none")
    ap.add_argument("--min-left", type=float, default=40.0, help="seconds an eval needs; later ones are skipped")
    ap.add_argument("--max-model-len", type=int, default=4096)
    ap.add_argument("--poll", type=float, default=2.0)
    ap.add_argument("--warm", default="", help="build the engine on this model at start (weights swapped later)")
    a = ap.parse_args()

    from whowrote.llm.evaluate import run_eval
    from whowrote.train.config import load_config
    from whowrote.train.evaluation import harness_config

    if a.backend == "vllm":
        import os

        patch_vllm(dict(os.environ))
    cfg = load_config(a.config, a.overrides)
    d, ev = cfg.data, cfg.eval
    base = harness_config(ev, d.labels, split=a.split, seed=cfg.run.seed, dtype=cfg.model.dtype,
                          chat_template_kwargs=cfg.model.chat_template_kwargs,
                          max_text_tokens=d.max_text_tokens if d.max_text_tokens > 0 else None,
                          limit=ev.n_val or None)
    engines = Engines(a.backend, cfg.model.dtype, base.chat_template_kwargs, base.batch_size, a.max_model_len)
    results = a.jobs.with_suffix(".results.jsonl")
    finished: set[str] = set()
    bad = 0
    if a.warm and has_weights(a.warm):
        t0 = time.perf_counter()
        engines.get(a.warm)
        log(f"engine ready on {a.warm} in {time.perf_counter() - t0:.1f} s")

    def record(job: Job, status: str, **extra: Any) -> None:
        nonlocal bad
        finished.add(job.out)
        bad += status not in ("ok", "not-run")
        with results.open("a") as fh:
            fh.write(json.dumps({"out": job.out, "model": job.model, "variant": job.variant, "status": status,
                                 **extra}) + "\n")

    while True:
        jobs, end = read_jobs(a.jobs)
        pending = [j for j in jobs if j.out not in finished]
        if not pending and end:
            break
        left = a.deadline - time.time() if a.deadline else float("inf")
        if left < a.min_left:
            for j in pending:
                record(j, "skipped", reason=f"{left:.0f} s left at the deadline")
                log(f"skipped {j.out}: {left:.0f} s left")
            break
        ready = [j for j in pending if j.ready()]
        if not ready:
            time.sleep(a.poll)
            continue
        job = next((j for j in ready if j.model == engines.model), ready[0])
        if job.not_run():
            record(job, "not-run", reason=Path(job.done_file).read_text().strip())
            log(f"not run {job.out}: {Path(job.done_file).read_text().strip()}")
            continue
        if not has_weights(job.model):
            record(job, "failed", reason="no weights (the training run failed or was cut off)")
            log(f"failed {job.out}: no weights at {job.model}")
            continue
        try:
            backend, load_s = engines.get(job.model)
            hcfg = dataclasses.replace(base, out=job.out, model=job.model, variant=job.variant,
                                       max_new_tokens=job.max_new, split=job.split or base.split)
            t0 = time.perf_counter()
            s = run_eval(hcfg, backend=backend)
        except Exception as e:  # one broken checkpoint must not stop the queue
            record(job, "failed", reason=f"{type(e).__name__}: {e}"[:500])
            log(f"failed {job.out}: {type(e).__name__}: {e}")
            continue
        k = hcfg.k
        record(job, "ok", split=hcfg.split, load_s=round(load_s, 1), eval_s=round(time.perf_counter() - t0, 1),
               accuracy=s.get("accuracy"), **{f"pass@{k}": s.get(f"pass@{k}")},
               truncation_rate=s.get("truncation_rate"), faithfulness=s.get("faithfulness"),
               tokens_per_s=getattr(backend, "tokens_per_s", None))
        log(f"ok {job.out}: pass@1 {s.get('accuracy')} pass@{k} {s.get(f'pass@{k}')} "
            f"(load {load_s:.1f} s, eval {time.perf_counter() - t0:.1f} s)")
    log(f"done: {len(finished)} jobs, {bad} failed or skipped")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
