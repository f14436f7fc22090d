"""Training recipes on TRL: answer-only / rationale SFT, STaR data, GRPO (control recipe), cold start.

Entry points: ``whowrote train sft|grpo|star|coldstart`` (see docs/train.md), each driven by a
TOML config (:mod:`whowrote.train.config`). Submodules import torch/transformers/trl lazily
where they can, so ``import whowrote.train`` stays cheap.
"""
