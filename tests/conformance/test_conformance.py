"""Every game passes the conformance kit (tests/conformance/kit.py; docs/game-authors.md):
random games played through its decider, every check at every step."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conformance.codes import declared_codes_are_raised_codes
from tests.conformance.games import KITS
from tests.conformance.kit import GameKit, play

# A few random games a game per run: the kit runs in the unit tier, under a minute in all.
EXAMPLES = 15


@pytest.mark.parametrize("kit", KITS, ids=lambda kit: kit.id)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_secrets_replay_draw_fairly_conserve_and_offer_what_is_accepted(
    kit: GameKit, data: st.DataObject, seed: int
) -> None:
    raw: Any = data.draw(kit.options, label="options")
    for _ in play(kit, raw, seed):
        pass


@pytest.mark.parametrize("kit", KITS, ids=lambda kit: kit.id)
def test_the_declared_refusal_codes_are_exactly_those_the_rules_raise(kit: GameKit) -> None:
    declared_codes_are_raised_codes(kit.decider)
