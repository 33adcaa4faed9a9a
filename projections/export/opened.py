"""An export's seals opened (domain/personal.py, docs/erasure.md). Pure.

The chain, the proofs and the receipts are checked on the events as the log keeps them (seals);
the rules are re-run on the events and commands opened: each seal replaced by the text its
``personal`` line gives (or, its person erased, what it shows now), so that the rules see what
they saw when they decided. ``check_personal`` checks that every text given opens its seal.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from domain import registry
from domain.personal import opens
from projections.export.findings import Finding
from projections.export.format import EventRecord, ExportFile
from projections.personal import open_body, seals_in


def _shown(export: ExportFile) -> dict[str, str]:
    return {
        seal: record.text if record.text is not None else record.shown or ""
        for seal, record in export.personal.items()
    }


def _opened_event(event: EventRecord, shown: dict[str, str]) -> EventRecord:
    changes: dict[str, Any] = {}
    fields = registry.PERSONAL_EVENTS.get(event.type)
    if fields is not None and isinstance(event.data, dict):
        changes["data"] = open_body(event.data, fields, shown, seals=False)
    metadata = event.metadata if isinstance(event.metadata, dict) else {}
    command = metadata.get("command")
    body = command.get("body") if isinstance(command, dict) else None
    commands = registry.PERSONAL_COMMANDS.get(body.get("type", "")) if isinstance(body, dict) else None
    if isinstance(command, dict) and isinstance(body, dict) and commands:
        opened_command = {**command, "body": open_body(body, commands, shown, seals=False)}
        changes["metadata"] = {**metadata, "command": opened_command}
    return dataclasses.replace(event, **changes) if changes else event


def opened(export: ExportFile) -> ExportFile:
    """``export`` with its events' and recorded commands' seals opened."""
    if not export.personal and not any(_sealed(e) for e in export.events):
        return export
    shown = _shown(export)
    return dataclasses.replace(export, events=[_opened_event(e, shown) for e in export.events])


def _sealed(event: EventRecord) -> bool:
    fields = registry.PERSONAL_EVENTS.get(event.type)
    return fields is not None and bool(seals_in(event.data, fields))


def _seals(event: EventRecord) -> list[str]:
    found = seals_in(event.data, registry.PERSONAL_EVENTS.get(event.type, {}))
    metadata: Any = event.metadata
    command = metadata.get("command") if isinstance(metadata, dict) else None
    body = command.get("body") if isinstance(command, dict) else None
    if isinstance(body, dict):
        found += seals_in(body, registry.PERSONAL_COMMANDS.get(body.get("type", ""), {}))
    return found


def check_personal(export: ExportFile) -> Finding | None:
    """The first event with a seal its ``personal`` line's text and salt do not open."""
    for event in export.events:
        for seal in _seals(event):
            record = export.personal.get(seal)
            if record is None or record.salt is None or record.text is None:
                continue  # not in the file, or erased: nothing to check
            if not opens(seal, record.salt, record.text):
                return Finding("personal", event.seq, "a personal text does not open its seal")
    return None
