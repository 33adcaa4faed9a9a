"""The 56 cards of the Original Edition, by title."""

from __future__ import annotations

import enum


class Card(enum.StrEnum):
    """A card title; cards of one title are interchangeable."""

    EXPLODING_KITTEN = "Exploding Kitten"
    DEFUSE = "Defuse"
    ATTACK = "Attack"
    SKIP = "Skip"
    FAVOR = "Favor"
    SHUFFLE = "Shuffle"
    SEE_THE_FUTURE = "See the Future"
    NOPE = "Nope"
    TACOCAT = "Tacocat"
    CATTERMELON = "Cattermelon"
    HAIRY_POTATO_CAT = "Hairy Potato Cat"
    BEARD_CAT = "Beard Cat"
    RAINBOW_RALPHING_CAT = "Rainbow-Ralphing Cat"


ALL_TITLES: tuple[Card, ...] = tuple(Card)

CAT_KINDS: frozenset[Card] = frozenset(
    {Card.TACOCAT, Card.CATTERMELON, Card.HAIRY_POTATO_CAT, Card.BEARD_CAT, Card.RAINBOW_RALPHING_CAT}
)

#: Action cards played alone with ``PlayCard`` (Nope has its own command, Defuse answers a Kitten).
ACTION_CARDS: frozenset[Card] = frozenset(
    {Card.ATTACK, Card.SKIP, Card.FAVOR, Card.SHUFFLE, Card.SEE_THE_FUTURE}
)

#: Titles a triple may name (any title but Exploding Kitten), in a stable order.
NAMEABLE_TITLES: tuple[Card, ...] = tuple(c for c in Card if c is not Card.EXPLODING_KITTEN)

COUNTS: dict[Card, int] = {
    Card.EXPLODING_KITTEN: 4,
    Card.DEFUSE: 6,
    Card.ATTACK: 4,
    Card.SKIP: 4,
    Card.FAVOR: 4,
    Card.SHUFFLE: 4,
    Card.SEE_THE_FUTURE: 5,
    Card.NOPE: 5,
    **{cat: 4 for cat in CAT_KINDS},
}

DECK_SIZE = 56
HAND_DEAL = 7
SEE_THE_FUTURE_COUNT = 3


def dealable_cards() -> list[Card]:
    """The 46 cards shuffled and dealt at setup (everything but Kittens and Defuses), in title order."""
    return [
        card
        for card in ALL_TITLES
        if card not in (Card.EXPLODING_KITTEN, Card.DEFUSE)
        for _ in range(COUNTS[card])
    ]


def defuses_back(edition: str, players: int) -> int:
    """Spare Defuses put back into the deck after the deal (RULES 1.2)."""
    if edition == "classic":
        return 2 if players == 2 else 6 - players
    return 1 if players == 5 else 2
