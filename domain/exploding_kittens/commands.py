"""What a seat (or the server) may ask of an Exploding Kittens game."""

from __future__ import annotations

from collections.abc import Mapping

from domain.decider import ActOnTimeout, Command, Concede
from domain.exploding_kittens.cards import Card


class DrawCard(Command, frozen=True, kw_only=True):
    """End one owed turn by drawing the top card of the draw pile (active seat)."""


class PlayCard(Command, frozen=True, kw_only=True):
    """Play one action card (Attack, Skip, Favor, Shuffle, See the Future); Favor needs a ``target``."""

    card: Card
    target: int | None = None


class PlayCombo(Command, frozen=True, kw_only=True):
    """Play a pair or triple of one title (with ``target``; a triple also ``named``), or five different."""

    cards: tuple[Card, ...]
    target: int | None = None
    named: Card | None = None


class Nope(Command, frozen=True, kw_only=True):
    """Nope the top of the open chain; ``chain_length`` is the number of Nopes already in it."""

    chain_length: int


class PassReaction(Command, frozen=True, kw_only=True):
    """Let the open reaction window close as far as this seat is concerned."""


class Defuse(Command, frozen=True, kw_only=True):
    """Put the drawn Kitten back at ``position`` (0 = top .. len(draw pile) = bottom)."""

    position: int


class GiveCard(Command, frozen=True, kw_only=True):
    """Answer a Favor: the card this seat gives."""

    card: Card


class TakeFromDiscard(Command, frozen=True, kw_only=True):
    """Answer a resolved five-different combo: the card taken from the discard pile."""

    card: Card


class ResolveReactions(Command, frozen=True, kw_only=True):
    """Close the open reaction window once its deadline has passed (sent by the server)."""


ExplodingKittensCommand = (
    DrawCard
    | PlayCard
    | PlayCombo
    | Nope
    | PassReaction
    | Defuse
    | GiveCard
    | TakeFromDiscard
    | ResolveReactions
    | ActOnTimeout  # the kernel's (domain/decider.py): the neutral choice for a seat that timed out
    | Concede  # the kernel's: any living seat, any time
)

COMMAND_TYPES: tuple[type[Command], ...] = (
    DrawCard,
    PlayCard,
    PlayCombo,
    Nope,
    PassReaction,
    Defuse,
    GiveCard,
    TakeFromDiscard,
    ResolveReactions,
    ActOnTimeout,
    Concede,
)

# The tags this game's commands were once sent under -> today's (domain/decider.py): a client's
# body or a recorded command under an old tag is read as today's command.
RENAMED_COMMANDS: Mapping[str, str] = {"Leave": "Concede"}
