"""verifiers/prime-rl entry point: verifiers loads environments by top-level module id, so this
shim re-exports whowrote's taskset under the id ``whowrote_provider_id``."""

from whowrote.task.verifiers_env import *  # noqa: F403
from whowrote.task.verifiers_env import __all__  # noqa: F401
