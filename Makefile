# Two commands: `make run` (set up and serve) and `make test` (set up and run the suite).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
STAMP  := $(VENV)/.installed

.PHONY: run test setup browser migrate lint clean

# Re-install only when pyproject.toml changed: `make run` stays quick once set up.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

migrate: setup
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py migrate --no-input

run: migrate
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

# The browser tests (tests/test_browser.py) drive Debian's Chromium through Playwright, which
# downloads no browser of its own: a fresh machine gets Debian's package here.
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "== installing Debian's chromium for the browser tests"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

test: setup browser
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: setup
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-logo

clean:
	rm -rf $(VENV) db.sqlite3 media staticfiles .pytest_cache
