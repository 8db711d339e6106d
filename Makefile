# Two commands: `make run` (set up and serve) and `make test` (set up and run the suite).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
STAMP  := $(VENV)/.installed

.PHONY: run test setup migrate lint clean

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

test: setup
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: setup
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) db.sqlite3 media staticfiles .pytest_cache
