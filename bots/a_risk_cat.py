"""A Risk Cat, "normal": push one's luck only while a bust is unlikely, from the seat's view.

What the seat knows: the bag's size, each stack's size and top, this turn's tokens and the
paintings drawn this turn, the paintings taken out of the game. The tokens it cannot see (the bag
and the stacks below their tops) are taken as a fair mix of every token not in sight, so the
chance that the next draw busts is the share of that mix that matches a painting drawn this turn.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

Move = dict[str, Any]

PAINTINGS = range(1, 12)  # painting n has n tokens
STOP_AT = 0.3  # the chance of a bust past which the seat stops
TWINS = 8


def painting(token: str) -> int:
    return int(token[1:].split("-", 1)[0])


def unseen(view: Mapping[str, Any]) -> Counter[int]:
    """How many tokens of each painting the seat cannot see (in the bag or under a stack's top)."""
    removed = set(view["removed_paintings"])
    counts = Counter({p: p for p in PAINTINGS if p not in removed})
    in_sight = [s["top"] for s in view["stacks"] if s["top"]] + list(view["turn_tokens"])
    counts.subtract(painting(t) for t in in_sight)
    return +counts


def bust_chance(view: Mapping[str, Any]) -> float:
    if view.get("cheater_armed"):
        return 0.0  # the Cheater spares the next duplicate
    hidden = unseen(view)
    total, drawn = sum(hidden.values()), set(view["drawn_paintings"])
    if total == 0 or not view["bag_size"]:
        return 1.0
    fair_mix = sum(hidden[p] for p in drawn) / total
    # Near the bag's end the mix is least fair (a bust puts its duplicates back): count each
    # painting drawn this turn as at least one match still in the bag.
    bag: int = view["bag_size"]
    return max(fair_mix, len(drawn) / bag)


def stop_order(view: Mapping[str, Any], tokens: Sequence[str]) -> list[str]:
    """Bottom to top, the top the token others are least likely to match (the fewest unseen),
    Twins kept low (they score double, so they are worth hiding from a steal)."""
    hidden = unseen(view)
    return sorted(tokens, key=lambda t: (-hidden[painting(t)], painting(t) != TWINS))


def _stack(view: Mapping[str, Any], seat: int) -> Mapping[str, Any]:
    return next(s for s in view["stacks"] if s["seat"] == seat)


def normal(view: Mapping[str, Any], moves: Sequence[Move], rng: random.Random) -> Move:
    me = view["seat"]
    kinds = {m["type"] for m in moves}
    if "StealRuns" in kinds:  # every matching run: more tokens, and taken from the others
        return max((m for m in moves if m["type"] == "StealRuns"), key=lambda m: len(m["from_seats"]))
    if "TakeMusicianCats" in kinds:
        return next(m for m in moves if m["type"] == "TakeMusicianCats")
    if "KeepMusicianCat" in kinds:
        return next(m for m in moves if m["type"] == "KeepMusicianCat")
    if "ChooseRobinTellTarget" in kinds:
        return max(
            (m for m in moves if m["type"] == "ChooseRobinTellTarget"),
            key=lambda m: _stack(view, m["seat"])["size"],
        )
    if "DealRobinTellToken" in kinds:
        return next(m for m in moves if m["type"] == "DealRobinTellToken" and m["to_seat"] == me)
    if "TakeTokenForLadies" in kinds:
        return max(
            (m for m in moves if m["type"] == "TakeTokenForLadies"),
            key=lambda m: painting(_stack(view, m["from_seat"])["top"] or "p0-0"),
        )
    draw = next((m for m in moves if m["type"] == "DrawToken"), None)
    stops = [m for m in moves if m["type"] == "StopAndStack"]
    if draw is not None and (not stops or bust_chance(view) < STOP_AT):
        return draw
    if stops:
        return {"type": "StopAndStack", "order": stop_order(view, stops[0]["order"])}
    return rng.choice(list(moves))
