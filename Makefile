# The README's two commands: `make run` (set up, then the embedded default end to end) and
# `make test` (set up, then the whole test suite). Both work from a fresh clone.
VENV := .venv
BIN := $(VENV)/bin
SETUP := $(VENV)/.installed
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: run test lint setup clean-results

setup: $(SETUP)

# torch is pinned to the CPU build in the 'local' extra; an unpinned torch is a multi-GB CUDA one.
$(SETUP): pyproject.toml
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[local,test]'
	touch $@

run: $(SETUP)
	$(BIN)/snakemake --cores 2 --configfile config/config.yaml

test: $(SETUP)
	$(BIN)/python -m pytest -ra

lint: $(SETUP)
	$(BIN)/ruff check src tests scripts benchmarks
	$(BIN)/ruff format --check src tests scripts benchmarks
	$(BIN)/snakefmt --check .
	$(BIN)/snakemake --lint

clean-results:
	rm -rf results/novbench results/judges results/logs
