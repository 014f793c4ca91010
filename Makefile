# The project's commands. `make verify` is the merge gate; `make test` runs the pytest suite.
# Both create .venv from pyproject.toml on first use; nothing else needs installing by hand.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TRANSPORT := conformance/seeds/transport
NPM_STAMP := $(TRANSPORT)/node_modules/.installed
MERMAID := tests/mermaid
MERMAID_STAMP := $(MERMAID)/node_modules/.installed
export HYPOTHESIS_PROFILE ?= ci
# make verify runs the conformance and impl tests in one pytest process beside the mutant gate
# (`make bench` times the gate with 1 against 2 xdist workers on 2 cores); `make test` runs the
# whole suite in one process.
# FRESH=1: make verify bypasses the result cache.
PYTEST_JOBS ?= 1
FRESH ?=
LOADED_RUNS ?= 5

.PHONY: help test verify verify-loaded stress-ng models mutants diagrams diagrams-check typecheck lint format bench mutation clean dot \
	kernel-mutation package-check spin seeds rustc node report browser mermaid

help:
	@echo "make verify     the merge gate: model checks, mutants, seeds, conformance tests, diagrams, mypy, ruff"
	@echo "make verify FRESH=1  the same, bypassing the result cache (what .ci/run runs)"
	@echo "make verify-loaded   make verify FRESH=1, $(LOADED_RUNS) times (LOADED_RUNS), under stress-ng on every core"
	@echo "make test       the pytest suite (HYPOTHESIS_PROFILE=dev|ci|thorough, default ci)"
	@echo "make models     only the model checks (python -m models verify)"
	@echo "make diagrams   write diagrams/*.dot and *.mmd and render *.svg from the models"
	@echo "make report     write reports/index.html, the verification report"
	@echo "make bench      engines and SPIN side by side, the scaling families, verify step by step"
	@echo "make seeds      the seed differential: duplex.rs, mode.rs, transport.ts (SEEDS_DIR) vs model vs impl"
	@echo "make mutants    the model-mutant gate, every layer on every mutant (slow)"
	@echo "make mutation   mutmut over impl/ (slow)"
	@echo "make kernel-mutation  mutmut over models/kernel/ (KERNEL_MODULES=checks vacuity ...; slow)"
	@echo "make package-check  build the wheel, install it apart, mypy a user script against it"
	@echo "make spin       install SPIN and gcc (the SPIN agreement test needs them)"
	@echo "make mermaid    install the pinned mermaid renderer (tests/mermaid, npm ci) for the .mmd render test"

# tests/install.py prints a line per package as pip goes (n of the total), never silent long.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "error: Python 3.11+ is required ($(PYTHON) is $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python tests/install.py -e '.[dev]'
	@touch $@

# $(call needs,COMMANDS,DEBIAN PACKAGES,WHAT FOR): a tool the project needs. When a command is
# missing, install its Debian packages with apt-get (as root, or with sudo); else stop, naming them.
define needs
	@missing=; for c in $(1); do command -v $$c >/dev/null 2>&1 || missing="$$missing $$c"; done; \
	[ -z "$$missing" ] && exit 0; \
	if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1; then sudo=sudo; \
	else \
		echo "error: missing$$missing, needed for $(3). Install the Debian/Ubuntu packages: $(2)"; \
		exit 1; \
	fi; \
	echo "installing $(2) (for $(3)) with $${sudo:+sudo }apt-get"; \
	{ $$sudo apt-get update -qq && \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null; } || \
		{ echo "error: apt-get could not install $(2), needed for $(3)"; exit 1; }; \
	for c in $(1); do command -v $$c >/dev/null 2>&1 || { echo "error: $(2) installed but '$$c' is not on PATH"; exit 1; }; done
endef

dot:
	$(call needs,dot,graphviz,the diagrams)

# SPIN is the second model checker (tests/test_spin.py); pan is compiled with gcc.
spin:
	$(call needs,spin gcc,spin gcc,the SPIN agreement test)

# rustc builds the duplex.rs and mode.rs seed harnesses (conformance/seeds/rust).
rustc:
	$(call needs,rustc,rustc,the Rust seed harnesses)

# SEEDS_DIR (default ../shared/seeds) holds the seed sources; REQUIRE_SEEDS=1 fails without them.
seeds: $(STAMP) rustc $(NPM_STAMP)
	@$(BIN)/python -m conformance.seeds || \
		{ echo "seeds: the seed differential failed (above)"; exit 1; }

# node and npm build and run the transport.ts seed harness (conformance/seeds/transport).
node:
	$(call needs,node npm,nodejs npm,the transport.ts seed harness)

# The pinned tsc and @types/node (package-lock.json), installed again only when the lock changes.
$(NPM_STAMP): $(TRANSPORT)/package-lock.json | node
	cd $(TRANSPORT) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# The pinned mermaid (package-lock.json) that tests/test_mermaid_render.py renders every .mmd with.
$(MERMAID_STAMP): $(MERMAID)/package-lock.json | node
	cd $(MERMAID) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

mermaid: $(MERMAID_STAMP)

# Debian's chromium and chromium-driver run the report's browser test (never a downloaded browser).
browser:
	$(call needs,chromium chromedriver,chromium chromium-driver,the report's browser test)

test: $(STAMP) dot spin browser rustc $(NPM_STAMP) $(MERMAID_STAMP)
	$(BIN)/pytest

# The project's own specs keep their certificates: z3 gets 1 s for each (README "Verdicts and
# their basis"; a user's `verify` defaults to 0.1 s).
models: $(STAMP)
	$(BIN)/python -m models verify --certificates 1 --json reports/verify.json

diagrams: $(STAMP) dot
	$(BIN)/python -m models diagram --render
	$(BIN)/python -m models diagram duplex --view audio -o diagrams/readme/duplex-audio.svg

diagrams-check: $(STAMP) dot
	$(BIN)/python -m models diagram --check --render

report: $(STAMP) dot
	$(BIN)/python -m models report -o reports

typecheck: $(STAMP)
	$(BIN)/mypy

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Every layer on every mutant (a few minutes; .ci/run runs it). The seed layer builds the seed
# harnesses as `make seeds` does (SEEDS_DIR; REQUIRE_SEEDS=1 fails without them).
mutants: $(STAMP) rustc $(NPM_STAMP)
	$(BIN)/python -m models mutants --full --json reports/mutants.json

# The merge gate: tests/gate.py runs its phases side by side and caches each passing result
# (models/cli/cache.py, in .cache/verify/); FRESH=1 neither reads nor stores one.
verify: $(STAMP) dot spin browser rustc $(NPM_STAMP) $(MERMAID_STAMP)
	@PYTEST_JOBS=$(PYTEST_JOBS) $(BIN)/python tests/gate.py $(if $(filter-out 0,$(FRESH)),--fresh)

stress-ng:
	$(call needs,stress-ng,stress-ng,make verify-loaded)

# make verify FRESH=1, LOADED_RUNS times, while stress-ng runs twice as many CPU hogs as there
# are cores: a verdict that depends on the machine's speed fails here. Each must pass.
verify-loaded: stress-ng $(STAMP) dot spin browser rustc $(NPM_STAMP) $(MERMAID_STAMP)
	@hogs=$$((2 * $$(nproc))); \
	stress-ng --cpu $$hogs --timeout 3h --quiet & hog=$$!; \
	trap 'kill $$hog 2>/dev/null' EXIT INT TERM; \
	began=$$(date +%s); \
	for n in $$(seq $(LOADED_RUNS)); do \
		start=$$(date +%s); \
		echo "== verify-loaded: run $$n of $(LOADED_RUNS), stress-ng --cpu $$hogs on $$(nproc) cores"; \
		$(MAKE) --no-print-directory verify FRESH=1 || \
			{ echo "verify-loaded: run $$n of $(LOADED_RUNS) FAILED under load"; exit 1; }; \
		echo "verify-loaded: run $$n of $(LOADED_RUNS) passed in $$(($$(date +%s) - start))s"; \
	done; \
	echo "verify-loaded: $(LOADED_RUNS) of $(LOADED_RUNS) passed under load in $$(($$(date +%s) - began))s"

# The wheel as a user gets it (~15 s, so not in verify; .ci/run runs it).
package-check: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider tests/package_check.py

bench: $(STAMP) dot spin
	$(BIN)/python tests/bench.py

mutation: $(STAMP)
	HYPOTHESIS_PROFILE=mutation $(BIN)/mutmut run --max-children 2
	$(BIN)/mutmut results

# mutmut over models/kernel/, killed by the fast kernel tests (tests/kernel_mutation.py says how).
kernel-mutation: $(STAMP)
	$(BIN)/python tests/kernel_mutation.py $(KERNEL_MODULES)

clean:
	rm -rf $(VENV) .cache build mutants reports .mypy_cache .ruff_cache .pytest_cache .hypothesis \
		diagrams/*.svg $(TRANSPORT)/node_modules $(MERMAID)/node_modules
