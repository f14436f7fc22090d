"""Reading corpora into one clean table, mapping models to providers, auditing and splitting.

See docs/data.md. Rendering (rich) and the CLI live elsewhere; nothing here imports them.
Needs the ``[data]`` extra: without it, importing this package is one clear error (a
:class:`MissingExtraError`, also an ``ImportError``) instead of a traceback from deep inside.
"""

from whowrote.data.extra import require_data_extra

require_data_extra()

from whowrote.data.audit import DROP_BY_DEFAULT, AuditReport, Problem, audit, drop_flagged
from whowrote.data.balance import balance_providers
from whowrote.data.build import SplitConfig, SplitResult, build_splits, strip_augment
from whowrote.data.corpus import load_corpus
from whowrote.data.providers import ProviderMap, provider_of
from whowrote.data.splits import (
    SplitLeakError,
    assert_no_leak,
    binary_split,
    default_ood_categories,
    leave_one_genre_out,
    topic_holdout_split,
)
from whowrote.data.writers import write_splits

__all__ = [
    "DROP_BY_DEFAULT",
    "AuditReport",
    "Problem",
    "ProviderMap",
    "SplitConfig",
    "SplitLeakError",
    "SplitResult",
    "assert_no_leak",
    "audit",
    "balance_providers",
    "binary_split",
    "build_splits",
    "default_ood_categories",
    "drop_flagged",
    "leave_one_genre_out",
    "load_corpus",
    "provider_of",
    "strip_augment",
    "topic_holdout_split",
    "write_splits",
]
