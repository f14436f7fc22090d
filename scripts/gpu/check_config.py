"""Check every trainer command a device script would run: ``python scripts/gpu/check_config.py CMDS.jsonl``.

``CMDS.jsonl`` holds one ``{"name", "cmd", "config", "sets"}`` record per command, as
``qwen_calls.sh check`` records them without running anything. Each config is loaded with its
``--set`` overrides exactly as ``whowrote train CMD`` would load it (``[research]`` configs through
the research loader), so an override naming a field that does not exist, a value of the wrong type
or out of range fails here, on CPU, instead of after a model load on the GPU. Also checked: the
``[grpo.trl]`` / ``[sft.trl]`` tables against TRL's config classes (when TRL is installed) and the
GRPO batch plan (prompts per step, micro-batches), and that a ``data.*`` override naming a file
under ``.gguf/`` (carried from this checkout by the call) exists here. Exit status 1 on the first
bad command of each record (all records are checked).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

TRAIN_CMDS = ("sft", "grpo", "star", "coldstart", "evaluate", "research")
CARRIED = ".gguf/"  # data the calls carry from this checkout; anything else is made on the device


def missing_carried(sets: list[str]) -> str:
    """'' unless a ``data.*`` override names a carried file (under ``.gguf/``) this checkout lacks."""
    for s in sets:
        key, _, value = s.partition("=")
        path = value.strip().strip('"')
        if key.strip().startswith("data.") and path.startswith(CARRIED) and not Path(path).is_file():
            return f"{key.strip()}: {path} not found in this checkout (the call carries it from here)"
    return ""


def check_one(rec: dict[str, Any]) -> str:
    """'' when the command's config loads and plans, else a one-line reason."""
    from whowrote.train.config import load_config
    from whowrote.train.distill import load_research_config
    from whowrote.train.grpo import grpo_batch_plan
    from whowrote.types import WhowroteError

    cmd, config, sets = rec["cmd"], rec["config"], rec.get("sets", [])
    if cmd not in TRAIN_CMDS:
        return f"unknown command {cmd!r}"
    if not Path(config).is_file():
        return f"config not found: {config}"
    if why := missing_carried(sets):
        return why
    try:
        cfg = load_research_config(config, sets)[0] if cmd == "research" else load_config(config, sets)
        if cmd in ("grpo", "research") or (cmd == "coldstart" and "grpo" in cfg.coldstart.stages):
            grpo_batch_plan(cfg)
    except WhowroteError as e:
        return str(e)
    try:
        from trl import GRPOConfig, SFTConfig
    except ImportError:
        return ""
    from whowrote.train.runner import trl_table

    try:
        trl_table(GRPOConfig, cfg.grpo.trl, "grpo.trl")
        trl_table(SFTConfig, cfg.sft.trl, "sft.trl")
    except WhowroteError as e:
        return str(e)
    return ""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("cmds", type=Path)
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    recs = [json.loads(line) for line in a.cmds.read_text().splitlines() if line.strip()]
    bad = 0
    for rec in recs:
        why = check_one(rec)
        if why:
            bad += 1
            print(f"BAD {rec['name']}: train {rec['cmd']} -c {rec['config']}: {why}")
    label = f" ({a.label})" if a.label else ""
    if not recs:
        print(f"check{label}: no commands recorded")
        return 1
    print(f"check{label}: {len(recs)} commands, {len(recs) - bad} ok, {bad} bad "
          f"({len({r['config'] for r in recs})} configs)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
