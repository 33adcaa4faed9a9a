"""Facts of an Exploding Kittens game, in the past tense.

Every event holds the full truth (the log stores it once); ``views.redact`` decides what each
viewer sees of it. Fields that are private or hidden are noted on each event.
"""

from __future__ import annotations

from typing import Literal

from domain.decider import Event
from domain.exploding_kittens.cards import Card

ClosedBy = Literal["passes", "deadline", "at_once", "leave"]


class DeckDealt(Event, frozen=True, kw_only=True):
    """Setup (RULES 1.3). ``hands``: each seat sees its own; ``draw_pile`` (top first), ``salt``: hidden."""

    players: int
    first_seat: int
    hands: tuple[tuple[Card, ...], ...]
    hand_sizes: tuple[int, ...]
    draw_pile: tuple[Card, ...]
    draw_pile_size: int
    out_of_game: tuple[Card, ...]
    commitment: str
    salt: str | None
    turn_deadline: float | None = None


class CardPlayed(Event, frozen=True, kw_only=True):
    """An action card was played (public); its reaction window is open until ``deadline``."""

    seat: int
    card: Card
    target: int | None = None
    deadline: float


class ComboPlayed(Event, frozen=True, kw_only=True):
    """A combo was played (public); its reaction window is open until ``deadline``."""

    seat: int
    cards: tuple[Card, ...]
    target: int | None = None
    named: Card | None = None
    deadline: float


class NopePlayed(Event, frozen=True, kw_only=True):
    """A Nope joined the chain (public), which now holds ``chain_length`` Nopes; window restarted."""

    seat: int
    chain_length: int
    deadline: float


class ReactionPassed(Event, frozen=True, kw_only=True):
    """A seat passed in the open window. Seen only by that seat (passes are not broadcast)."""

    seat: int


class ReactionsResolved(Event, frozen=True, kw_only=True):
    """The window closed; the action takes effect unless ``noped`` (odd number of Nopes)."""

    noped: bool
    closed_by: ClosedBy
    turn_deadline: float | None = None


class OwedTurnStarted(Event, frozen=True, kw_only=True):
    """``seat`` is now the active seat, owing ``turns_owed`` turns (public)."""

    seat: int
    turns_owed: int
    under_attack: bool
    deadline: float | None = None


class CardDrawn(Event, frozen=True, kw_only=True):
    """A seat drew a card that is not a Kitten. ``card``: seen by the drawer only."""

    seat: int
    card: Card | None
    by_server: bool = False


class KittenDrawn(Event, frozen=True, kw_only=True):
    """A seat drew an Exploding Kitten (public reveal); with a Defuse it must now place it.

    ``defusable``: whether the seat held a Defuse, so a placement is now pending (decided by
    ``decide``, public: without one the seat explodes at once). None only in events stored
    before the field existed; ``evolve`` then reads the hand, as it did when they were written.
    """

    seat: int
    by_server: bool = False
    deadline: float | None = None
    defusable: bool | None = None


class KittenDefused(Event, frozen=True, kw_only=True):
    """A Defuse was spent and the Kitten put back. ``position``: defuser only; ``salt``: hidden."""

    seat: int
    position: int | None
    commitment: str
    salt: str | None
    by_server: bool = False


class PlayerExploded(Event, frozen=True, kw_only=True):
    """A seat without a Defuse exploded: its hand goes face up to the discard; the Kitten leaves."""

    seat: int
    discarded: tuple[Card, ...]


class FavorAsked(Event, frozen=True, kw_only=True):
    """A resolved Favor: ``giver`` must now choose a card for ``receiver`` (public)."""

    giver: int
    receiver: int
    deadline: float | None = None


class FavorGiven(Event, frozen=True, kw_only=True):
    """A card changed hands by Favor. ``card``: giver and receiver only."""

    giver: int
    receiver: int
    card: Card | None
    by_server: bool = False
    turn_deadline: float | None = None


class CardStolen(Event, frozen=True, kw_only=True):
    """A resolved pair took a random card (server RNG). ``card``: thief and victim only."""

    thief: int
    victim: int
    card: Card | None


class NamedCardRequested(Event, frozen=True, kw_only=True):
    """A resolved triple named ``named``; ``given`` says whether the target had one (public)."""

    seat: int
    target: int
    named: Card
    given: bool


class DiscardPickAsked(Event, frozen=True, kw_only=True):
    """A resolved five-different combo: ``seat`` must now pick a card from the discard pile."""

    seat: int
    deadline: float | None = None


class CardTakenFromDiscard(Event, frozen=True, kw_only=True):
    """A card was taken from the (public) discard pile."""

    seat: int
    card: Card
    by_server: bool = False
    turn_deadline: float | None = None


class FutureSeen(Event, frozen=True, kw_only=True):
    """A seat saw the top cards. ``cards`` (top first): that seat only."""

    seat: int
    cards: tuple[Card, ...]


class DeckShuffled(Event, frozen=True, kw_only=True):
    """The draw pile was shuffled. ``order`` (top first) and ``salt``: hidden."""

    seat: int
    order: tuple[Card, ...]
    commitment: str
    salt: str | None


class ActionHadNoEffect(Event, frozen=True, kw_only=True):
    """A resolved action found nothing to act on (its target left or has no cards)."""

    seat: int
    reason: str


KittenLeft = Literal["drawn", "pile", "none"]


class PlayerConceded(Event, frozen=True, kw_only=True):
    """A seat left: its hand goes face up to the discard pile and one Kitten leaves the game.

    ``kitten_left`` says which Kitten (decided by ``decide``, RULES 1.8): ``"drawn"`` the one the
    seat was placing, ``"pile"`` the one at ``kitten_position`` of the draw pile (top = 0; hidden
    from everyone but moderators), ``"none"`` when the pile held none. Both are None only in
    events stored before the fields existed; ``evolve`` then works the choice out from the state,
    as it did when they were written.
    """

    seat: int
    discarded: tuple[Card, ...]
    turn_deadline: float | None = None
    kitten_left: KittenLeft | None = None
    kitten_position: int | None = None


class ExplodingKittensWon(Event, frozen=True, kw_only=True):
    """The last living seat, ``winner``, won (schema version 2: version 1 named it ``seat``)."""

    winner: int


ExplodingKittensEvent = (
    DeckDealt
    | CardPlayed
    | ComboPlayed
    | NopePlayed
    | ReactionPassed
    | ReactionsResolved
    | OwedTurnStarted
    | CardDrawn
    | KittenDrawn
    | KittenDefused
    | PlayerExploded
    | FavorAsked
    | FavorGiven
    | CardStolen
    | NamedCardRequested
    | DiscardPickAsked
    | CardTakenFromDiscard
    | FutureSeen
    | DeckShuffled
    | ActionHadNoEffect
    | PlayerConceded
    | ExplodingKittensWon
)
