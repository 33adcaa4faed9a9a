"""An export's seals opened (domain/personal.py, docs/erasure.md). Pure.

The chain, the proofs and the receipts are checked on the events as the log keeps them (seals);
the rules are re-run on the events and commands opened: each seal replaced by the text its
``personal`` line gives (or, its person erased, what it shows now), so that the rules see what
they saw when they decided. ``check_personal`` checks that every text given opens its seal.
"""

from __future__ import annotations

import dataclasses

from domain.personal import opens
from projections.export.findings import Finding
from projections.export.format import EventRecord, ExportFile
from projections.personal import open_event, seals_of


def _shown(export: ExportFile) -> dict[str, str]:
    return {
        seal: record.text if record.text is not None else record.shown or ""
        for seal, record in export.personal.items()
    }


def _opened_event(event: EventRecord, shown: dict[str, str], seals: bool) -> EventRecord:
    if not seals_of(event.type, event.data, event.metadata):
        return event
    data, metadata = open_event(event.type, event.data, event.metadata, shown, seals=seals)
    return dataclasses.replace(event, data=data, metadata=metadata)


def opened(export: ExportFile, *, seals: bool = False) -> ExportFile:
    """``export`` with its events' and recorded commands' seals opened; with ``seals``, each
    opened event also names its seals in ``sealed``, as the service's event lists show it."""
    shown = _shown(export)
    return dataclasses.replace(export, events=[_opened_event(e, shown, seals) for e in export.events])


def check_personal(export: ExportFile) -> Finding | None:
    """The first event with a seal its ``personal`` line's text and salt do not open."""
    for event in export.events:
        for seal in seals_of(event.type, event.data, event.metadata):
            record = export.personal.get(seal)
            if record is None or record.salt is None or record.text is None:
                continue  # not in the file, or erased: nothing to check
            if not opens(seal, record.salt, record.text):
                return Finding("personal", event.seq, "a personal text does not open its seal")
    return None
