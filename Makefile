# The two commands of the README: `make demo` and `make test` (and `make docs`, the site). Both build .venv
# from nothing on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test docs bench lint clean

$(BIN)/python:
	@echo "== creating the virtual environment $(VENV) (a few seconds)"
	$(PYTHON) -m venv $(VENV)
	@echo "== upgrading its pip"
	$(BIN)/python -m pip install --quiet --upgrade pip

# pip without --quiet: a first install takes minutes, and pip's own lines (and bars on a terminal) say how far it is.
# The demo installs what it runs (simcore and its own requirements); the tests and the docs add their extras.
$(VENV)/.runs: pyproject.toml | $(BIN)/python
	@echo "== installing simcore and what it runs into $(VENV) (the first time only)"
	$(BIN)/python -m pip install -e .
	touch $@

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	@echo "== installing simcore with what its tests, the cluster and the docs need into $(VENV) (the first time only; a few minutes)"
	$(BIN)/python -m pip install -e '.[dev,cluster,docs]'
	touch $(VENV)/.runs $@

# each step says what it does; a game's first run says it is compiling (once per machine), each run its games/s
demo: $(VENV)/.runs
	@echo "== the games simcore plays"
	$(BIN)/simcore games
	@echo "== playing every game (a game's first run compiles it for this machine first)"
	$(BIN)/simcore run zwergen --games 200000 --seed 1 --out demo-zwergen.parquet
	$(BIN)/simcore run zwergen --set players=4 --set pro=true --policy greedy --policy 1=random \
		--games 200000 --seed 1 --out demo-zwergen4.parquet
	$(BIN)/simcore formations
	$(BIN)/simcore run zwai --set players=3 --set formation=ring --policy greedy --games 200000 --seed 1 \
		--out demo-zwai3-ring.parquet
	$(BIN)/simcore run wichtel --set players=4 --policy greedy --games 100000 --seed 1 --out demo-wichtel4.parquet
	$(BIN)/simcore yards
	$(BIN)/simcore run skirmish --set scenario=capture_the_flag --policy greedy --games 20000 --seed 1 \
		--out demo-skirmish-ctf.parquet
	$(BIN)/simcore run goofspiel --policy greedy --policy 1=random --games 200000 --seed 1 --out demo-goofspiel.parquet
	@echo "== a sweep of Zwai's formations and player counts, traced (27 variants)"
	$(BIN)/simcore sweep configs/zwai-formations.toml --games 10000 --out demo-runs/zwai --trace
	@echo "== its report, as Markdown and as one HTML page, from one analysis (progress on the terminal)"
	$(BIN)/simcore analyze demo-runs/zwai --report demo-runs/zwai-report.md --report demo-runs/zwai-report.html \
		> /dev/null
	@echo "== a replay page of one game"
	$(BIN)/simcore replay demo-zwai3-ring.parquet --index 0 --html demo-replay.html | tail -2
	@echo "report: demo-runs/zwai-report.md (plots in demo-runs/zwai-report-plots/) and demo-runs/zwai-report.html"
	@echo "replay: demo-replay.html (open it in a browser)"

test: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

# the docs site into build/site; --strict: a broken link, a missing page or a failing notebook cell is an error
docs: $(VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

bench: $(VENV)/.installed
	$(BIN)/simcore bench --json benchmarks/results.json

clean:
	rm -rf $(VENV) demo-*.parquet demo-replay.html demo-runs .pytest_cache build/site
