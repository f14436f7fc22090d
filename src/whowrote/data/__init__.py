"""Reading corpora into one clean table, mapping models to providers, auditing and splitting."""

from whowrote.data.balance import balance_providers
from whowrote.data.corpus import load_corpus
from whowrote.data.providers import provider_of
from whowrote.data.splits import (
    SplitLeakError,
    assert_no_leak,
    default_ood_categories,
    leave_one_genre_out,
    topic_holdout_split,
)

__all__ = [
    "SplitLeakError",
    "assert_no_leak",
    "balance_providers",
    "default_ood_categories",
    "leave_one_genre_out",
    "load_corpus",
    "provider_of",
    "topic_holdout_split",
]
