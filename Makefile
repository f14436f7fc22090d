.PHONY: install install-dev test test-fast lint

install:
	python3 -m pip install -e .

# Installs only what is missing (scripts/install-dev.sh checks every requirement of .[dev] first).
install-dev:
	bash scripts/install-dev.sh

# The README's test command: install everything the suite needs, then run all of it (what CI runs).
test: install-dev
	python3 -m pytest -q

# The same without the tests marked slow (long real-data runs; CI still runs them).
test-fast: install-dev
	python3 -m pytest -q -m "not slow"

lint:
	ruff check src tests benchmarks
