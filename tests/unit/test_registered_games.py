"""The registry names each game by its kind (domain/registry.py, above the games)."""

from __future__ import annotations

from domain.a_risk_cat import DECIDER
from domain.registry import get


def test_decider_is_registered_for_three_to_eight_players() -> None:
    assert get("a_risk_cat") is DECIDER
    assert (DECIDER.kind, DECIDER.seats.min, DECIDER.seats.max) == ("a_risk_cat", 3, 8)
