"""The verifiable task: prompts, the strict answer parser, rewards and training adapters.

Importable with only the standard library (plus whowrote.types): trainers and environments
import this without pulling torch or transformers.
"""

from whowrote.task.cheatsheet import DEFAULT_CHEATSHEET, Tell, cheatsheet_from_style_model, format_cheatsheet
from whowrote.task.parser import (
    completion_text,
    parse_answer,
    parse_pair,
    parse_pred,
    parse_slots,
    parse_trio,
    reasoning,
    task_type,
)
from whowrote.task.prompts import (
    VARIANTS,
    build_messages,
    pair_messages,
    slot_gold,
    system_prompt,
    trio_messages,
    variant_labels,
)
from whowrote.task.rewards import (
    correct_answer,
    diagnostics,
    has_substantive_reason,
    reward_terms,
    truncation_penalized_advantages,
)

__all__ = [
    "DEFAULT_CHEATSHEET", "Tell", "VARIANTS", "build_messages", "cheatsheet_from_style_model",
    "completion_text", "correct_answer", "diagnostics", "format_cheatsheet", "has_substantive_reason",
    "pair_messages", "parse_answer", "parse_pair", "parse_pred", "parse_slots", "parse_trio",
    "reasoning", "reward_terms", "slot_gold", "system_prompt", "task_type", "trio_messages",
    "truncation_penalized_advantages", "variant_labels",
]
