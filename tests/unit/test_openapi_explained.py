"""The OpenAPI document explains itself (issue 42): a description on every operation, an example
of every request body and of every success answer, each example true to its schema, a
``Location`` on every 201 and the per-viewer numbering said where an event's ``seq`` is."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

DOCUMENT = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
# Bytes have no example in a JSON document (a log tile: hashes, 32 bytes each).
BINARY = "application/octet-stream"


def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(DOCUMENT.read_text())
    return document


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            yield f"{method.upper()} {path}", operation


def _validator(schema: dict[str, Any], document: dict[str, Any]) -> Any:
    return jsonschema_rs.validator_for({**schema, "components": document["components"]})


def _errors(schema: dict[str, Any], instance: Any, document: dict[str, Any]) -> list[str]:
    return [error.message for error in _validator(schema, document).iter_errors(instance)][:3]


def _unexplained(document: dict[str, Any]) -> list[str]:
    """What an operation leaves unsaid: its description, a request body's or a success answer's
    example, a 201's Location."""
    missing = []
    for where, operation in _operations(document):
        if not operation.get("description", "").strip():
            missing.append(f"{where}: no description")
        for media_type, media in operation.get("requestBody", {}).get("content", {}).items():
            if "example" not in media:
                missing.append(f"{where}: no example of the {media_type} request body")
        for status, response in operation["responses"].items():
            if not status.startswith("2"):
                continue
            if status == "201" and "Location" not in response.get("headers", {}):
                missing.append(f"{where} -> 201: no Location")
            for media_type, media in response.get("content", {}).items():
                if media_type != BINARY and "example" not in media:
                    missing.append(f"{where} -> {status}: no example of its {media_type} answer")
    return missing


def test_every_operation_is_described_with_examples() -> None:
    assert _unexplained(_document()) == []


def test_the_walk_finds_what_is_missing() -> None:
    document = _document()
    create = document["paths"]["/games"]["post"]
    del create["description"]
    del create["requestBody"]["content"]["application/json"]["example"]
    del create["responses"]["201"]["content"]["application/json"]["example"]
    del create["responses"]["201"]["headers"]
    assert _unexplained(document) == [
        "POST /games: no description",
        "POST /games: no example of the application/json request body",
        "POST /games -> 201: no Location",
        "POST /games -> 201: no example of its application/json answer",
    ]


def _examples(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any], Any]]:
    for where, operation in _operations(document):
        for media_type, media in operation.get("requestBody", {}).get("content", {}).items():
            yield f"{where} request", media_type, media, media.get("example")
        for status, response in operation["responses"].items():
            for media_type, media in response.get("content", {}).items():
                if "example" in media:
                    yield f"{where} -> {status}", media_type, media, media["example"]


def test_every_example_matches_its_schema() -> None:
    document = _document()
    event_out = {"$ref": "#/components/schemas/EventOut"}
    wrong = []
    checked = 0
    for where, media_type, media, example in _examples(document):
        if media_type == "application/json":
            errors = _errors(media["schema"], example, document)
        elif media_type == "application/x-ndjson":  # each line an item of the media's own schema
            item = media["x-playlog-item-schema"]
            errors = [e for line in example.splitlines() for e in _errors(item, json.loads(line), document)]
        elif media_type == "text/event-stream":  # each message's data, an EventOut
            datas = [
                line.removeprefix("data: ") for line in example.splitlines() if line.startswith("data: ")
            ]
            assert datas, where
            errors = [e for data in datas for e in _errors(event_out, json.loads(data), document)]
        else:
            errors = [] if isinstance(example, str) and example else ["not text"]
        checked += 1
        if errors:
            wrong.append(f"{where} ({media_type}): {errors}")
    assert wrong == []
    assert checked > 50


@pytest.mark.parametrize("name", ["EventOut"])
def test_an_event_s_number_is_said_to_be_the_viewer_s(name: str) -> None:
    seq = _document()["components"]["schemas"][name]["properties"]["seq"]
    assert "for this viewer" in seq["description"] and "never the log's own" in seq["description"]
