"""Exploding Kittens, "normal": the rules of thumb a careful player follows, from the seat's view.

What the seat knows: its hand, the top cards it saw with See the Future, where it put its last
Kitten back, and the public table (hand sizes, the draw pile's size, the discard pile, the open
reaction window, who must decide what). The draw pile always holds one Kitten fewer than the
players still in, so the chance that the next card explodes is that over the pile's size.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

Move = dict[str, Any]

KITTEN = "Exploding Kitten"
# The order in which a card is given away (a Favor) or kept (a pick from the discard), cheapest first.
WORTH = (
    "Tacocat",
    "Cattermelon",
    "Hairy Potato Cat",
    "Beard Cat",
    "Rainbow-Ralphing Cat",
    "Shuffle",
    "See the Future",
    "Favor",
    "Skip",
    "Attack",
    "Nope",
    "Defuse",
)
AVOID_DRAW = ("Skip", "Attack", "Shuffle")  # cards that end or change a turn without drawing
RISKY = 0.15  # above this chance of exploding, a seat without a Defuse avoids drawing blind


def worth(card: str) -> int:
    return WORTH.index(card) if card in WORTH else 0


def _of(moves: Sequence[Move], kind: str) -> list[Move]:
    return [m for m in moves if m["type"] == kind]


def _card(moves: Sequence[Move], card: str) -> Move | None:
    return next((m for m in _of(moves, "PlayCard") if m.get("card") == card), None)


def _richest(public: Mapping[str, Any], candidates: Sequence[Move]) -> Move:
    """The move aimed at the opponent with the most cards (a steal is likelier to find a Defuse)."""
    return max(candidates, key=lambda m: public["hand_sizes"][m.get("target") or 0])


def _next_alive(public: Mapping[str, Any], seat: int) -> int:
    alive = public["alive"]
    for step in range(1, len(alive) + 1):
        candidate = (seat + step) % len(alive)
        if alive[candidate]:
            return candidate
    return seat


def react(view: Mapping[str, Any], moves: Sequence[Move]) -> Move:
    """A reaction window: Nope what hurts this seat, let the rest happen."""
    me, public = view["seat"], view["public"]
    window = public["window"]
    nopes = _of(moves, "Nope")
    passing = _of(moves, "PassReaction")
    if nopes and window is not None:
        mine = window["actor"] == me
        noped = window["chain_length"] % 2 == 1  # an odd chain cancels the action
        aimed_at_me = window.get("target") == me or (
            "Attack" in window["cards"] and _next_alive(public, window["actor"]) == me
        )
        if (mine and noped) or (not mine and not noped and aimed_at_me):
            return nopes[0]
    return passing[0] if passing else nopes[0]


def place_kitten(view: Mapping[str, Any], moves: Sequence[Move]) -> Move:
    """Put the Kitten on top for the next player, unless this seat must draw again itself."""
    public = view["public"]
    defuses = sorted(_of(moves, "Defuse"), key=lambda m: m["position"])
    draws_again = public["under_attack"] and public["turns_owed"] > 1
    return defuses[-1] if draws_again else defuses[0]


def give(view: Mapping[str, Any], moves: Sequence[Move]) -> Move:
    return min(_of(moves, "GiveCard"), key=lambda m: worth(m["card"]))


def take(view: Mapping[str, Any], moves: Sequence[Move]) -> Move:
    return max(_of(moves, "TakeFromDiscard"), key=lambda m: worth(m["card"]))


def turn(view: Mapping[str, Any], moves: Sequence[Move], rng: random.Random) -> Move:
    """The seat's own turn: draw when it is safe enough, otherwise look, steal or avoid the draw."""
    public, hand = view["public"], list(view["hand"])
    draw = _of(moves, "DrawCard")[0]
    future = list(view["seen_future"])
    kittens = max(sum(public["alive"]) - 1, 0)
    pile = max(public["draw_pile_size"], 1)
    danger = 1.0 if future[:1] == [KITTEN] else 0.0 if future else kittens / pile
    has_defuse = "Defuse" in hand
    if danger >= 1.0:
        for card in AVOID_DRAW:
            if move := _card(moves, card):
                return move
        return draw
    if danger == 0.0:
        return draw
    if not future and danger > RISKY / 2 and (look := _card(moves, "See the Future")):
        return look
    if not has_defuse:
        steals = [
            m
            for m in moves
            if m["type"] == "PlayCombo" or (m["type"] == "PlayCard" and m.get("card") == "Favor")
        ]
        if steals:
            return _richest(public, steals)
        if danger > RISKY:
            for card in ("Skip", "Attack"):
                if move := _card(moves, card):
                    return move
    pairs = [m for m in _of(moves, "PlayCombo") if all(worth(c) < worth("Shuffle") for c in m["cards"])]
    if pairs:  # cat cards are worth nothing but a steal
        return _richest(public, pairs)
    return draw


def normal(view: Mapping[str, Any], moves: Sequence[Move], rng: random.Random) -> Move:
    kinds = {m["type"] for m in moves}
    if kinds & {"Nope", "PassReaction"}:
        return react(view, moves)
    if "Defuse" in kinds:
        return place_kitten(view, moves)
    if "GiveCard" in kinds:
        return give(view, moves)
    if "TakeFromDiscard" in kinds:
        return take(view, moves)
    if "DrawCard" in kinds:
        return turn(view, moves, rng)
    return rng.choice(list(moves))
