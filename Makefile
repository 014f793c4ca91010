# The project's commands. `make verify` is the merge gate; `make test` runs the pytest suite.
# Both create .venv from pyproject.toml on first use; nothing else needs installing by hand.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HYPOTHESIS_PROFILE ?= ci

.PHONY: help test verify models mutants diagrams diagrams-check typecheck lint format bench mutation clean dot

help:
	@echo "make verify     the merge gate: model checks, pytest, diagrams up to date, mypy, ruff"
	@echo "make test       the pytest suite (HYPOTHESIS_PROFILE=dev|ci|thorough, default ci)"
	@echo "make models     only the model checks (python -m models verify)"
	@echo "make diagrams   render diagrams/*.dot and *.svg from the models"
	@echo "make bench      time each part of verify against its budget"
	@echo "make mutants    the model-mutant gate, every layer on every mutant (slow)"
	@echo "make mutation   mutmut over impl/ (slow)"

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "error: Python 3.11+ is required ($(PYTHON) is $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

# graphviz's `dot` renders the diagrams. Install it with apt-get when we can; else say what to do.
dot:
	@command -v dot >/dev/null 2>&1 && exit 0; \
	if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "installing graphviz (for dot) with apt-get"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; \
	elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1; then \
		echo "installing graphviz (for dot) with sudo apt-get"; \
		sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; \
	else \
		echo "error: graphviz's 'dot' is missing. Install the graphviz package:"; \
		echo "  Debian/Ubuntu: apt-get install graphviz   macOS: brew install graphviz"; \
		echo "  Fedora: dnf install graphviz              other: https://graphviz.org/download/"; \
		exit 1; \
	fi; \
	command -v dot >/dev/null 2>&1 || { echo "error: graphviz installed but 'dot' is not on PATH"; exit 1; }

test: $(STAMP)
	$(BIN)/pytest

models: $(STAMP)
	$(BIN)/python -m models verify --json reports/verify.json

diagrams: $(STAMP) dot
	$(BIN)/python -m models diagram --render

diagrams-check: $(STAMP) dot
	$(BIN)/python -m models diagram --check --render

typecheck: $(STAMP)
	$(BIN)/mypy

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

mutants: $(STAMP)
	$(BIN)/python -m models mutants --full --json reports/mutants.json

verify: $(STAMP) dot
	@echo "== 1/5 model checks (python -m models verify), then the fast mutant gate"
	@$(BIN)/python -m models verify --json reports/verify.json || \
		{ echo "verify: the model checks failed (above); reports/verify.json has the traces"; exit 1; }
	@mkdir -p reports
	@$(BIN)/python -m models mutants --fast --json reports/mutants.json > reports/mutants.txt || \
		{ cat reports/mutants.txt; echo "verify: a model mutant survived (above); see reports/mutants.json"; exit 1; }
	@grep -v '^  ' reports/mutants.txt
	@echo "== 2/5 pytest (HYPOTHESIS_PROFILE=$(HYPOTHESIS_PROFILE))"
	@$(BIN)/pytest -q || { echo "verify: pytest failed (above)"; exit 1; }
	@echo "== 3/5 diagrams are up to date"
	@$(BIN)/python -m models diagram --check --render || \
		{ echo "verify: run 'make diagrams' and commit diagrams/*.dot"; exit 1; }
	@echo "== 4/5 mypy --strict"
	@$(BIN)/mypy || { echo "verify: mypy found type errors (above)"; exit 1; }
	@echo "== 5/5 ruff"
	@$(BIN)/ruff check . && $(BIN)/ruff format --check . || \
		{ echo "verify: ruff found problems; 'make format' fixes most"; exit 1; }
	@echo "verify: all green"

bench: $(STAMP) dot
	$(BIN)/python tests/bench.py

mutation: $(STAMP)
	HYPOTHESIS_PROFILE=mutation $(BIN)/mutmut run --max-children 2
	$(BIN)/mutmut results

clean:
	rm -rf $(VENV) mutants reports .mypy_cache .ruff_cache .pytest_cache .hypothesis diagrams/*.svg
