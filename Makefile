# newsdedup: each target is one step of the analysis DAG
#   corpus -> measure -> calibrate -> crosshost -> figures -> notebooks
# `make help` lists them. Everything runs in a local virtual environment (.venv)
# that the targets create and install themselves.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CORPUS ?=
NAME   ?=
RUN_ARGS := $(if $(CORPUS),$(CORPUS)) $(if $(NAME),--name $(NAME))

.DEFAULT_GOAL := help
.PHONY: browser help install reproduce measure calibrate crosshost eval eval-full dedupe figures notebooks lab test check lint bench bench-scale bench-kernels join fetch clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-11s %s\n", $$1, $$2}'
	@echo "  (CORPUS=path/to/file NAME=name run measure/calibrate/crosshost on another corpus)"

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	$(BIN)/python -m compileall -q src
	$(BIN)/python -m newsdedup.runs.warm
	touch $(STAMP)

install: $(STAMP)  ## create .venv and install newsdedup with its dependencies

# The editable install runs the package from src/, and where PYTHONDONTWRITEBYTECODE is
# set every process would compile its modules again (pip compiles a wheel's the same way).
.PHONY: bytecode
bytecode: $(STAMP)  ## compile src/ to .pyc again after editing it (git-ignored)
	$(BIN)/python -m compileall -q src

reproduce: $(STAMP)  ## the main job: all published tables and figures for the pinned corpus
	$(BIN)/newsdedup run $(RUN_ARGS)
	$(if $(CORPUS),,$(BIN)/newsdedup signals && $(BIN)/newsdedup evaluate gold && \
	    $(BIN)/newsdedup report results/paldyn-ai-lab-news)
	$(BIN)/newsdedup report $(if $(NAME),$(NAME)) --figures corpus

measure: $(STAMP)  ## exact Jaccard vs MinHash tables, with every further study (--full)
	$(BIN)/newsdedup measure --full $(RUN_ARGS)

calibrate: $(STAMP)  ## word-retention simulation, threshold sweeps and calibration.json (--full)
	$(BIN)/newsdedup calibrate --full $(RUN_ARGS)

crosshost: $(STAMP)  ## cross-host pairs and date window (measure --crosshost)
	$(BIN)/newsdedup measure --crosshost $(RUN_ARGS)

eval: $(STAMP)  ## every scorer on labelled data (committed CI-sized tables in results/*/eval)
	$(BIN)/newsdedup evaluate pairs
	$(BIN)/newsdedup evaluate clusters --stories 12
	$(BIN)/newsdedup report --figures eval

eval-full: $(STAMP)  ## the clustering study on all 6,366 UCI items (a few minutes)
	$(BIN)/newsdedup evaluate clusters

dedupe: $(STAMP)  ## dedupe with the calibrated threshold; sweep every scorer, gate on/off
	$(BIN)/newsdedup dedupe $(RUN_ARGS) --calibration results/$(or $(NAME),paldyn-ai-lab-news)/calibration.json \
	    --sweep 0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6

# The two real feeds of ../shared/corpora, calibrated on the sheets labelled for them
# (data/gold/<feed>.calibrate.csv, the loop; <feed>.holdout.csv, the hold-out;
# <feed>.model.csv, the hold-out drawn where the pair model merges, with its design).
MODEL_SEEDS ?= 8
KNEWS   := ../shared/corpora/knews-rss-big3/knews-rss-big3.jsonl
REUTERS := ../shared/corpora/reuters21578-titles/reuters-005-009.csv
.PHONY: feeds coverage doors
feeds: $(STAMP)  ## calibrate the two real feeds without and with their labelled sheets (and the pair model); docs tables
	$(BIN)/newsdedup calibrate $(KNEWS) --name knews-rss-big3-unlabelled
	$(BIN)/newsdedup calibrate $(KNEWS) --name knews-rss-big3 --model \
	    --labels data/gold/knews-rss-big3.calibrate.csv --holdout data/gold/knews-rss-big3.holdout.csv \
	    --model-holdout data/gold/knews-rss-big3.model.csv
	$(BIN)/newsdedup calibrate $(REUTERS) --name reuters21578-titles-unlabelled
	$(BIN)/newsdedup calibrate $(REUTERS) --name reuters21578-titles --model \
	    --labels data/gold/reuters21578-titles.calibrate.csv \
	    --holdout data/gold/reuters21578-titles.holdout.csv \
	    --model-holdout data/gold/reuters21578-titles.model.csv
	$(BIN)/python -m newsdedup.runs.doc_tables

doors: $(STAMP)  ## a second candidate door on the two feeds: embedding neighbours beside the character join, by their labelled sheets; the dedupes measured over both doors (~3 min)
	$(BIN)/python -m newsdedup.runs.door_study $(KNEWS) --name knews-rss-big3 \
	    --labels data/gold/knews-rss-big3.calibrate.csv --holdout data/gold/knews-rss-big3.holdout.csv \
	    --door-labels data/gold/knews-rss-big3.doors.csv --calibration results/knews-rss-big3/calibration.json \
	    --model-holdout data/gold/knews-rss-big3.model.csv
	$(BIN)/python -m newsdedup.runs.door_study $(REUTERS) --name reuters21578-titles \
	    --labels data/gold/reuters21578-titles.calibrate.csv \
	    --holdout data/gold/reuters21578-titles.holdout.csv \
	    --door-labels data/gold/reuters21578-titles.doors.csv \
	    --calibration results/reuters21578-titles/calibration.json \
	    --model-holdout data/gold/reuters21578-titles.model.csv
	$(BIN)/python -m newsdedup.runs.doc_tables

model-study: $(STAMP)  ## the pair model against the truth: UCI head story ids, with and without dates; planted corpora (~30 min)
	$(BIN)/python -m newsdedup.runs.model_study
	$(BIN)/python -m newsdedup.runs.model_study --planted $(MODEL_SEEDS)
	$(BIN)/python -m newsdedup.runs.doc_tables

coverage: $(STAMP)  ## do the calibration's intervals hold? planted corpora, 20 seeds per language (~1 h)
	$(BIN)/python -m newsdedup.runs.coverage --language ko --seeds 20
	$(BIN)/python -m newsdedup.runs.coverage --language en --seeds 20
	$(BIN)/python -m newsdedup.runs.doc_tables

.PHONY: signals candidates
UCI_HEAD := ../shared/corpora/uci-news-aggregator-head/uci-news-aggregator.head.csv
UCI_COLS := id=ID,title=TITLE,url=URL,source=PUBLISHER,published_at=TIMESTAMP

signals: $(STAMP)  ## host/date/entity signals: funnel, candidates, gold metrics; UCI rules
	$(BIN)/newsdedup signals $(RUN_ARGS)
	$(if $(CORPUS),,$(BIN)/newsdedup evaluate gold)
	$(if $(CORPUS),,$(BIN)/newsdedup evaluate stories $(UCI_HEAD) --name uci-head \
	    --columns $(UCI_COLS) --entity-unit token --no-korean --relations same-org,cross-org)

candidates: $(STAMP)  ## labeling sheet of candidate pairs (results/<name>/signals/to_label.csv)
	$(BIN)/newsdedup signals $(RUN_ARGS) --sheet

figures: $(STAMP)  ## PNG (and SVG) figures from the results tables
	$(BIN)/newsdedup report $(if $(NAME),$(NAME)) --figures corpus

notebooks: $(STAMP)  ## execute every notebook headless; regenerates every figure (PNG + SVG)
	$(BIN)/python -m newsdedup.runs.notebooks notebooks --no-write --jobs 2

lab: $(STAMP)  ## open the notebooks in JupyterLab
	$(BIN)/jupyter lab notebooks

# The report test opens the report in Debian's headless Chromium; installed when missing
# (CI runs `make test` as root on a fresh machine). NEWSDEDUP_CHROMIUM names another binary.
browser:  ## install Debian's chromium for the report's rendering test, when missing
	@command -v chromium >/dev/null 2>&1 || test -n "$$NEWSDEDUP_CHROMIUM" || \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

# Two lanes. `make test` is the one to run while working: every test not marked slow, on
# every core (pytest-xdist), in under 3 minutes on a 2-core machine. `make check` is what CI
# runs: the whole suite, the end-to-end tests on the real corpora and in a browser included,
# one process (about 15 minutes). Which tests are slow: tests/conftest.py.
test: $(STAMP)  ## the fast lane (< 3 min): lint, type check and every test not marked slow
	$(BIN)/ruff check src tests bench measure calibrate notebooks
	$(BIN)/mypy
	$(BIN)/python -m pytest -m "not slow" -n auto

check: $(STAMP) browser  ## everything, as CI runs it: lint, type check and the whole test suite
	$(BIN)/ruff check src tests bench measure calibrate notebooks
	$(BIN)/mypy
	$(BIN)/python -m pytest

lint: $(STAMP)  ## ruff and mypy only
	$(BIN)/ruff check src tests bench measure calibrate notebooks
	$(BIN)/mypy

bench: $(STAMP)  ## benchmark against plain-Python implementations (writes bench/results/)
	$(BIN)/python bench/bench_pipeline.py

bench-scale: $(STAMP)  ## how join, LSH, signatures and dedupe grow with N, 1k-1M (bench/results/scale*)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	$(BIN)/python bench/bench_scale.py --sizes 1000 10000 100000 1000000 --budget 300

bench-kernels: $(STAMP)  ## compiled kernels against their baselines: rensa, numpy join, per-item dedupe (bench/results/kernels*)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	$(BIN)/python bench/bench_kernels.py
	$(BIN)/python bench/bench_kernels.py --memory 1000000 --append

join: $(STAMP)  ## exact threshold join, top-K, histogram, LSH recall (THRESHOLD=0.5)
	$(BIN)/newsdedup join $(RUN_ARGS) --threshold $(or $(THRESHOLD),0.5) --top-k 5 \
	    --lsh-threshold $(or $(THRESHOLD),0.5) --lsh-recall 0.95

fetch: $(STAMP)  ## download the pinned corpus into data/external (needs network)
	$(BIN)/newsdedup fetch

clean:  ## remove the venv and caches (results stay)
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
