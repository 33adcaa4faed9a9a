"""Record real answers as the OpenAPI document's examples (service/http/examples.json).

With ``PLAYLOG_RECORD_EXAMPLES=1``, every e2e test's traffic (tests/e2e/conftest.py's ``http``)
offers its successful answers and their JSON request bodies; per operation, status and media type
the example kept is the largest one under ``LIMIT`` bytes (a real, full answer that stays
readable), else the smallest; a long text answer (the metrics) is cut to its first lines.
``make examples`` runs the tests that between them call every operation and writes the file;
tests/unit/test_openapi_explained.py checks that every operation has its examples and that each
one matches its schema.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx

from tests.e2e.contract import Contract

EXAMPLES = Path(__file__).resolve().parents[2] / "service" / "http" / "examples.json"
LIMIT = 3000
RECORDING = os.environ.get("PLAYLOG_RECORD_EXAMPLES") == "1"


def _better(old: str | None, new: str) -> bool:
    if old is None:
        return True
    fits_old, fits_new = len(old) <= LIMIT, len(new) <= LIMIT
    if fits_old != fits_new:
        return fits_new
    return len(new) > len(old) if fits_new else len(new) < len(old)


def _head(text: str) -> str:
    """A long text answer's first lines (the metrics run to hundreds of kilobytes)."""
    if len(text) <= LIMIT:
        return text
    return text[: text.rfind("\n", 0, LIMIT) + 1]


def _text(content: bytes, media_type: str) -> str | None:
    if media_type.startswith("text/"):
        return _head(content.decode())
    if media_type == "application/x-ndjson":
        return content.decode()
    if media_type.endswith("json"):
        return json.dumps(json.loads(content), sort_keys=True)
    return None  # bytes (a log tile): no example in a JSON document


class Recorder:
    def __init__(self, contract: Contract) -> None:
        self.contract = contract

    async def hook(self, response: httpx.Response) -> None:
        content_type = response.headers.get("content-type", "")
        if not 200 <= response.status_code < 300 or content_type.startswith("text/event-stream"):
            return
        request = response.request
        found = self.contract.operation(request.method, request.url.path)
        if found is None:
            return
        operation_id = found[1]["operationId"]
        examples: dict[str, Any] = json.loads(EXAMPLES.read_text()) if EXAMPLES.exists() else {}
        media_type = content_type.split(";", 1)[0].strip()
        body = await response.aread()
        changed = False
        if body and (text := _text(body, media_type)) is not None:
            key = f"{operation_id} {response.status_code} {media_type}"
            if _better(examples.get(key), text):
                examples[key], changed = text, True
        if request.content and request.headers.get("content-type", "").startswith("application/json"):
            text = json.dumps(json.loads(request.content), sort_keys=True)
            key = f"{operation_id} request"
            if _better(examples.get(key), text):
                examples[key], changed = text, True
        if changed:
            EXAMPLES.write_text(json.dumps(examples, indent=1, sort_keys=True) + "\n")


def recording_hooks() -> list[Any]:
    """The recorder's hook for a client of a live server (empty unless recording)."""
    return [Recorder(Contract()).hook] if RECORDING else []
