"""Check a response against the committed OpenAPI document: documented status, media type, body.

Used as an httpx response hook, so any test's traffic can be held to the contract.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs

DOCUMENT = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


@functools.cache
def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(DOCUMENT.read_text())
    return document


@functools.cache
def _validator(template: str, method: str, status: str, media_type: str, key: str = "schema") -> Any:
    """The schema of an answer (``key``: or of each item, one line of JSON Lines)."""
    document = _document()
    schema = document["paths"][template][method]["responses"][status]["content"][media_type][key]
    return jsonschema_rs.validator_for({**schema, "components": document["components"]})


ITEMS = "x-playlog-item-schema"


@functools.cache
def _component(name: str) -> Any:
    document = _document()
    return jsonschema_rs.validator_for(
        {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
    )


def component_errors(name: str, instance: Any) -> list[str]:
    """How ``instance`` departs from the document's schema ``name`` (an SSE message's data is
    an ``EventOut``, which no response body holds)."""
    return [e.message for e in _component(name).iter_errors(instance)]


def _pattern(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)) + "/?$")


@dataclass
class Contract:
    document: dict[str, Any] = field(default_factory=_document)
    violations: list[str] = field(default_factory=list)
    checked: int = 0

    def __post_init__(self) -> None:
        # Literal paths before templated ones: /games/{id}/audit is not /games/{id}/{anything}.
        templates = sorted(self.document["paths"], key=lambda t: (t.count("{"), -len(t)))
        self._paths = [(_pattern(t), t) for t in templates]

    def operation(self, method: str, path: str) -> tuple[str, dict[str, Any]] | None:
        for pattern, template in self._paths:
            if pattern.match(path):
                operation = self.document["paths"][template].get(method.lower())
                if operation is not None:
                    return template, operation
        return None

    def check(
        self,
        method: str,
        path: str,
        status: int,
        content_type: str,
        body: bytes | None,
        headers: httpx.Headers | None = None,
    ) -> None:
        found = self.operation(method, path)
        if found is None:
            return  # not an operation (an unknown path, OPTIONS, an unsupported method)
        template, operation = found
        where = f"{method} {template} -> {status}"
        self.checked += 1
        response = operation["responses"].get(str(status))
        if response is None:
            self.violations.append(f"{where}: status not documented")
            return
        for name, header in response.get("headers", {}).items():
            if header.get("required") and headers is not None and name not in headers:
                self.violations.append(f"{where}: no {name} header")
        media_type = content_type.split(";", 1)[0].strip()
        content = response.get("content", {})
        if not content and not body:
            return  # documented without a body (a 204), and sent without one
        if media_type not in content:
            self.violations.append(f"{where}: {media_type} not documented ({sorted(content)})")
            return
        if body is not None and ITEMS in content[media_type] and media_type == "application/x-ndjson":
            validator = _validator(template, method.lower(), str(status), media_type, ITEMS)
            for number, line in enumerate(body.decode().splitlines(), 1):
                errors = [e.message for e in validator.iter_errors(json.loads(line))]
                if errors:
                    self.violations.append(f"{where}: line {number} does not match: {errors[:3]}")
            return
        if body is None or not media_type.endswith("json"):
            return
        instance = json.loads(body)
        validator = _validator(template, method.lower(), str(status), media_type)
        errors = [e.message for e in validator.iter_errors(instance)]
        if errors:  # a refusal's code out of its response's enum included
            self.violations.append(f"{where}: body does not match the schema: {errors[:3]}")

    async def hook(self, response: httpx.Response) -> None:
        content_type = response.headers.get("content-type", "")
        body = None if content_type.startswith("text/event-stream") else await response.aread()
        request = response.request
        self.check(
            request.method, request.url.path, response.status_code, content_type, body, response.headers
        )
