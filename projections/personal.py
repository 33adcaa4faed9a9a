"""Sealing an append's personal texts and opening them again (domain/personal.py). Pure: the
service keeps the texts beside the log (service/store/personal.py), an export carries them
(docs/export-format.md), and both open a stored body the same way here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from domain import personal, registry
from domain.disputes.commands import OpenReview, RaiseDispute, ReplyToQuestion
from domain.personal import Field, is_seal, seal
from domain.table.commands import JoinSeat, TableCommand
from domain.table.state import Table

_encode = msgspec.json.Encoder().encode
UNKNOWN_NAME = "Unknown player"  # a seal whose text the reader does not have (an import without it)


@dataclass(frozen=True)
class SealedAppend:
    """An append with its personal texts sealed: what the log keeps (``(tag, schema version,
    JSON)`` per event), the events as readers get them back (each naming its seals), the
    command as recorded, the texts to keep beside the log."""

    stored: list[tuple[str, int, bytes]]
    events: Sequence[Any]
    recorded: dict[str, Any]
    kept: list[Kept]


@dataclass(frozen=True)
class Kept:
    """One personal text as it is kept beside the log."""

    seal: str
    subject: str
    field: Field
    salt: bytes
    text: str


def holder(table: Table, seat: int) -> str:
    """Whose texts a seat's are: its player's, or (a guest) its holding's."""
    player = table.players[seat] if 0 <= seat < len(table.players) else None
    if player is not None:
        return f"player:{player}"
    occupancy = table.occupancies[seat] if 0 <= seat < len(table.occupancies) else None
    return f"seat:{occupancy or ''}"


def subject_of(table: Table | None, command: TableCommand) -> str | None:
    """The person whose words ``command`` carries (None: it carries none)."""
    match command:
        case JoinSeat(player=player, occupancy=occupancy):
            return f"player:{player}" if player is not None else f"seat:{occupancy}"
        case RaiseDispute(seat=seat) | ReplyToQuestion(seat=seat) if table is not None:
            return holder(table, seat)
        case OpenReview(moderator=moderator):
            return f"moderator:{moderator}"
    return None


def seal_append(
    kind: registry.Kind,
    table: Table | None,
    command: TableCommand,
    events: Sequence[Any],
    recorded: dict[str, Any],
    draw_salt: Callable[[], bytes],
) -> SealedAppend:
    """The append of ``events`` (``command``'s, recorded as ``recorded``), a person's words in it
    sealed with one salt (``draw_salt``, called only when there are words to seal)."""
    subject = subject_of(table, command)
    if subject is None:  # every move: no one's words in it
        return SealedAppend([(*kind.tags[type(e)], _encode(e)) for e in events], events, recorded, [])
    salt = draw_salt()
    stored, opened, kept = [], [], []
    for event in events:
        tag, version = kind.tags[type(event)]
        if (fields := registry.PERSONAL_EVENTS.get(tag)) is None:
            stored.append((tag, version, _encode(event)))
            opened.append(event)
            continue
        body, seals, texts = seal_body(msgspec.to_builtins(event), fields, subject, salt)
        kept.extend(texts)
        stored.append((tag, version, _encode(body)))
        opened.append(msgspec.structs.replace(event, sealed=seals) if seals else event)
    if (fields := registry.PERSONAL_COMMANDS.get(recorded["body"].get("type", ""))) is not None:
        body, _, texts = seal_body(recorded["body"], fields, subject, salt)
        kept.extend(texts)
        recorded = {**recorded, "body": body}
    return SealedAppend(stored, opened, recorded, kept)


def seal_body(
    body: dict[str, Any], fields: Mapping[str, Field], subject: str, salt: bytes
) -> tuple[dict[str, Any], dict[str, str], list[Kept]]:
    """``body`` with each personal field's text replaced by its seal; the seals by field; the
    texts to keep."""
    sealed = dict(body)
    seals: dict[str, str] = {}
    kept: list[Kept] = []
    for name, field in fields.items():
        text = body.get(name)
        if not isinstance(text, str) or is_seal(text):
            continue
        sealed[name] = seals[name] = seal(salt, text)
        kept.append(Kept(seal=seals[name], subject=subject, field=field, salt=salt, text=text))
    return sealed, seals, kept


def seals_in(body: Any, fields: Mapping[str, Field]) -> list[str]:
    if not isinstance(body, dict):
        return []
    return [value for name in fields if is_seal(value := body.get(name))]


def shown_unknown(field: Field) -> str:
    return UNKNOWN_NAME if field == "name" else personal.ERASED_TEXT


def open_body(
    body: dict[str, Any], fields: Mapping[str, Field], shown: Mapping[str, str], *, seals: bool = True
) -> dict[str, Any]:
    """A stored ``body`` with each seal replaced by what it opens to (``shown``: seal -> text, or
    the pseudonym once erased); with ``seals``, the seals by field as its ``sealed`` member (an
    event's: what lets a reader hash it as the log keeps it, domain/personal.py's
    ``sealed_form``)."""
    opened = dict(body)
    found: dict[str, str] = {}
    for name, field in fields.items():
        value = body.get(name)
        if is_seal(value):
            opened[name] = shown.get(value) or shown_unknown(field)
            found[name] = value
    if seals and found:
        opened["sealed"] = found
    return opened


def _recorded(metadata: Any) -> tuple[dict[str, Any], dict[str, Field]] | None:
    """The command an event's metadata records, and its personal fields (None: it has none)."""
    command = metadata.get("command") if isinstance(metadata, dict) else None
    body = command.get("body") if isinstance(command, dict) else None
    if not isinstance(body, dict) or not (fields := registry.PERSONAL_COMMANDS.get(body.get("type", ""))):
        return None
    return body, fields


def seals_of(event_type: str, data: Any, metadata: Any) -> list[str]:
    """Every seal a stored event holds, and the command its metadata records."""
    found = seals_in(data, registry.PERSONAL_EVENTS.get(event_type, {}))
    if (recorded := _recorded(metadata)) is not None:
        found += seals_in(*recorded)
    return found


def open_event(
    event_type: str, data: Any, metadata: Any, shown: Mapping[str, str], *, seals: bool = True
) -> tuple[Any, Any]:
    """A stored event's ``data`` and ``metadata`` with every seal opened (``open_body``; the
    recorded command's never names its seals)."""
    if (fields := registry.PERSONAL_EVENTS.get(event_type)) is not None and isinstance(data, dict):
        data = open_body(data, fields, shown, seals=seals)
    if (recorded := _recorded(metadata)) is not None:
        body, commands = recorded
        metadata = {
            **metadata,
            "command": {**metadata["command"], "body": open_body(body, commands, shown, seals=False)},
        }
    return data, metadata
