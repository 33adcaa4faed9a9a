"""Walking the OpenAPI document: its nodes, references and operations, and the fixes made on
every schema (string enums typed, request defaults out)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

REF = "#/components/schemas/{name}"


def ref(name: str) -> dict[str, Any]:
    return {"$ref": REF.format(name=name)}


def typed_enums(doc: dict[str, Any]) -> None:
    """An enum of strings says it is a string (msgspec leaves ``type`` out of a Literal's schema;
    generators then type it loosely, or refuse it: datamodel-code-generator's strict models)."""
    for node in walk(doc):
        values = node.get("enum")
        if isinstance(values, list) and "type" not in node and all(isinstance(v, str) for v in values):
            node["type"] = "string"


def walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def refs(node: Any) -> Iterator[str]:
    for item in walk(node):
        ref = item.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            yield ref.removeprefix("#/components/schemas/")


def without_defaults(schemas: dict[str, Any], roots: list[str]) -> None:
    """Request schemas: a default is the server's business, not a field the client must send.

    (Generators such as openapi-typescript make a property with a ``default`` required.) The
    default is kept in the property's description."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name not in schemas:
            continue
        seen.add(name)
        for prop in schemas[name].get("properties", {}).values():
            if isinstance(prop, dict) and "default" in prop:
                default = msgspec.json.encode(prop.pop("default")).decode()
                text = prop.get("description", "")
                prop["description"] = f"{text} (default: {default})".strip()
        todo.extend(refs(schemas[name]))


def operations(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for path in doc.get("paths", {}).values():
        yield from path.values()


def deprecated_parameters(operation: dict[str, Any]) -> None:
    """A parameter whose schema says it is deprecated says so itself, where generators look
    (Litestar's parameters take no ``deprecated``: service/http/paging.py's ``Offset``)."""
    for parameter in operation.get("parameters", []):
        if parameter.get("schema", {}).get("deprecated"):
            parameter["deprecated"] = True
