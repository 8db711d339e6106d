# Two commands: `make run` (set up and serve) and `make test` (set up and run the suite).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
STAMP  := $(VENV)/.installed

.PHONY: run test setup system-packages migrate lint clean

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

# What the suite needs from Debian, installed once on a fresh machine: Chromium for the browser
# tests (Playwright drives it; it downloads no browser of its own) and nginx for the production
# front (tests/test_front.py runs deploy/nginx.conf).
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
system-packages:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	test -x /usr/sbin/nginx || command -v nginx >/dev/null 2>&1 || missing="$$missing nginx"; \
	if [ -n "$$missing" ]; then \
	  echo "== installing Debian's$$missing for the tests"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium nginx >/dev/null; \
	fi

test: setup system-packages
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: setup
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-logo

clean:
	rm -rf $(VENV) db.sqlite3 media staticfiles .pytest_cache
