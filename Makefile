# Errata: two commands on a fresh machine — `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 5000
HOST ?= 127.0.0.1
export FLASK_APP := app:create_app

.DEFAULT_GOAL := help
.PHONY: help install migrate import corpus serve run test pytest lint format typecheck clean browser-deps repro-env docker-base repro-sweep

help: ## Show this help
	@grep -hE '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2}'

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

install: $(VENV)/.installed ## Create .venv and install the app and its dev tools

migrate: install ## Migrate the database (SQLite under instance/ unless DATABASE_URL is set)
	$(BIN)/flask db upgrade

import: migrate ## Import every dataset file in data/records/ and link records to harnesses
	$(BIN)/flask records import data/records/*.jsonl
	$(BIN)/flask repro links

corpus: import ## Build (cached under ~/.cache/errata) and load the pinned corpus: sglang releases + dependencies
	$(BIN)/flask corpus build

serve: ## Serve on http://$(HOST):$(PORT) with gunicorn (no setup)
	$(BIN)/gunicorn --bind $(HOST):$(PORT) --workers $${WEB_CONCURRENCY:-2} --access-logfile - app.wsgi:app

run: corpus serve ## Set up, migrate, import data/records/ and serve on http://127.0.0.1:$(PORT)

lint: install ## ruff check + ruff format --check + import contracts (pyproject.toml)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

format: install ## Reformat the code with ruff
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

typecheck: install ## mypy on app/ and repro/
	$(BIN)/mypy

browser-deps: ## Debian chromium for the browser tests (apt, as root; skipped if present)
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	  else echo "chromium missing: sudo apt-get install chromium chromium-driver (browser tests will skip)"; fi; }

repro-env: install ## Build (or reuse) the sglang 0.5.23 harness environment (~2 min, ~6 GB, cached)
	$(BIN)/python -m repro.envs.build sglang-0.5.23

docker-base: ## Docker engine (dockerd, as root, if none answers) and the local base images (cached)
	docker/engine.sh

repro-sweep: repro-env ## Config-space sweep of sglang 0.5.23 (<= 50 min, resumable) -> data/repro-sweep/
	nice -n 10 $(BIN)/python -m repro.explore --budget-min 50

pytest: install browser-deps repro-env docker-base ## Run the test suite only
	$(BIN)/pytest

test: lint typecheck pytest ## Install what the tests need and run them all

clean: ## Remove the virtual environment and the local database
	rm -rf $(VENV) instance .pytest_cache .mypy_cache .ruff_cache
