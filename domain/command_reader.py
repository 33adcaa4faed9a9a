"""A game's commands read from JSON: a client's body or a recorded command alike.

Each game's ``Decider`` carries its reader (``Decider.commands``), so whoever holds a table (whose
game is its ``decider``) reads a command of its game without looking its kind up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec


@dataclass(frozen=True)
class Commands:
    """A game's commands read from JSON, a client's body or a recorded command alike: by the
    game's union, a tag the game once sent a command under (``Decider.versions.renamed_commands``) read
    as today's. Only a body its decoder refuses is looked at again: today's tags cost nothing."""

    union: Any  # the game's tagged union of command Structs
    decoder: msgspec.json.Decoder[Any]
    renamed: Mapping[str, str]  # an old tag -> today's

    def decode(self, body: bytes | str) -> Any:
        """A command's JSON text as the game's command (raises ``msgspec.DecodeError``)."""
        try:
            return self.decoder.decode(body)
        except msgspec.ValidationError:
            value = msgspec.json.decode(body)
            today = self.today(value)
            if today is value:
                raise
            return self.decoder.decode(msgspec.json.encode(today))

    def convert(self, value: Any) -> Any:
        """A command's JSON value (objects as dicts) as the game's command."""
        return msgspec.convert(self.today(value), self.union)

    def today(self, value: Any) -> Any:
        """``value`` under today's tag when it names its command by an old one; else ``value``."""
        tag = value.get("type") if isinstance(value, dict) else None
        if isinstance(tag, str) and tag in self.renamed:
            return {**value, "type": self.renamed[tag]}
        return value
