"""Examples for the OpenAPI document: real answers and request bodies, recorded from the e2e
tests' traffic (``make examples``, tests/e2e/examples.py) into examples.json next to this file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_EXAMPLES = Path(__file__).with_name("examples.json")
_JSON = ("application/json", "application/problem+json")


def add_examples(doc: dict[str, Any]) -> None:
    """Real answers and request bodies as examples (service/http/examples.json, recorded from the
    e2e tests' traffic by ``make examples``). A stream's example is one message, made of an
    event a seat received."""
    if not _EXAMPLES.exists():
        return
    recorded: dict[str, str] = json.loads(_EXAMPLES.read_text())
    events = json.loads(recorded.get("getSeatEvents 200 application/json", "[]"))
    stream = "".join(f"event: {e['type']}\nid: {e['seq']}\ndata: {json.dumps(e)}\n\n" for e in events[:2])
    for operation in (op for path in doc.get("paths", {}).values() for op in path.values()):
        name = operation.get("operationId", "")
        for media_type, media in operation.get("requestBody", {}).get("content", {}).items():
            if (body := recorded.get(f"{name} request")) is not None and media_type in _JSON:
                media["example"] = json.loads(body)
        for status, response in operation.get("responses", {}).items():
            if not status.startswith("2"):
                continue
            for media_type, media in response.get("content", {}).items():
                text = recorded.get(f"{name} {status} {media_type}")
                if media_type == "text/event-stream" and stream:
                    media["example"] = stream
                elif text is not None:
                    media["example"] = json.loads(text) if media_type in _JSON else text
