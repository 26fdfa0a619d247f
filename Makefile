# Two commands matter: `make run` starts the bot, `make test` runs every test.
# Both create .venv and install what they need on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test postgres bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The computer opponent's engines are wheels for common platforms; where they
# don't install, the bot runs without the computer opponent and analysis.
$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[ai]' || $(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(BIN)/python -m bot

# The storage tests also run on a private PostgreSQL server they start
# themselves; `postgres` installs the server binaries where missing.
test: $(VENV)/.installed-test postgres
	$(BIN)/python -m pytest -q

postgres:
	sh scripts/ensure_postgres.sh

bench: $(VENV)/.installed-test
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/render.py
	$(BIN)/python bench/service.py
	$(BIN)/python bench/ai.py
	$(BIN)/python bench/e2e_load.py

clean:
	rm -rf $(VENV)
