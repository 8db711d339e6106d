# Two commands: `make run` (set up and serve) and `make test` (set up and run the suite).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
STAMP  := $(VENV)/.installed

.PHONY: run test setup build-packages system-packages migrate lint clean messages mutation npm-packages \
	bench-tools docs docs-build

# Re-install only when pyproject.toml changed: `make run` stays quick once set up.
$(STAMP): pyproject.toml | build-packages
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# celus-nigiri (tests/test_counter_reports.py) without celus-pycounter's old pins
	# (pyproject.toml says why), then what they import.
	$(BIN)/python -m pip install --quiet --no-deps 'celus-nigiri>=4.2.2' 'celus-pycounter>=4.1'
	$(BIN)/python -m pip install --quiet 'ijson>=3.4' 'python-decouple>=3.6' \
		'xmltodict>=0.13' 'pendulum>=3' 'openpyxl>=3.1' 'chardet>=5,<6'
	touch $(STAMP)

# The translations (locale/*/LC_MESSAGES/django.po) compiled by Babel, in Python: no system
# gettext needed to run. Recompiled when a catalogue changes.
CATALOGUES := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/django.po))
%.mo: %.po $(STAMP)
	$(BIN)/pybabel compile --statistics -i $< -o $@

setup: $(STAMP) $(CATALOGUES)

# What pip needs to build python-ldap (django-auth-ldap's binding to OpenLDAP, which PyPI
# ships for Linux as source only): Debian's OpenLDAP and SASL headers, installed once, before
# the first install, for `make run` as for `make test`.
build-packages:
	@missing=""; \
	test -f /usr/include/ldap.h || missing="$$missing libldap2-dev"; \
	test -f /usr/include/sasl/sasl.h || missing="$$missing libsasl2-dev"; \
	if [ -n "$$missing" ]; then \
	  echo "== installing Debian's$$missing (python-ldap builds against them)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi

migrate: setup
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py migrate --no-input

run: migrate
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

# What the suite needs from Debian, installed once on a fresh machine: Chromium's headless build
# for the browser tests (Playwright drives it; it downloads no browser of its own) and Chromium
# itself, which docs/screenshots.py and bench/lighthouse.py run; nginx for the production
# front (tests/test_front.py runs deploy/nginx.conf), GNU gettext, whose xgettext the
# translation tests run (makemessages), a Java runtime for the Nu HTML checker and Node.js's npm,
# which installs the checkers (package.json); OpenLDAP's slapd and ldap-utils, which
# tests/test_ldap.py starts and fills on a free port (the package's own service on port 389 is
# stopped and disabled); ClamAV, whose clamscan the checks before review run (with a signature
# the tests make); poppler-utils, Tesseract with Portuguese and DejaVu fonts, which extraction,
# OCR and thumbnails run (the tests render their scanned pages with the fonts).
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
system-packages:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	test -x /usr/lib/chromium/chromium-headless-shell || missing="$$missing chromium-headless-shell"; \
	test -x /usr/sbin/nginx || command -v nginx >/dev/null 2>&1 || missing="$$missing nginx"; \
	command -v xgettext >/dev/null 2>&1 || missing="$$missing gettext"; \
	command -v java >/dev/null 2>&1 || missing="$$missing default-jre-headless"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing nodejs npm"; \
	command -v clamscan >/dev/null 2>&1 || missing="$$missing clamav"; \
	test -x /usr/sbin/slapd || missing="$$missing slapd"; \
	command -v ldapadd >/dev/null 2>&1 || missing="$$missing ldap-utils"; \
	command -v pdftotext >/dev/null 2>&1 || missing="$$missing poppler-utils"; \
	command -v wget >/dev/null 2>&1 || missing="$$missing wget"; \
	command -v tesseract >/dev/null 2>&1 || missing="$$missing tesseract-ocr"; \
	test -f /usr/share/tesseract-ocr/5/tessdata/por.traineddata \
	  || test -f /usr/share/tesseract-ocr/4.00/tessdata/por.traineddata \
	  || missing="$$missing tesseract-ocr-por"; \
	test -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf || missing="$$missing fonts-dejavu-core xmlsec1"; \
	command -v xmlsec1 >/dev/null 2>&1 || missing="$$missing xmlsec1"; \
	if [ -n "$$missing" ]; then \
	  echo "== installing Debian's$$missing for the tests"; \
	  : "apt-get installs what is missing of: chromium chromium-headless-shell nginx gettext default-jre-headless nodejs npm clamav slapd ldap-utils poppler-utils tesseract-ocr tesseract-ocr-por fonts-dejavu-core xmlsec1"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	  case "$$missing" in *slapd*) \
	    $(SUDO) systemctl disable --now slapd >/dev/null 2>&1 || \
	    $(SUDO) service slapd stop >/dev/null 2>&1 || true;; esac; \
	fi

# What the benchmarks need beyond the suite (bench/README.md): wrk, the HTTP load generator of
# the throughput figures; valgrind, whose callgrind counts instructions per request (bench/resolver.py);
# and nginx, which bench/federation.py puts in front of gunicorn.
bench-tools: setup system-packages
	@command -v wrk >/dev/null 2>&1 || { echo "== installing Debian's wrk for the benchmarks"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq wrk >/dev/null; }
	@command -v valgrind >/dev/null 2>&1 || { echo "== installing Debian's valgrind (callgrind: instructions per request)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind >/dev/null; }

# The page checkers the suite runs (package.json, pinned by package-lock.json): the Nu HTML
# checker (vnu.jar) and axe-core, from the npm registry; no install script runs.
CHECKERS := node_modules/.installed
$(CHECKERS): package.json package-lock.json
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@
npm-packages: $(CHECKERS)

# Four workers on two cores: much of the suite waits on servers it started (pytest-xdist; each
# worker has its own test database, ports and media folders), and a test module's tests stay on
# one worker, so its live servers start once. PYTEST_ARGS adds to it (e.g. -k, -x).
XDIST ?= -n 4 --dist loadscope --no-loadscope-reorder
# pytest keeps its assertion-rewritten test modules in tests/__pycache__ (ten seconds of CPU a
# worker saved at collection), which an environment's PYTHONDONTWRITEBYTECODE would forbid.
test: setup system-packages npm-packages
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS)

# After changing marked strings: refresh the pt-BR catalogue (needs GNU gettext's xgettext),
# translate what is new in locale/pt_BR/LC_MESSAGES/django.po, then `make setup` compiles it.
messages: setup
	$(BIN)/python manage.py makemessages -l pt_BR --no-obsolete --ignore=.venv --ignore=bench \
	  --ignore=tests --ignore=docs --ignore=staticfiles --ignore=media --ignore=mutants \
	  --ignore=node_modules

# The suite's teeth: mutmut mutates the three pure modules of the standards (tool.mutmut in
# pyproject.toml) and runs their tests against every mutant; the score must stay >= 90 %.
# Five to seven minutes; CI does not run it. Survivors and why they survive: docs/testing.md.
mutation: setup
	rm -rf mutants
	$(BIN)/mutmut run > mutants.log 2>&1 || (tail -20 mutants.log; exit 1)
	$(BIN)/python .ci/mutation-score 90

# The documentation site (mkdocs.yml, docs/), served with live reload on DOCS_PORT; docs-build
# writes it to site/ with every warning an error, as .ci/run does. Nothing is fetched: the API
# reference is written from this tree's schema (docs/hooks/openapi.py).
DOCS_PORT ?= 8001
MKDOCS := NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs
docs: setup
	$(MKDOCS) serve --dev-addr 127.0.0.1:$(DOCS_PORT)
docs-build: setup
	$(MKDOCS) build --strict

lint: setup
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-logo

clean:
	rm -rf $(VENV) node_modules db.sqlite3 media staticfiles .pytest_cache mutants mutants.log \
	  site
