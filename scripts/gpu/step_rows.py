"""Which train rows each optimizer step of an SFT run saw: the batch behind a NaN step.

Rebuilds the run's data pipeline from its config (the same ``prepare`` -> ``SFTTrainer`` ->
dataloader, sampler seed and all; a tiny random model with the tokenizer's vocabulary stands in for
the policy, so it runs on a CPU in seconds) and, given the run's ``metrics.jsonl``, checks the
rebuild against it: the cumulative non-pad tokens after every step must equal the run's logged
``num_tokens``. Exit status 1 when they differ (the listed rows would then not be the run's).

    # session 6's answer-only SFT (NaN at step 26); data and GGUF from the stage tar
    python scripts/gpu/step_rows.py -c configs/qwen25_05b_answer_only_sft.toml \\
        --set 'data.train="/tmp/sx/data/train.jsonl.gz"' --set 'model.name_or_path="/tmp/sx/qwen.gguf"' \\
        --metrics results/session6/qwen05b/sft_answer_only/metrics.jsonl --steps 26
    # a cold start's SFT stage: its rows are the star.jsonl the run trained on
    python scripts/gpu/step_rows.py -c configs/qwen25_05b_coldstart.toml --rows cs_fallback/star.jsonl ...
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from pathlib import Path
from typing import Any


def stand_in_model(vocab_size: int) -> Any:
    """A 1-layer random causal LM: the collator and sampler never look at the weights."""
    from transformers import LlamaConfig, LlamaForCausalLM

    return LlamaForCausalLM(LlamaConfig(vocab_size=vocab_size, hidden_size=16, intermediate_size=32,
                                        num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
                                        max_position_embeddings=32768))


def step_batches(cfg: Any, rows_file: str = "") -> tuple[list[dict], list[list[dict]], int]:
    """(train rows, per optimizer step the micro-batch rows, micro-batches per epoch)."""
    from whowrote.llm.models import load_tokenizer
    from whowrote.train.coldstart import rationale_sft_config
    from whowrote.train.data import read_rows
    from whowrote.train.runner import prepare
    from whowrote.train.sft import sft_trainer

    max_steps = None
    train_rows = None
    if rows_file:  # a cold start's SFT stage, as run_coldstart runs it
        cfg, train_rows, max_steps = rationale_sft_config(cfg), read_rows(rows_file), cfg.coldstart.sft_max_steps
    tok = load_tokenizer(cfg.model.name_or_path, cfg.model.gguf_file or None)
    prep = prepare(cfg, "step-rows", train_rows=train_rows, model=stand_in_model(len(tok)), tokenizer=tok)
    trainer = sft_trainer(cfg, prep, [], max_steps=max_steps)
    # each processed example back to its row: its first tokens and its length
    ids = trainer.train_dataset["input_ids"]
    index = {(tuple(x[:64]), len(x)): i for i, x in enumerate(ids)}
    dl = trainer.get_train_dataloader()
    accum, steps = cfg.sft.grad_accum, trainer.args.max_steps
    if steps <= 0:
        steps = int(len(dl) * cfg.sft.epochs) // accum
    per_step: list[list[dict]] = [[] for _ in range(steps)]
    need = steps * accum if len(dl) else 0  # micro-batches to rebuild
    mb = epoch = 0
    while mb < need:
        if hasattr(dl, "set_epoch"):
            dl.set_epoch(epoch)  # what the Trainer does at each epoch: the sampler reseeds with it
        for batch in itertools.islice(dl, need - mb):
            for x, mask, lab in zip(batch["input_ids"], batch["attention_mask"], batch["labels"], strict=True):
                n = int(mask.sum())
                i = index.get((tuple(x[:64].tolist()), n), -1)
                row = prep.train_rows[i] if i >= 0 else {}
                per_step[mb // accum].append({"micro_batch": mb, "row": i, "id": row.get("id"),
                                              "label": row.get(cfg.data.label_field), "tokens": n,
                                              "loss_tokens": int((lab != -100).sum()), "padded_to": int(x.shape[0])})
            mb += 1
        epoch += 1
    return prep.train_rows, per_step, len(dl)


def check_tokens(per_step: list[list[dict]], metrics: Path) -> list[str]:
    """Disagreements between the rebuilt steps' cumulative tokens and the run's logged ``num_tokens``."""
    logged = {r["step"]: r["num_tokens"] for r in map(json.loads, metrics.read_text().splitlines())
              if r.get("kind") == "train" and "num_tokens" in r}
    cum = list(itertools.accumulate(sum(b["tokens"] for b in s) for s in per_step))
    bad = [f"step {k}: rebuilt {cum[k - 1]} tokens, the run logged {int(v)}"
           for k, v in sorted(logged.items()) if k <= len(cum) and cum[k - 1] != int(v)]
    if not logged:
        bad.append(f"{metrics}: no train records with num_tokens")
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-c", "--config", required=True)
    ap.add_argument("--set", action="append", default=[], help="section.key=value, as for `whowrote train`")
    ap.add_argument("--rows", default="", help="the star.jsonl a cold start's SFT stage trained on")
    ap.add_argument("--steps", default="", help="comma-separated steps to list (default: none)")
    ap.add_argument("--metrics", type=Path, help="the run's metrics.jsonl: check the rebuild against it")
    ap.add_argument("--out", type=Path, help="write every step's rows as JSON here")
    a = ap.parse_args(argv)
    from whowrote.train.config import load_config
    from whowrote.types import WhowroteError

    try:
        with tempfile.TemporaryDirectory() as tmp:  # no val split: the order of train batches is all that matters
            cfg = load_config(a.config, [*a.set, f'run.output_dir="{tmp}"', 'run.resume=""', 'data.val=""'])
            rows, per_step, per_epoch = step_batches(cfg, a.rows)
    except WhowroteError as e:
        print(f"step_rows: {e}", file=sys.stderr)
        return 2
    print(f"{len(rows)} rows, {per_epoch} micro-batches per epoch, {len(per_step)} optimizer steps")
    bad = check_tokens(per_step, a.metrics) if a.metrics else []
    for line in bad[:5]:
        print("MISMATCH", line)
    if a.metrics and not bad:
        print(f"every logged step's num_tokens matches the rebuild ({a.metrics})")
    for k in (int(s) for s in a.steps.split(",") if s):
        for b in per_step[k - 1]:
            print(json.dumps({"step": k, **b}))
    if a.out:
        a.out.write_text(json.dumps({"steps": {i + 1: s for i, s in enumerate(per_step)}}, indent=1) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
