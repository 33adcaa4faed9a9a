"""A command as the log records it (docs/export-format.md, "Recorded commands").

Every append carries, in its first event's metadata, the table command as ``decide`` received it
(less a seat's holder, which the table names), the clock it saw and how many events it produced:
``record`` writes that, ``decode`` reads the command back (the game's own command inside
``table.play`` by the game's command union, a tag the game has renamed since read as today's:
domain/registry.py's ``Commands``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import msgspec

from domain import registry
from domain.disputes import commands as _disputes  # noqa: F401  (registers the dispute commands)
from domain.table.commands import HELD, Play, TableCommand


def record(command: TableCommand, now: float, events: int) -> dict[str, Any]:
    """The ``command`` member of an append's metadata. A seat's command is recorded without its
    ``holder``, the occupancy its token named: the table the command was decided on names the
    seat's holder, the service checked it before deciding, and a verifier learns nothing from a
    copy the operator writes (commands recorded before keep theirs; either re-executes alike)."""
    body = msgspec.to_builtins(command)
    if isinstance(command, HELD):
        del body["holder"]
    return {"body": body, "now": now, "events": events}


def _tagged(base: type) -> list[type]:
    """Every subclass of ``base`` with a tag: the table's and the disputes' commands."""
    found: list[type] = []
    subclasses: list[type] = base.__subclasses__()
    for sub in subclasses:
        config: Any = sub.__struct_config__  # type: ignore[attr-defined]
        if isinstance(config.tag, str):
            found.append(sub)
        found.extend(_tagged(sub))
    return found


@cache
def _decoder() -> msgspec.json.Decoder[Any]:
    types = _tagged(TableCommand)
    union: Any = types[0]
    for more in types[1:]:
        union = union | more
    return msgspec.json.Decoder(union)


def decode(kind: str, body: str | bytes) -> TableCommand:
    """A recorded command's JSON body back as the ``TableCommand`` it was (raises
    ``msgspec.ValidationError`` for a body that is no command of ``kind``)."""
    command: TableCommand = _decoder().decode(body)
    if isinstance(command, Play):
        game = registry.of(kind).commands.convert(command.command)
        command = msgspec.structs.replace(command, command=game)
    return command
