# Two commands matter: `make run` starts the bot, `make test` runs every test.
# Both create .venv and install what they need on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# pytest-xdist workers for `make test`: the suite waits on real bot processes
# and sockets much of the time, so more workers than cores overlap the waits.
TEST_WORKERS ?= 3

.PHONY: run test lint postgres gnubg bench soak lock clean env catalogues

# Python 3.11 or newer, with venv, before anything is installed: one line saying what to
# install beats an error deep inside pip. (Debian and Ubuntu ship venv separately.)
$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "make: the bot needs Python 3.11 or newer; $(PYTHON) is $$($(PYTHON) -V 2>&1 | head -n 1)." \
	    "On Debian or Ubuntu: sudo apt install python3.11 python3.11-venv, then make PYTHON=python3.11" >&2; exit 1; }
	@$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || { \
	  echo "make: $(PYTHON) cannot make a virtual environment." \
	    "On Debian or Ubuntu: sudo apt install python$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')-venv" >&2; \
	  exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements/bootstrap.txt

# Every dependency comes from a lock file in requirements/, pinned with its
# hashes (`make lock` regenerates them from pyproject.toml), so a fresh install
# next month is the program that was tested. The project itself goes in last,
# without resolving anything more.
# The computer opponent's engines are wheels for common platforms; where they
# don't install, the bot runs without the computer opponent and analysis.
INSTALL := $(BIN)/python -m pip install --quiet --require-hashes
PROJECT := $(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .

# The pinned installers first (a venv made before they were pinned gets them too): the
# project is built with them, not with whatever setuptools the venv came with.
$(VENV)/.installed-run: pyproject.toml requirements/bootstrap.txt requirements/run.txt requirements/base.txt | $(BIN)/python
	$(INSTALL) -r requirements/bootstrap.txt
	$(INSTALL) -r requirements/run.txt || $(INSTALL) -r requirements/base.txt
	$(PROJECT)
	touch $@

$(VENV)/.installed-test: pyproject.toml requirements/bootstrap.txt requirements/test.txt | $(BIN)/python
	$(INSTALL) -r requirements/bootstrap.txt
	$(INSTALL) -r requirements/test.txt
	$(PROJECT)
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(BIN)/python -m bot

# The settings file, readable by you only (it holds the token).
env: .env
.env:
	install -m 600 .env.example .env
	@echo "make: created .env (mode 600); set DISCORD_TOKEN in it"

# The storage tests also run on a private PostgreSQL server they start
# themselves; `postgres` installs the server binaries where missing. The
# engine's oracle tests import our .mat files into GNU Backgammon; `gnubg`
# installs it where it can (never failing: without it those tests skip).
test: lint postgres gnubg
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) -m "not soak"

# The code's own checks, run by `make test` first: format, lint (ruff) and types (mypy).
lint: $(VENV)/.installed-test
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy

# The translation catalogues: the template (i18n/messages.pot) extracted from the code and
# the command tree, and each language's .po brought up to date with it (docs/translating.md).
catalogues: $(VENV)/.installed-test
	$(BIN)/python -m scripts.catalogues

postgres:
	sh scripts/ensure_postgres.sh

gnubg:
	sh scripts/ensure_gnubg.sh

# The long randomized runs the suite keeps short (60 SIGKILLs of the real bot mid-game, 200
# matches through GNU Backgammon) and the statistical ones it leaves out (marked soak).
soak: $(VENV)/.installed-test postgres gnubg
	BG_CRASH_KILLS=60 $(BIN)/python -m pytest -q tests/e2e/test_e2e_crashes.py
	BG_GNUBG_SAMPLES=200 $(BIN)/python -m pytest -q tests/engine/test_gnubg.py
	$(BIN)/python -m pytest -q -m soak

bench: $(VENV)/.installed-test
	$(BIN)/python -m bench.engine
	$(BIN)/python -m bench.render
	$(BIN)/python -m bench.patience
	$(BIN)/python -m bench.service
	$(BIN)/python -m bench.rebuild
	$(BIN)/python -m bench.ai
	$(BIN)/python -m bench.e2e_load
	$(BIN)/python -m bench.loop_stall
	$(BIN)/python -m bench.startup

# Regenerate the lock files after changing a dependency in pyproject.toml.
LOCK := $(VENV)/tools/bin/pip-compile --quiet --generate-hashes --allow-unsafe \
	--no-emit-index-url --no-emit-find-links --strip-extras
lock:
	test -x $(VENV)/tools/bin/pip-compile || ($(PYTHON) -m venv $(VENV)/tools && $(VENV)/tools/bin/pip install --quiet pip-tools)
	$(LOCK) -o requirements/base.txt pyproject.toml
	$(LOCK) --extra ai -o requirements/run.txt pyproject.toml
	$(LOCK) --extra test -o requirements/test.txt pyproject.toml
	$(LOCK) -o requirements/bootstrap.txt requirements/bootstrap.in

clean:
	rm -rf $(VENV)
