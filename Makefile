# Two commands for a fresh machine with Python 3.11+:
#   make serve   start the service (embedded PostgreSQL unless PLAYLOG_DATABASE_URL is set)
#   make test    run the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: serve test test-unit test-integration test-e2e lint install openapi examples docs bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]"
	touch $@

install: $(BIN)/.installed

serve: install
	$(BIN)/playlog serve

test: install
	$(BIN)/pytest

# One target per tier; `make test` runs them all. Unit: no database (tests marked `integration`
# need PostgreSQL, tests/conftest.py marks them); integration: the store, migrations, read models,
# the golden corpus and faults on a real PostgreSQL; e2e: the app over HTTP.
test-unit: install
	$(BIN)/pytest -m "not integration"

test-integration: install
	$(BIN)/pytest -m integration --ignore=tests/e2e

test-e2e: install
	$(BIN)/pytest tests/e2e

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

openapi: install
	$(BIN)/playlog openapi > openapi/openapi.json

# The document's examples: real answers and request bodies, recorded from the e2e tests that
# between them call every operation (tests/e2e/examples.py), then the document again.
EXAMPLE_TESTS := access api_play disputes transparency_log export incidents players player_games \
	spectator_chunks audit listing openapi_and_operations a_risk_cat_over_http signing_keys \
	reexecution erasure computer_players_seated match_traces
# The document is stale while its examples are being recorded: the two tests that say so wait.
STALE_WHILE_RECORDING := test_committed_openapi_document_is_up_to_date test_served_openapi_equals_the_committed_one
examples: install
	rm -f service/http/examples.json
	PLAYLOG_RECORD_EXAMPLES=1 $(BIN)/pytest -q -p no:randomly $(EXAMPLE_TESTS:%=tests/e2e/test_%.py) \
		$(STALE_WHILE_RECORDING:%=--deselect tests/e2e/test_openapi_and_operations.py::%)
	$(BIN)/playlog openapi > openapi/openapi.json

# The event catalogue, generated from the msgspec event types (tests/unit/test_docs.py checks it).
docs: install
	$(BIN)/python -m service.tools.eventdocs > docs/events.md
	$(BIN)/python -m service.tools.eventdocs --rules-index > docs/rules/README.md

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
