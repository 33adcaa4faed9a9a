"""The clock's questions to A Risk Cat (domain/decider.py's ``Clock``, issue 52): whose answer a
deadline waits for (the table counts that seat's timeouts in a row), and the per-move limit a
public game gets unless its host names one."""

from __future__ import annotations

from domain.a_risk_cat import DECIDER
from domain.a_risk_cat.commands import DrawToken

from .builders import given, make_state

waiting_for = DECIDER.clock.waiting_for


def test_clock__a_turn_not_begun_waits_for_the_active_seat() -> None:
    assert waiting_for(make_state(bag=["p5-1"], active=2, timeout=30)) == 2


def test_clock__a_drawn_token_waits_for_the_same_seat_to_draw_again_or_stop() -> None:
    state, _ = given(make_state(bag=["p5-1", "p6-1"], active=1, timeout=30)).when(DrawToken(), 1, now=100.0)
    assert waiting_for(state) == 1


def test_clock__a_game_not_running_waits_for_nobody() -> None:
    assert waiting_for(DECIDER.initial_state(DECIDER.parse_options({"players": 3}))) is None


def test_clock__a_public_game_gets_a_minute_a_move_unless_its_host_names_a_limit() -> None:
    assert DECIDER.clock.public_defaults == {"decision_timeout": 60.0}
    assert DECIDER.parse_options({"players": 3, **DECIDER.clock.public_defaults}).decision_timeout == 60.0
