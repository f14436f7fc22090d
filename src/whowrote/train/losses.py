"""The research system's custom losses and advantages (spec §3.3) as pure tensor functions.

Shapes: per-token tensors are ``(B, T)`` over completion tokens, ``mask`` is 1 on the tokens that
count, per-sample advantages are ``(B,)`` or ``(B, 1)``. ``logp`` is the trainer's (with grad),
``logp_inf`` the sampler's (the rollout policy; on-policy it equals ``logp.detach()``), and
``logp_teacher`` the same model's log-probabilities under the cheatsheet prompt (§3.4).

Each loss returns ``(per_token_loss, metrics)``; the trainer sums ``per_token_loss * mask`` and
divides by a constant (Dr.GRPO's ``B * max_completion_length``), as the research trainer did.
"""

from __future__ import annotations

import math
from typing import Any

DPPO_CLIP = 0.2  # trust-region mask on probability differences (spec §3.2)
KL_TAU = 1e-3  # trainer-vs-inference mismatch penalty weight


def _col(adv: Any) -> Any:
    return adv.unsqueeze(1) if adv.dim() == 1 else adv


def surprisal_coef(step: int, max_steps: int, coef: float = 0.02, hold_frac: float = 0.4, end_frac: float = 0.8,
                   floor: float = 0.0) -> float:
    """The decayed bonus weight (``surprisal_entropy_decay_loss_fn``): ``coef`` while step/max_steps <=
    ``hold_frac``, ``floor`` from ``end_frac`` on, linear in between (40 steps: full to 16, 0 from 32)."""
    f = step / max(1, max_steps)
    if f <= hold_frac:
        return coef
    if f >= end_frac:
        return floor
    return coef + (floor - coef) * (f - hold_frac) / (end_frac - hold_frac)


def surprisal_advantages(adv: Any, logp_inf: Any, coef: float) -> Any:
    """Per-token ``A' = A + coef * max(0, -logp_inf)`` (detached): rare tokens, such as the label of an
    under-predicted class, gain; ``coef = 0`` gives ``A`` back exactly."""
    return _col(adv) + coef * (-logp_inf).clamp(min=0).detach()


def truncation_advantages(adv: Any, truncated: Any, penalty: float = 0.5) -> Any:
    """``A - penalty`` on truncated rollouts only, no re-centring (``truncation_penalty_advantage``;
    the tensor form of :func:`whowrote.task.rewards.truncation_penalized_advantages`)."""
    return adv - penalty * truncated.to(adv.dtype).view(adv.shape)


def dppo_loss(logp: Any, logp_inf: Any, adv: Any, mask: Any, clip: float = DPPO_CLIP,
              kl_tau: float = KL_TAU) -> tuple[Any, dict[str, float]]:
    """The default research loss: ``-keep * A * rho + kl_tau * (log rho)^2`` with the sign-keyed mask
    (A > 0: drop tokens whose probability rose by more than ``clip``; A < 0: fell by more)."""
    import torch

    adv = _col(adv).expand_as(logp)
    log_rho = logp - logp_inf
    rho = torch.exp(log_rho)
    dp = (torch.exp(logp) - torch.exp(logp_inf)).detach()
    keep = torch.where(adv > 0, dp <= clip, dp >= -clip).to(logp.dtype)
    loss = -keep * adv * rho + kl_tau * log_rho ** 2
    return loss, {"masked_frac": _masked_mean(1 - keep, mask)}


def opcd_loss(logp: Any, logp_inf: Any, logp_teacher: Any, mask: Any, clip: float = DPPO_CLIP,
              kl_tau: float = KL_TAU) -> tuple[Any, dict[str, float]]:
    """On-policy context distillation: the teacher gap ``g = logp_teacher - logp`` (detached) is the
    per-token advantage, the mask is keyed on the sign of ``g``; the verifier's advantage is ignored."""
    import torch

    g = (logp_teacher - logp).detach()
    log_rho = logp - logp_inf
    rho = torch.exp(log_rho)
    dp = (torch.exp(logp) - torch.exp(logp_inf)).detach()
    keep = torch.where(g > 0, dp <= clip, dp >= -clip).to(logp.dtype)
    loss = -keep * g * rho + kl_tau * log_rho ** 2
    return loss, {"teacher_gap": _masked_mean(g, mask), "masked_frac": _masked_mean(1 - keep, mask)}


def rlsd_loss(logp: Any, logp_inf: Any, logp_teacher: Any, adv: Any, mask: Any, *, anchored: bool = False,
              kl_tau: float = KL_TAU) -> tuple[Any, dict[str, float]]:
    """RL with self-distillation: ``coef = sign(A) * exp(clamp(sign(A) * (logp_teacher - logp_inf), -c, c))``
    (detached; the weight is ``(P_T / P_S) ** sign(A)``, A = 0 gives nothing), ``w = clamp(rho)`` detached,
    ``loss = -coef * w * logp + kl_tau * (log rho)^2``; c = 2, rho in [0.8, 1.2].

    ``anchored``: c = 1, rho in [0.9, 1.1], tokens whose ratio already moved past the clip in the
    direction of ``coef`` are dropped, and the penalty is ``0.5 * (rho - log rho - 1)`` (k3, with
    grad), anchoring to the rollout policy.
    """
    import torch

    c, lo, hi = (1.0, 0.9, 1.1) if anchored else (2.0, 0.8, 1.2)
    sigma = torch.sign(_col(adv)).expand_as(logp)
    delta = (logp_teacher - logp_inf).detach()
    coef = (sigma * torch.exp(torch.clamp(sigma * delta, -c, c))).detach()
    log_rho = logp - logp_inf
    rho = torch.exp(log_rho)
    w = torch.clamp(rho, lo, hi).detach()
    if anchored:
        keep = torch.where(coef > 0, log_rho <= math.log(hi), log_rho >= math.log(lo)).to(logp.dtype).detach()
        loss = -keep * coef * w * logp + 0.5 * (rho - log_rho - 1)
    else:
        keep = torch.ones_like(logp)
        loss = -coef * w * logp + kl_tau * log_rho ** 2
    return loss, {"rlsd_coef": _masked_mean(coef.abs(), mask), "masked_frac": _masked_mean(1 - keep, mask)}


def _masked_mean(x: Any, mask: Any) -> float:
    return float((x * mask).sum() / mask.sum().clamp(min=1.0))
