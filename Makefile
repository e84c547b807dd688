# The two commands a newcomer needs: `make serve` and `make test` (`make test-fast` while editing).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

NODE_DEPS := client/node/node_modules/.package-lock.json

.PHONY: install node prolog nginx browser test test-fast lint typecheck sweep bench bench-heuristics serve proto clean fuzz

# setup.py and the C sources too: the install compiles the native playout kernel.
$(STAMP): pyproject.toml setup.py reasoner/propnet/_native.c reasoner/propnet/_threads.c \
		reasoner/propnet/kernel.h
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) $(NODE_DEPS)

## The Node.js example client's packages (@grpc/grpc-js, @grpc/proto-loader) from npm.
$(NODE_DEPS): client/node/package.json client/node/package-lock.json
	npm ci --prefix client/node --no-audit --no-fund --loglevel=error

node: $(NODE_DEPS)

## SWI-Prolog for the reference solver (Debian's swi-prolog-nox), installed when missing.
prolog:
	@command -v swipl >/dev/null 2>&1 || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq swi-prolog-nox >/dev/null; }

## Debian's nginx (nginx-light, with its gRPC proxy module) for the replica tests, installed
## when missing.
nginx:
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq nginx-light >/dev/null; }

## Debian's chromium and chromium-driver for the web page's browser tests, installed when
## missing.
browser:
	@{ command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; } || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null; }

## Run the whole suite: lint, type check (tests included), tests and doctests (the corpus
## sweeps run a seeded sample), in two processes (a corpus sample and its count share one):
## 9 to 12 minutes on two cores (11 min 0 s on a clean clone here, install included, with the
## Ray cluster's tests, 2026-11-27).
test: $(STAMP) prolog nginx browser $(NODE_DEPS)
	$(BIN)/ruff check reasoner client tests
	$(BIN)/mypy reasoner client tests
	$(BIN)/pytest -q -n 2 --dist loadgroup

## The edit loop's tier: lint, type check and every test but those marked corpus, slow or
## needs_tools (SWI-Prolog, nginx, the npm packages), in about a minute on two cores with a
## warm .mypy_cache (46 to 64 s here, 2026-11-27; 87 s on a clean clone, the environment's
## install included); it installs nothing beyond the Python environment.
## `make test` still runs everything.
test-fast: $(STAMP)
	$(BIN)/ruff check reasoner client tests
	$(BIN)/mypy reasoner client tests
	$(BIN)/pytest -q -n 2 --dist loadgroup -m "not corpus and not slow and not needs_tools"

lint: $(STAMP)
	$(BIN)/ruff check reasoner client tests

typecheck: $(STAMP)
	$(BIN)/mypy reasoner client tests

## The whole corpus sweep (every file of ../shared/corpus), on demand.
sweep: $(STAMP)
	GDL_CORPUS_FULL=1 $(BIN)/pytest -q -m corpus -s

## The fuzz campaign of the README: 10,000 seeded mutants of corpus files in process and
## 1,000 over gRPC, counted by fate (accepted, refused, crash, hang, slow).
fuzz: $(STAMP)
	$(BIN)/gdl-reasoner fuzz ../shared/corpus --mutations 10000 --seed 0 --jobs 2
	$(BIN)/gdl-reasoner fuzz ../shared/corpus --mutations 1000 --seed 1 --grpc

## Benchmark the bundled games that the issue sets targets for.
bench: $(STAMP)
	$(BIN)/gdl-reasoner bench games/tictactoe.kif games/connectfour.kif

## Heuristic evaluations per second and greedy players against random ones (issue 7).
bench-heuristics: $(STAMP)
	$(BIN)/gdl-reasoner bench-heuristics games/tictactoe.kif games/connectfour.kif \
		games/breakthrough.kif

serve: $(STAMP)
	$(BIN)/gdl-reasoner serve --games games

## Regenerate the checked-in gRPC code from proto/ (a test fails when it is stale).
proto: $(STAMP)
	$(BIN)/python -m grpc_tools.protoc -Iproto --python_out=. --pyi_out=. \
		--grpc_python_out=. proto/reasoner/v1/reasoner.proto

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .pytest_cache .ruff_cache reasoner/propnet/*.so

## The documentation site (docs/, mkdocs.yml) into site/, with warnings as errors (phony:
## the folder docs/ must not make it look up to date).
.PHONY: docs
docs: $(STAMP)
	$(BIN)/mkdocs build --strict
