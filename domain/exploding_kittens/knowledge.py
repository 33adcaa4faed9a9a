"""What each seat knows of the draw pile, kept true as the pile changes (RULES 1.9).

A seat's knowledge is its ``seen_future`` (the known cards from the current top, top first) and
its ``placed_kitten`` (where the Kitten it last put back is now, from the top). Each draw moves
every known card one place up (a drawn known card leaves the knowledge); a Shuffle voids all of
it; a Kitten put back by another seat at a secret position voids it; the seat that put it back
knows where and keeps an exact picture; a Kitten leaving the pile with a conceding seat (the
bottom-most one) closes its gap. A view therefore never shows a position that is no longer true.
"""

from __future__ import annotations

from domain.exploding_kittens.cards import Card

Seen = tuple[tuple[Card, ...], ...]
Placed = tuple[int | None, ...]


def after_draw(seen: Seen, placed: Placed) -> tuple[Seen, Placed]:
    """The top card left the pile."""
    if not any(seen) and placed.count(None) == len(placed):
        return seen, placed  # nobody knows anything: the common case, kept cheap
    return (
        tuple(known[1:] for known in seen),
        tuple(None if p is None or p == 0 else p - 1 for p in placed),
    )


def voided(seen: Seen, placed: Placed) -> tuple[Seen, Placed]:
    """The pile was shuffled: nobody knows anything of it any more."""
    return ((),) * len(seen), (None,) * len(placed)


def after_defuse(seen: Seen, placed: Placed, seat: int, position: int) -> tuple[Seen, Placed]:
    """``seat`` put a Kitten back at ``position``: it knows exactly where; every other seat's
    knowledge below the top may have moved, so it is void."""
    known = seen[seat]
    if position <= len(known):
        known = (*known[:position], Card.EXPLODING_KITTEN, *known[position:])
    new_seen = tuple(known if s == seat else () for s in range(len(seen)))
    new_placed = tuple(position if s == seat else None for s in range(len(placed)))
    return new_seen, new_placed


def after_removal(seen: Seen, placed: Placed, index: int) -> tuple[Seen, Placed]:
    """The card at ``index`` (from the top) left the pile: the cards below it move up one."""
    return (
        tuple((*known[:index], *known[index + 1 :]) for known in seen),
        tuple(None if p == index else p - 1 if p is not None and p > index else p for p in placed),
    )
