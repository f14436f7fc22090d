.PHONY: install install-dev test lint

install:
	python3 -m pip install -e .

install-dev:
	bash scripts/install-dev.sh

# The README's test command: install everything the suite needs, then run it.
test: install-dev
	python3 -m pytest -q

lint:
	ruff check src tests benchmarks
