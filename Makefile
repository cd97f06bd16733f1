# cepkit: `make demo` (set up and run the main job) and `make test` (set up and run every test).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
CEPKIT := $(VENV)/bin/cepkit
DEMO_EVENTS ?= 200000

.PHONY: venv install demo test fuzz bench bench-pytest bench-gpu clean

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "cepkit needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	bash scripts/ensure_opencl.sh $(PY)
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
	$(PY) -m benchmarks.spark_demo --events $(DEMO_EVENTS) --out out/demo

test: install
	$(PY) -m pytest -q -p no:cacheprovider

# 10^4 generated inputs over every language (queries, event files, options, one-cell changes); prints the
# counts and each distinct failure, exits 1 on any (docs/fuzzing.md). FUZZ_INPUTS=N for another size.
fuzz: install
	$(PY) -m tests.fuzz.run --inputs $${FUZZ_INPUTS:-10000}

bench: install
	$(VENV)/bin/asv machine --yes --machine local >/dev/null
	$(VENV)/bin/asv run -E existing:$(abspath $(PY)) --set-commit-hash $$(git rev-parse HEAD) --machine local
	$(PY) -m benchmarks.ratio_table
	@echo "compare two commits: $(VENV)/bin/asv compare -E existing:$(abspath $(PY)) --machine local A B"

bench-pytest: install
	$(PY) -m pytest -p no:cacheprovider benchmarks/test_bench_engines.py benchmarks/test_bench_sql_tpstream.py benchmarks/test_bench_lazy.py --benchmark-columns=mean,rounds

bench-gpu: install
	$(PY) -m benchmarks.gpu_windows --events $${EVENTS:-1000000} --reference-events 20000

clean:
	rm -rf $(VENV) .hypothesis .pytest_cache *.egg-info
