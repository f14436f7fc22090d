"""whowrote's provider-identification task as a verifiers v1 environment (id ``whowrote-provider-id``)."""

from whowrote_provider_id.taskset import WhowroteHarness, WhowroteTaskset, load_environment

__all__ = ["WhowroteHarness", "WhowroteTaskset", "load_environment"]
