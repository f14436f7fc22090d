"""Reading corpora into one clean table, mapping models to providers, auditing and splitting."""

from whowrote.data.corpus import load_corpus
from whowrote.data.providers import provider_of

__all__ = ["load_corpus", "provider_of"]
