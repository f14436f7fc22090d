"""The research losses and advantages (spec §3.3) on hand-made tensors: values and gradients."""

from __future__ import annotations

import math

import pytest
import torch

from whowrote.task.rewards import truncation_penalized_advantages
from whowrote.train import losses


def _grad(loss_fn, logp0, *args, **kw):
    """d(sum of masked per-token loss)/d(logp) at logp0, on-policy (logp_inf = logp0)."""
    logp = logp0.clone().requires_grad_(True)
    mask = torch.ones_like(logp0)
    per_token, metrics = loss_fn(logp, logp0.clone(), *args, mask, **kw)
    (per_token * mask).sum().backward()
    return logp.grad, metrics


def test_surprisal_coef_schedule_matches_the_spec():
    # 40 steps, hold 0.4, end 0.8: full strength up to step 16, zero from step 32, linear between
    assert [losses.surprisal_coef(s, 40) for s in (0, 16, 32, 40)] == [0.02, 0.02, 0.0, 0.0]
    assert losses.surprisal_coef(24, 40) == pytest.approx(0.01)


def test_surprisal_advantage_rewards_rare_tokens_and_is_exact_at_zero():
    adv = torch.tensor([1.0, -0.5])
    logp_inf = torch.log(torch.tensor([[0.5, 1.0], [0.25, 0.9]]))
    assert torch.equal(losses.surprisal_advantages(adv, logp_inf, 0.0), adv.unsqueeze(1).expand(2, 2))
    got = losses.surprisal_advantages(adv, logp_inf, 0.02)
    assert got[0, 0].item() == pytest.approx(1 + 0.02 * math.log(2))
    assert got[0, 1].item() == pytest.approx(1.0)  # a certain token gets no bonus


def test_truncation_advantage_is_the_task_rule():
    rewards, trunc = [1.0, 0.0, 0.0, 0.0], [False, True, False, True]
    adv = torch.tensor(rewards) - sum(rewards) / 4
    got = losses.truncation_advantages(adv, torch.tensor(trunc), 0.5)
    assert got.tolist() == pytest.approx(truncation_penalized_advantages(rewards, trunc, 0.5))
    all_wrong = losses.truncation_advantages(torch.zeros(3), torch.tensor([True, False, False]), 0.5)
    assert all_wrong.tolist() == [-0.5, 0.0, 0.0]  # no wrong rollout is pushed up (no re-centring)


def test_dppo_on_policy_gradient_is_minus_advantage_and_the_mask_keys_on_its_sign():
    logp0 = torch.log(torch.tensor([[0.3, 0.6], [0.3, 0.6]]))
    adv = torch.tensor([2.0, -1.0])
    g, _ = _grad(losses.dppo_loss, logp0, adv)
    assert g.flatten().tolist() == pytest.approx([-2.0, -2.0, 1.0, 1.0])
    # the trainer's probability rose 0.3 above the sampler's: dropped for A > 0, kept for A < 0
    logp = torch.log(torch.tensor([[0.6, 0.6], [0.6, 0.6]])).requires_grad_(True)
    inf = torch.log(torch.tensor([[0.3, 0.6], [0.3, 0.6]]))
    per_token, m = losses.dppo_loss(logp, inf, adv, torch.ones(2, 2), kl_tau=0.0)
    per_token.sum().backward()
    assert logp.grad[0, 0].item() == 0.0 and logp.grad[1, 0].item() != 0.0
    assert m["masked_frac"] == 0.25


def test_opcd_uses_the_teacher_gap_and_ignores_rewards():
    logp0 = torch.log(torch.tensor([[0.2, 0.5]]))
    teacher = torch.log(torch.tensor([[0.4, 0.25]]))
    g, m = _grad(losses.opcd_loss, logp0, teacher)
    assert g.flatten().tolist() == pytest.approx([-math.log(2), math.log(2)])  # -(logp_T - logp) per token
    assert m["teacher_gap"] == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize(("adv", "delta", "anchored", "expected"), [
    (1.0, 1.0, False, -math.e),  # A > 0, teacher more confident: weight P_T/P_S = e
    (-1.0, 1.0, False, math.exp(-1)),  # A < 0: weight (P_T/P_S)^-1, pushed down
    (0.5, 5.0, False, -math.exp(2)),  # clamp at c = 2
    (0.5, 5.0, True, -math.e),  # anchored: c = 1
    (0.0, 1.0, False, 0.0),  # A = 0 contributes nothing
])
def test_rlsd_weight_is_teacher_ratio_to_the_sign_of_the_advantage(adv, delta, anchored, expected):
    logp0 = torch.log(torch.tensor([[0.1]]))
    teacher = logp0 + delta
    g, _ = _grad(losses.rlsd_loss, logp0, teacher, torch.tensor([adv]), anchored=anchored)
    assert g.item() == pytest.approx(expected)


def test_rlsd_anchored_drops_tokens_already_past_the_clip():
    logp = torch.log(torch.tensor([[0.3, 0.3]])).requires_grad_(True)
    inf = torch.log(torch.tensor([[0.2, 0.29]]))  # token 0: ratio 1.5 > 1.1; token 1: 1.03
    per_token, m = losses.rlsd_loss(logp, inf, inf + 1.0, torch.tensor([1.0]), torch.ones(1, 2), anchored=True)
    per_token.sum().backward()
    rho = torch.exp(logp - inf).detach()
    # token 0: only the k3 anchor's gradient 0.5 * (rho - 1) remains; token 1 also gets -coef * w
    assert logp.grad[0, 0].item() == pytest.approx(0.5 * (rho[0, 0].item() - 1))
    assert logp.grad[0, 1].item() == pytest.approx(-math.e * rho[0, 1].item() + 0.5 * (rho[0, 1].item() - 1))
    assert m["masked_frac"] == 0.5
