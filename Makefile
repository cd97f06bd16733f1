# cepkit: `make demo` (set up and run the main job) and `make test` (set up and run every test).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
CEPKIT := $(VENV)/bin/cepkit
DEMO_EVENTS ?= 200000

.PHONY: venv install demo test fuzz asv-machine bench bench-history bench-check bench-pytest bench-gpu docs doc-pictures clean

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "cepkit needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,spark,gpu,plot,docs]"
	# the peer the kit's test runs on the SQL vectors, without its numpy<2.2 pin (pyproject.toml, extra peers)
	$(PY) -m pip install --quiet --no-deps "pandas-match-recognize==0.2.5"
	bash scripts/ensure_opencl.sh $(PY)
	bash scripts/ensure_system_tool.sh chromium chromium "the headless-browser test of 'cepkit plot --out FILE.html'"
	bash scripts/ensure_system_tool.sh dot graphviz "the test of 'cepkit explain --format svg'"
	$(CEPKIT) warm --spark   # the optimized engines' kernels compiled now, not on the first run (docs/performance.md), and the Spark driver's class archive (docs/spark.md)
	touch $@

venv install: $(VENV)/.installed

demo: install
	@echo "== Query 3 (SIGMOD'08) on the Fig. 3 stream, skip_till_next_match"
	$(CEPKIT) run examples/query3.sase examples/fig3_stream.csv --format table
	@echo "== Query 1 (shoplifting, negation) on RFID readings"
	$(CEPKIT) run examples/shoplifting.sase examples/rfid.jsonl --ts-unit h
	@echo "== SASE 1.0 query file on the synthetic stock ticker (5000 events)"
	$(CEPKIT) run examples/sase1_stock.query examples/stocks.csv --format table
	@echo "== The main job: Query 3 through the Spark job (cepkit spark run) over a generated stock stream"
	$(PY) -m benchmarks.spark_demo --events $(DEMO_EVENTS) --out out/demo $(if $(CLUSTER),--cluster 2,)

test: install
	$(PY) -m pytest -q -p no:cacheprovider -n $${PYTEST_WORKERS:-auto}

# 10^4 generated inputs over every language (queries, event files, options, one-cell changes); prints the
# counts and each distinct failure, exits 1 on any (docs/fuzzing.md). FUZZ_INPUTS=N for another size.
fuzz: install
	$(PY) -m tests.fuzz.run --inputs $${FUZZ_INPUTS:-10000}

# asv (docs/performance.md "Performance over time"): asv builds the commit into its own virtualenv (.asv/env: the
# dependencies once, then each commit's wheel without them) and records under benchmarks/results/$(ASV_MACHINE)/
# (committed). `make bench`: the whole suite of benchmarks/asv on HEAD (6 min 45 s here). `make bench-history
# N=30`: the history subset, 3 samples each, on N commits spread over main's first-parent history (asv --steps;
# commits already recorded are skipped). `make bench-check`: asv continuous between the merge base with main and the working tree,
# exit 1 on a slowdown over 20 % (scripts/asv_gate.py).
ASV         := $(VENV)/bin/asv
ASV_MACHINE ?= bench-2core
N           ?= 30
HISTORY_BENCH := (SasePlusEngines|Sase1Engines|LazyEngines|AfaEngines|TPStreamEngines|MatchRecognizeEngines|WindowEngines)\.time_run|Writers\.time_write|StartUp\.time_command

asv-machine: install
	$(ASV) machine --yes --machine $(ASV_MACHINE) >/dev/null

bench: asv-machine
	$(ASV) run --machine $(ASV_MACHINE) HEAD^!
	@echo "compare two commits: $(ASV) compare --machine $(ASV_MACHINE) A B   (the page: make docs, site/asv/)"

bench-history: asv-machine
	$(ASV) run --machine $(ASV_MACHINE) --bench '$(HISTORY_BENCH)' -a repeat=3 --steps $(N) --skip-existing-successful main

bench-check: asv-machine
	$(PY) scripts/asv_gate.py --machine $(ASV_MACHINE) --asv $(ASV)

# pytest-benchmark: each run saved under .benchmarks/ (--benchmark-autosave) and compared with the last saved run;
# a mean more than 20 % slower fails (the first run has nothing to compare with and only saves).
BENCH_PYTEST := benchmarks/test_bench_engines.py benchmarks/test_bench_sql_tpstream.py benchmarks/test_bench_lazy.py \
	benchmarks/test_bench_partition_keys.py
bench-pytest: install
	$(PY) -m pytest -p no:cacheprovider $(BENCH_PYTEST) --benchmark-columns=mean,rounds --benchmark-autosave \
	  $$(ls .benchmarks/*/*.json >/dev/null 2>&1 && echo --benchmark-compare --benchmark-compare-fail=mean:20%)

bench-gpu: install
	$(PY) -m benchmarks.gpu_windows --events $${EVENTS:-1000000} --reference-events 20000

# The docs site (docs/building.md): the `docs` extra, every picture regenerated (cepkit plot over examples/,
# benchmarks/plot_optimized.py over docs/data/bench/), the outputs the pages show rerun, mkdocs --strict into site/, and asv's HTML into
# site/asv/ when `make bench` has recorded results (else a page saying how to record them).
$(VENV)/.docs-installed: pyproject.toml $(VENV)/.installed
	$(PY) -m pip install --quiet -e ".[docs]"
	touch $@

doc-pictures: $(VENV)/.docs-installed
	$(PY) scripts/make_doc_pictures.py
	$(PY) scripts/make_doc_outputs.py   # the outputs the tutorial and docs/language.md show, from real runs (tests/docs)
	$(PY) scripts/peer_report.py   # docs/peers.md from the committed peer results (--run reruns the peer)

docs: doc-pictures
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet
	@if ls benchmarks/results/*/*-*.json >/dev/null 2>&1; then \
	  $(ASV) publish --html-dir site/asv && echo "asv history published into site/asv/ (from benchmarks/results)"; \
	else \
	  mkdir -p site/asv && printf '%s\n' '<!doctype html><meta charset="utf-8"><title>asv history</title>' \
	    '<h1>No asv results yet</h1><p>Record them with <code>make bench-history</code> or <code>make bench</code>, then rerun <code>make docs</code>' \
	    'to publish the history here (docs/performance.md).</p><p><a href="../index.html">Back to the docs</a></p>' \
	    > site/asv/index.html; \
	  echo "no asv results in benchmarks/results (make bench-history records them): site/asv/ says so"; \
	fi
	@echo "site built: site/index.html"

clean:
	rm -rf $(VENV) .hypothesis .pytest_cache *.egg-info site
