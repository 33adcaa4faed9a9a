"""Game kind -> its ``Kind``, built once at import: the one module that names the games.

It is the composition root of the rules, above the kernel (domain/decider.py), the table and the
disputes: each game's decider composed with the table and, beside it, the disputes
(``seated(game, DISPUTES)``), with everything fixed per kind that the readers and the service
would otherwise look up again: the readers of its commands (their old tags too) and events, every
event class's tag and the schema version it is written with today, the versions and upcasters of every event
type its log holds (the lobby's and the disputes' too), and the command tags of the other games.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import msgspec

from domain import refusals
from domain.a_risk_cat import DECIDER as A_RISK_CAT
from domain.command_reader import Commands
from domain.decider import Decider, Upcaster
from domain.disputes import commands as dispute_commands
from domain.disputes import events as dispute_events
from domain.disputes.decider import DISPUTES
from domain.disputes.events import DisputeEvents
from domain.errors import RuleViolation
from domain.exploding_kittens import DECIDER as EXPLODING_KITTENS
from domain.personal import Fields
from domain.table import commands as table_commands
from domain.table import events as lobby
from domain.table.decider import SeatedDecider, seated

# The events every log holds whatever its game: the lobby's and the disputes' (at schema
# version 1 so far; their upcasters, when one is needed, go next to the lobby's).
LOBBY_DECODER = msgspec.json.Decoder(lobby.LobbyEvents)
DISPUTE_DECODER = msgspec.json.Decoder(DisputeEvents)
_SHARED_EVENTS = (*get_args(lobby.LobbyEvents), *get_args(DisputeEvents))
# Every personal field of every log (domain/personal.py): the lobby's and the disputes' (no
# game's own event or command carries a person's words).
PERSONAL_EVENTS: Fields = {**lobby.PERSONAL_FIELDS, **dispute_events.PERSONAL_FIELDS}
PERSONAL_COMMANDS: Fields = {**table_commands.PERSONAL_FIELDS, **dispute_commands.PERSONAL_FIELDS}


def tag_of(struct: type) -> str:
    tag = struct.__struct_config__.tag  # type: ignore[attr-defined]
    assert isinstance(tag, str)
    return tag


@dataclass(frozen=True)
class Kind:
    """One game kind, as everything that serves it needs it; built once (``KINDS``)."""

    game: Decider
    table: SeatedDecider  # the game at its table, the disputes beside it: what decides and folds
    commands: Commands  # the game's commands, as a client's body and a recorded command are read
    events: msgspec.json.Decoder[Any]  # the game's event union, as a stored body is read
    # Every event class of the game's log -> (its tag, the schema version it is written with).
    tags: Mapping[type, tuple[str, int]]
    schema_versions: Mapping[str, int]  # the game's event tags -> today's version (absent: 1)
    upcasters: Mapping[tuple[str, int], Upcaster]  # the game's (domain/decider.py)
    foreign_commands: frozenset[str]  # the other games' command tags (old ones too) this game does not share

    @property
    def kind(self) -> str:
        return self.game.kind


def _command_tags(game: Decider) -> frozenset[str]:
    """The tags the game reads: today's and those it once sent its commands under."""
    return frozenset(tag_of(member) for member in get_args(game.types.command)) | set(
        game.versions.renamed_commands
    )


def _kind(game: Decider, every: tuple[Decider, ...]) -> Kind:
    tags = {}
    for struct in _SHARED_EVENTS:
        tags[struct] = (tag_of(struct), lobby.SCHEMA_VERSIONS.get(tag_of(struct), 1))
    for struct in get_args(game.types.event):
        tags[struct] = (tag_of(struct), game.versions.schemas.get(tag_of(struct), 1))
    ours = _command_tags(game)
    others = frozenset().union(*(_command_tags(g) for g in every if g is not game))
    return Kind(
        game=game,
        table=seated(game, DISPUTES),
        commands=game.commands,
        events=msgspec.json.Decoder(game.types.event),
        tags=tags,
        schema_versions=dict(game.versions.schemas),
        upcasters=dict(game.versions.upcasters),
        foreign_commands=others - ours,
    )


# The list of games: one line per game.
GAMES: tuple[Decider, ...] = (
    EXPLODING_KITTENS,
    A_RISK_CAT,
)
KINDS: dict[str, Kind] = {}
_DECIDERS: dict[str, Decider] = {}


def _build(games: tuple[Decider, ...]) -> None:
    kinds = {game.kind: _kind(game, games) for game in games}
    KINDS.clear()
    KINDS.update(kinds)
    _DECIDERS.clear()
    _DECIDERS.update((kind, k.game) for kind, k in kinds.items())


_build(GAMES)


@contextmanager
def serving(*more: Decider) -> Iterator[None]:
    """``GAMES`` and ``more`` registered while inside (a game outside domain/, such as the
    tests' own: tests/games/); build the app inside, so that it sees them."""
    _build((*GAMES, *more))
    try:
        yield
    finally:
        _build(GAMES)


def of(kind: str) -> Kind:
    """The registered ``kind`` (raises ``unknown_game_kind``)."""
    found = KINDS.get(kind)
    if found is None:
        known = ", ".join(sorted(KINDS))
        raise RuleViolation(refusals.UNKNOWN_GAME_KIND, f"Unknown game kind {kind!r}; known: {known}.")
    return found


def games() -> Mapping[str, Decider]:
    """Every registered game's own decider, by kind."""
    return _DECIDERS


def package(kind: str) -> str:
    """The registered game's folder, as a package: the one its ``decide`` lives in (``domain.<game>``;
    ``tests.games.<game>`` for the tests' own). Its rules document (``rules.md``), its page
    (``page/``) and its test declarations (``tests/``) are found there (service/tools/eventdocs.py,
    pages/, tests/declared.py)."""
    return get(kind).decide.__module__.rpartition(".")[0]


def folder(kind: str) -> Path:
    """The registered game's folder, as a directory (its package's)."""
    module = importlib.import_module(package(kind))
    assert module.__file__ is not None
    return Path(module.__file__).parent


def get(kind: str) -> Decider:
    return of(kind).game


def for_kind(kind: str) -> SeatedDecider:
    """The composed decider of a registered kind (raises ``unknown_game_kind``)."""
    return of(kind).table
