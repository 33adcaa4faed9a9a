"""The answers in the document: refusals typed by their codes, the headers Litestar cannot
declare (Retry-After, Location), streams and the export as their items' schemas."""

from __future__ import annotations

from typing import Any

from service.http.api.problems import (
    BY_KIND_EXTENSION,
    PARAMS,
    PROBLEM_JSON,
    RACES,
    RACES_EXTENSION,
    documented_codes,
    rule_codes,
)
from service.http.openapi.walk import ref

# The schema of one item of a stream (an SSE message, a line of JSON Lines): OpenAPI 3.1 has no
# keyword for it (3.2's itemSchema), so generators read the named component, this points at it.
_ITEM_EXTENSION = "x-playlog-item-schema"

_LOCATION = {
    "description": "Where what was created is read (a path of this API); a retry gets the same",
    "required": True,
    "schema": {"type": "string", "format": "uri-reference"},
}

_RETRY_AFTER = {
    "429": {
        "description": "Seconds until the rate window resets",
        "required": True,
        "schema": {"type": "integer", "minimum": 1},
    },
    "503": {
        "description": "Seconds to wait before retrying (with every code but service_unavailable)",
        "required": False,
        "schema": {"type": "integer", "minimum": 1},
    },
}

_SSE_DESCRIPTION = (
    "Server-sent events (text/event-stream), one per event this viewer may see, each an "
    "`EventMessage` (#/components/schemas/EventMessage, also named by the media type's "
    f"`{_ITEM_EXTENSION}`): `event` is the event's type, `id` its number for this viewer (send it "
    "back as Last-Event-ID to resume) and `data` one `EventOut` as JSON. Comments (`: keep-alive`) "
    "keep the connection open. Read it as a stream: it stays open while the game runs."
)


def _problems_only(operation: dict[str, Any]) -> None:
    """Litestar's own 400 ("Validation Exception") is sent as a problem like every refusal."""
    responses = operation.get("responses", {})
    for status, response in list(responses.items()):
        if status == "400" and PROBLEM_JSON not in response.get("content", {}):
            codes = ", ".join(PARAMS[400])
            responses[status] = {
                "description": f"Bad Request; code: {codes}",
                "content": {PROBLEM_JSON: {"schema": ref("Problem")}},
            }


def _typed_codes(response: dict[str, Any]) -> None:
    """A refusal's ``code`` as the enum of the codes its description lists; those that only mean
    the game moved on marked (``x-playlog-races``); every game's own ones by kind."""
    description = response.get("description", "")
    codes = documented_codes(description)
    response["content"][PROBLEM_JSON]["schema"] = {
        "allOf": [
            ref("Problem"),
            {"type": "object", "properties": {"code": {"type": "string", "enum": codes}}},
        ]
    }
    if races := [code for code in codes if code in RACES]:
        response[RACES_EXTENSION] = races
    if BY_KIND_EXTENSION in description:
        response[BY_KIND_EXTENSION] = rule_codes()


def complete_responses(
    operation: dict[str, Any], export_line: dict[str, Any], trace_line: dict[str, Any]
) -> None:
    """One operation's answers, completed (JSON Lines: an export's, or a seat's trace's)."""
    _problems_only(operation)
    for status, response in operation.get("responses", {}).items():
        if status in _RETRY_AFTER:  # problem details cannot declare headers (ResponseSpec)
            response["headers"] = {"Retry-After": _RETRY_AFTER[status]}
        if status == "201":
            response["headers"] = {"Location": _LOCATION}
        content = response.get("content", {})
        if "application/x-ndjson" in content:
            trace = operation.get("operationId") == "seatTrace"
            content["application/x-ndjson"] = {
                "schema": {
                    "type": "string",
                    "description": f"JSON Lines, each a{' TraceLine' if trace else 'n ExportLine'}",
                },
                _ITEM_EXTENSION: trace_line if trace else export_line,
            }
        if "text/event-stream" in content:
            # No type: a test tool (schemathesis) reads `schema` as one message's, a
            # generator as the whole stream's; the message is the named EventMessage.
            content["text/event-stream"] = {
                "schema": {"description": "EventMessages, read as they come"},
                _ITEM_EXTENSION: ref("EventMessage"),
            }
            response["description"] = _SSE_DESCRIPTION
        if PROBLEM_JSON in content:
            _typed_codes(response)


EVENT_MESSAGE: dict[str, Any] = {
    "description": "One server-sent event of a stream; `data` holds one EventOut as JSON",
    "type": "object",
    "properties": {
        "event": {"type": "string", "description": "The event's type"},
        "id": {"type": "string", "description": "Its number for this viewer"},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": ref("EventOut"),
        },
    },
    "required": ["event", "id", "data"],
}
