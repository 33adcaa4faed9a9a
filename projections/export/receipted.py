"""A seat's receipts checked against an export (``playlog verify --receipts FILE``).

The file must contain every receipted append exactly as receipted: for each receipt, in the
order given, its signature verifies; the seat's events numbered ``before + 1..after``, as the
file shows them to that seat, have the receipt's digest; the head the receipt commits to is the
file's hash at some seq, where the seat's version is ``after``; and the command whose events end
there carries its key. The first receipt that contradicts the file is the finding (docs/receipts.md).

A receipts file is JSON: a list of receipts (signed notes), or an object with a ``receipts`` list
(the play page's download holds the transcript next to it); an entry may also be an object
``{"receipt": ..., "events": [...]}`` keeping the events its answer gave (a verifier without the
rules checks the digest against those; this one recomputes them from the file).
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain.viewers import Seat
from projections import table as tables
from projections.envelopes import EventOut, envelopes
from projections.export.format import ExportFile, canonical
from projections.notes import Verifier
from projections.numbering import version_for
from projections.receipts import ReceiptError, events_digest, head_commitment, verify
from projections.table import Table


def read_receipts(text: str) -> list[str]:
    """The receipts of a receipts file; ``ValueError`` if it is not one."""
    value = json.loads(text)
    if isinstance(value, dict):
        value = value.get("receipts")
    if isinstance(value, list):
        value = [r.get("receipt") if isinstance(r, dict) else r for r in value]
    if not isinstance(value, list) or not all(isinstance(r, str) for r in value):
        raise ValueError("a receipts file is a JSON list of receipts, or an object with one in 'receipts'")
    return value


@dataclass(frozen=True)
class Receipted:
    """How many receipts of this game were checked (others name other games), and the first
    contradiction: (the receipt's place in the file, from 1; why)."""

    checked: int
    other_games: int
    failure: tuple[int, str] | None = None


class _Folded:
    """The file's log folded once: each seat's events as it was shown them, and its version
    after each seq."""

    def __init__(self, export: ExportFile) -> None:
        self.items: list[tuple[int, float, Any]] = []
        self.tables: dict[int, Table] = {}  # seq -> the table right after it
        self.last: Table | None = None
        for event in export.events:
            self.last, decoded = tables.step(
                self.last, event.type, canonical(event.data), event.schema_version
            )
            self.items.append((event.seq, float(event.recorded_at), decoded))
            self.tables[event.seq] = self.last
        self._shown: dict[int, list[EventOut]] = {}

    def shown(self, seat: int) -> list[EventOut]:
        if seat not in self._shown:
            self._shown[seat] = envelopes(self.last, self.items, Seat(seat)) if self.last else []
        return self._shown[seat]

    def version_at(self, seq: int, seat: int) -> int:
        return version_for(self.tables[seq], Seat(seat))

    def version(self, seat: int) -> int:
        return version_for(self.last, Seat(seat)) if self.last else 0


def command_ids(export: ExportFile) -> dict[int, str | None]:
    """Each event's command id: its own metadata's, or within a recorded command's group (whose
    later events carry none since migration 0024) the group's first event's."""
    ids: dict[int, str | None] = {}
    group: str | None = None
    left = 0
    for event in export.events:
        metadata = event.metadata if isinstance(event.metadata, dict) else {}
        own = metadata.get("command_id")
        record = metadata.get("command")
        if isinstance(record, dict) and isinstance(record.get("events"), int):
            group, left = own, record["events"] - 1
        elif left > 0:
            left -= 1
            own = own if own is not None else group
        ids[event.seq] = own
    return ids


def check_receipts(export: ExportFile, receipts: Sequence[str], keys: Sequence[Verifier]) -> Receipted:
    game_id = uuid.UUID(export.header.game_id)
    try:
        folded = _Folded(export)
    except Exception as exc:  # the replay's own check names the seq; nothing to compare with
        return Receipted(0, 0, (1, f"the file does not replay ({exc}): no receipt can be checked"))
    heads = {
        key_id: {head_commitment(base64.b64decode(game_key), e.hash): e.seq for e in export.events}
        for key_id, game_key in export.receipt_keys.items()
    }
    checked = others = 0
    ids: dict[int, str | None] | None = None
    for n, text in enumerate(receipts, start=1):
        try:
            signed = verify(text, keys)
        except ReceiptError as exc:
            return Receipted(checked, others, (n, f"does not verify: {exc}"))
        receipt = signed.receipt
        if receipt.game_id != game_id:
            others += 1
            continue
        checked += 1
        label = f"seat {receipt.seat}, versions {receipt.before}..{receipt.after}" + (
            f", key {receipt.key}" if receipt.key else ""
        )
        shown = folded.shown(receipt.seat)
        final = folded.version(receipt.seat)
        if receipt.after > final:
            reason = f"({label}) the file ends at the seat's version {final}: receipted events are missing"
            return Receipted(checked, others, (n, reason))
        events = [(e.seq, e.type, e.data) for e in shown if receipt.before < e.seq <= receipt.after]
        if events_digest(events, receipt.version) != receipt.events:
            reason = f"({label}) the seat's events in the file are not the ones receipted"
            return Receipted(checked, others, (n, reason))
        by_head = heads.get(signed.key_id.hex())
        if by_head is None:
            reason = (
                f"({label}) the file reveals no head key for key {signed.key_id.hex()}: the head is unchecked"
            )
            return Receipted(checked, others, (n, reason))
        seq = by_head.get(receipt.head)
        if seq is None:
            reason = f"({label}) no head of the file is the receipted one: the game was rewritten, or cut"
            return Receipted(checked, others, (n, reason))
        if folded.version_at(seq, receipt.seat) != receipt.after:
            reason = (
                f"({label}) the receipted head is at seq {seq}, not at the seat's version {receipt.after}"
            )
            return Receipted(checked, others, (n, reason))
        if receipt.key is not None:
            if ids is None:
                ids = command_ids(export)
            if ids.get(seq) != f"seat:{receipt.seat}:{receipt.key}":
                reason = f"({label}) the events at the receipted head are not this command's"
                return Receipted(checked, others, (n, reason))
    return Receipted(checked, others)
