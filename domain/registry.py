"""Game kind -> decider. The only place that names the games."""

from __future__ import annotations

from functools import cache

from domain import refusals
from domain.decider import Decider
from domain.errors import RuleViolation


@cache
def games() -> dict[str, Decider]:
    # Imported lazily so that the kernel can be imported by the games themselves.
    from domain.a_risk_cat import DECIDER as A_RISK_CAT
    from domain.exploding_kittens import DECIDER as EXPLODING_KITTENS

    return {d.kind: d for d in (EXPLODING_KITTENS, A_RISK_CAT)}


def get(kind: str) -> Decider:
    try:
        return games()[kind]
    except KeyError:
        known = ", ".join(sorted(games()))
        raise RuleViolation(
            refusals.UNKNOWN_GAME_KIND, f"Unknown game kind {kind!r}; known: {known}."
        ) from None
