"""Teacher/student pre-flight for OPCD and RLSD (research spec §3.4, ``diag_teacher_student.py``).

Before spending GPU time on a teacher mode, check that the cheatsheet makes the *same* model a
better judge. For each text and each label L, the forced completion ``<answer>L</answer>`` is
scored (summed token log-probabilities) under the plain prompt (student) and the cheatsheet prompt
(teacher); a softmax over the labels gives each one's distribution. Reported: both accuracies
(argmax), mean gold probability, mean KL(teacher || student), the share of texts where the
teacher's gold probability beats the student's, and ``go`` (teacher better on most texts and on
mean gold probability). The research run at n = 60: teacher 0.300 vs student 0.250, gold p 0.377 vs
0.284, KL 0.096, teacher better on 0.767 -> GO.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from whowrote.task.prompts import build_messages
from whowrote.train.splice import render_ids
from whowrote.types import PROVIDERS, WhowroteError


def _completion_logp(model: Any, prompt: list[int], completion: list[int]) -> float:
    import torch

    ids = torch.tensor([prompt + completion], device=next(model.parameters()).device)
    with torch.no_grad():
        logits = model(input_ids=ids).logits[0, len(prompt) - 1:-1].float()
    logps = torch.log_softmax(logits, dim=-1)
    return float(logps.gather(1, torch.tensor(completion, device=logps.device).unsqueeze(1)).sum())


def _softmax(xs: Sequence[float]) -> list[float]:
    m = max(xs)
    e = [math.exp(x - m) for x in xs]
    return [v / sum(e) for v in e]


def label_distribution(model: Any, tokenizer: Any, text: str, *, cheatsheet: str | None, variant: str = "3way",
                       labels: Sequence[str] = PROVIDERS, template_kwargs: dict | None = None) -> list[float]:
    """P(label) over ``labels`` from the forced ``<answer>L</answer>`` completions of one prompt."""
    prompt = render_ids(tokenizer, build_messages(text, variant, cheatsheet, labels), template_kwargs)
    scores = [_completion_logp(model, prompt, tokenizer(f"<answer>{lab}</answer>", add_special_tokens=False)["input_ids"])
              for lab in labels]
    return _softmax(scores)


def teacher_preflight(model: Any, tokenizer: Any, rows: Sequence[dict], cheatsheet: str, *, variant: str = "3way",
                      labels: Sequence[str] = PROVIDERS, text_field: str = "text",
                      label_field: str = "provider") -> dict[str, Any]:
    """The pre-flight report over ``rows`` (see the module docstring)."""
    rows = [r for r in rows if r.get(label_field) in labels]
    if not rows:
        raise WhowroteError(f"pre-flight: no rows with a label in {tuple(labels)}")
    was_training = model.training
    model.eval()
    s_acc = t_acc = better = 0
    s_gold = t_gold = kl = 0.0
    try:
        for r in rows:
            gi = list(labels).index(r[label_field])
            s = label_distribution(model, tokenizer, str(r[text_field]), cheatsheet=None, variant=variant, labels=labels)
            t = label_distribution(model, tokenizer, str(r[text_field]), cheatsheet=cheatsheet, variant=variant,
                                   labels=labels)
            s_acc += s.index(max(s)) == gi
            t_acc += t.index(max(t)) == gi
            s_gold, t_gold = s_gold + s[gi], t_gold + t[gi]
            better += t[gi] > s[gi]
            kl += sum(p * math.log(max(p, 1e-12) / max(q, 1e-12)) for p, q in zip(t, s, strict=True))
    finally:
        model.train(was_training)
    n = len(rows)
    report = {"n": n, "student_accuracy": round(s_acc / n, 4), "teacher_accuracy": round(t_acc / n, 4),
              "student_gold_p": round(s_gold / n, 4), "teacher_gold_p": round(t_gold / n, 4),
              "kl_teacher_student": round(kl / n, 4), "teacher_better_frac": round(better / n, 4)}
    report["go"] = report["teacher_better_frac"] > 0.5 and report["teacher_gold_p"] > report["student_gold_p"]
    return report
