# The README's two commands: `make run` (set up, then the embedded default end to end) and
# `make test` (set up, then the whole test suite). Both work from a fresh clone.
VENV := .venv
BIN := $(VENV)/bin
SETUP := $(VENV)/.installed
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: run test test-slurm lint setup clean-results

setup: $(SETUP)

# llama.cpp is compiled for a portable x86-64 baseline (AVX2): a native build may emit AMX or
# AVX-512 instructions that a virtual machine advertises but does not allow (illegal instruction).
# It skips pip's wheel cache so that a natively built wheel from elsewhere is never reused. The
# multimodal library (llava/mtmd, 51 of 178 compile units) is not built: the server loads it only
# for image chat formats, which no model here uses.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DLLAVA_BUILD=OFF

# torch is pinned to the CPU build in the 'local' extra; an unpinned torch is a multi-GB CUDA one.
# pip installs with --no-compile and compileall then byte-compiles everything on every core: a
# shell with PYTHONDONTWRITEBYTECODE set (as some sandboxes and CI runners have) never writes the
# bytecode of a first import, so without it every process (each Snakemake job) compiled pandas,
# torch and the package again, 2 s of CPU per job start instead of 0.6. Its result is not
# checked: a few files of the installed packages do not compile (torch's helper in Python 3.12
# syntax, an openreview-py template), and no import reaches them.
# Every dependency the cluster's CPU environment pins (workflow/envs/noveval.yaml) is installed at that
# version, so that the tests run what a cluster gets (tests/workflow/test_envs.py checks the pins).
$(SETUP): pyproject.toml workflow/envs/noveval.yaml
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	sed -n 's/^ *- \([A-Za-z0-9_.-]*==[^ ]*\)$$/\1/p' workflow/envs/noveval.yaml > $(VENV)/pins.txt
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip install --quiet --no-cache-dir \
		--no-compile --no-binary llama-cpp-python -c $(VENV)/pins.txt \
		'llama-cpp-python[server]==0.3.36'
	$(BIN)/python -m pip install --quiet --no-compile -c $(VENV)/pins.txt -e '.[local,test]'
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -c 'import compileall, site; \
		[compileall.compile_dir(d, quiet=2, workers=0) for d in (*site.getsitepackages(), "src")]'
	touch $@

run: $(SETUP)
	$(BIN)/snakemake --cores 2 --configfile config/config.yaml

test: $(SETUP)
	$(BIN)/python -m pytest -ra --durations=15

# The SLURM integration test alone (a real single-node cluster; needs root and Debian's
# slurm-wlm slurmctld slurmd slurm-client munge, which .ci/run installs).
test-slurm: $(SETUP)
	$(BIN)/python -m pytest -ra tests/planning/test_slurm.py

lint: $(SETUP)
	$(BIN)/ruff check src tests workflow/scripts benchmarks
	$(BIN)/ruff format --check src tests workflow/scripts benchmarks
	$(BIN)/snakefmt --check .
	$(BIN)/snakemake --lint

clean-results:
	rm -rf results/novbench results/judges results/logs
