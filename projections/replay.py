"""Full replay for audits: the table after every event, diffs, transcripts, shuffle proofs.

Pure: it takes stored events (seq, time, type, metadata, data) and folds them with the game's
decider. Moderators see everything; a seat's transcript applies that seat's redaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from domain import commitment
from domain.viewers import MODERATOR, Moderator, Seat, Viewer
from projections import table as tables
from projections.envelopes import redact
from projections.numbering import private_seat, sees
from projections.table import DisputeEvent, Table


class RawEvent(msgspec.Struct, frozen=True, kw_only=True):
    """What replay needs of a stored event."""

    seq: int
    recorded_at: float
    type: str
    schema_version: int  # no default: a row's shape must never be guessed
    data: str | bytes
    actor: str | None = None


class Step(msgspec.Struct, frozen=True):
    seq: int
    recorded_at: float
    type: str
    actor: str | None
    event: Any
    table: Table  # after this event


class Logged(msgspec.Struct, frozen=True):
    """A stored event decoded, without the table after it: for reads of the events alone (a
    transcript), which need no fold of the log."""

    seq: int
    recorded_at: float
    type: str
    actor: str | None
    event: Any


class Change(msgspec.Struct, frozen=True):
    path: str
    before: Any
    after: Any


class ShuffleProof(msgspec.Struct, frozen=True):
    seq: int
    type: str
    commitment: str
    salt: str | None
    order: list[Any]
    valid: bool


def plain(value: Any) -> Any:
    """A Struct as JSON-like builtins (lists, dicts, str, numbers), exactly as the API shows it."""
    return msgspec.json.decode(msgspec.json.encode(value))


def replay(events: Iterable[RawEvent], table: Table | None = None) -> list[Step]:
    """The table after each event, folded on from ``table`` (None: the log's start; else the
    table just before the first of ``events``)."""
    steps: list[Step] = []
    for raw in events:
        table, event = tables.step(table, raw.type, raw.data, raw.schema_version)
        steps.append(Step(raw.seq, raw.recorded_at, raw.type, raw.actor, event, table))
    return steps


def state_at(steps: Sequence[Step], seq: int) -> Table:
    """The table right after event ``seq`` (1-based)."""
    if not 1 <= seq <= len(steps):
        raise IndexError(seq)
    return steps[seq - 1].table


def snapshot(table: Table, *, raisers: bool = True) -> dict[str, Any]:
    """Everything about a table: lobby facts and the game's moderator view. Without ``raisers``
    (for anyone but moderators) no dispute names the seat that raised it or the seqs it
    disputes, as the other seats read it (domain/disputes/views.py)."""
    started = table.status != "open"
    view = table.decider.view(table.state, MODERATOR) if started else None
    return {
        "kind": table.kind,
        "status": table.status,
        "version": table.version,
        "seats": list(table.seats),
        "options": table.raw_options,
        "winners": list(table.outcome.winners) if table.outcome else None,
        "game": plain(view),
        **_disputes(table, raisers),
    }


def _disputes(table: Table, raisers: bool) -> dict[str, Any]:
    """The disputes' part of a snapshot, only once there is one (older snapshots keep their
    shape: the golden corpus hashes them). The table holds no reason and no note."""
    if not table.disputes:
        return {}
    return {
        "ruled_winners": list(table.ruled_outcome.winners) if table.ruled_outcome else None,
        "penalties": list(table.penalties),
        "disputes": [
            d if raisers else {k: v for k, v in d.items() if k not in ("seat", "seqs")}
            for d in plain(list(table.disputes))
        ],
    }


def diff(before: Any, after: Any, path: str = "") -> list[Change]:
    """The leaves that differ between two JSON-like documents, as JSON-pointer paths."""
    if isinstance(before, dict) and isinstance(after, dict):
        changes: list[Change] = []
        for key in sorted(set(before) | set(after), key=str):
            changes += diff(before.get(key), after.get(key), f"{path}/{key}")
        return changes
    if before != after:
        return [Change(path or "/", before, after)]
    return []


def diffs(steps: Sequence[Step], *, raisers: bool = True, before: Table | None = None) -> list[list[Change]]:
    """The change each event made to the complete state (``raisers``: as in ``snapshot``;
    ``before``: the table just before the first step, None at the log's start)."""
    out: list[list[Change]] = []
    previous: dict[str, Any] = snapshot(before, raisers=raisers) if before is not None else {}
    for step in steps:
        current = snapshot(step.table, raisers=raisers)
        out.append(diff(previous, current))
        previous = current
    return out


def shuffle_proofs(steps: Sequence[Step]) -> list[ShuffleProof]:
    """Every committed hidden order, revealed and checked against its commitment."""
    proofs = []
    for step in steps:
        committed = getattr(step.event, "commitment", None)
        hidden_order = step.table.decider.hidden.order
        if not committed or hidden_order is None:
            continue
        salt = getattr(step.event, "salt", None)
        order = plain(list(hidden_order(step.table.state)))
        valid = salt is not None and commitment.verify(order, salt, committed)
        proofs.append(ShuffleProof(step.seq, step.type, committed, salt, order, valid))
    return proofs


def _fields(event: Any) -> str:
    values = plain(event)
    parts = []
    for key, value in values.items():
        if key == "type" or value in (None, [], ""):
            continue
        if isinstance(value, list) and value and isinstance(value[0], list):
            value = " | ".join(", ".join(map(str, inner)) for inner in value)
        elif isinstance(value, list):
            value = ", ".join(map(str, value))
        parts.append(f"{key}={value}")
    return " ".join(parts)


def shown_actor(actor: str | None, event: Any, viewer: Viewer) -> str | None:
    """Who acted, as ``viewer`` may read it: a dispute event's actor (the seat that raised or
    answered, in its command id too) only to moderators and to that seat itself."""
    if not isinstance(event, DisputeEvent) or isinstance(viewer, Moderator):
        return actor
    if isinstance(viewer, Seat) and actor == f"seat:{viewer.index}":
        return actor
    return None


def transcript(steps: Sequence[Step], viewer: Viewer = MODERATOR) -> str:
    """One line per event, like a poker hand history; hidden cards face up for moderators.

    Lines are numbered in the viewer's numbering (projections/numbering): no gap betrays an event
    it may not see."""
    return transcript_of(steps[-1].table, steps, viewer) if steps else "\n"


def transcript_of(table: Table, steps: Sequence[Step | Logged], viewer: Viewer = MODERATOR) -> str:
    """``transcript`` of a game's events (at least one), ``table`` the game after the last of
    them: no table after each event is needed, so the events need not be folded again."""
    names = ", ".join(f"{i}:{n}" for i, n in enumerate(table.seats))
    lines = [f"# {table.kind} game, seats {names}"]
    number = 0
    decider = table.decider
    for step in steps:
        if not sees(private_seat(decider, step.event), viewer):
            continue
        number += 1
        shown = redact(decider, step.event, viewer)
        if shown is None:
            continue
        when = datetime.fromtimestamp(step.recorded_at, UTC).strftime("%H:%M:%S.%f")[:-3]
        actor = shown_actor(step.actor, step.event, viewer) or "-"
        tag = type(shown).__struct_config__.tag or step.type
        lines.append(f"#{number:<4} {when} {actor:<8} {tag} {_fields(shown)}".rstrip())
    return "\n".join(lines) + "\n"
