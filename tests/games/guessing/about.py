"""What tools say of the guessing game (domain/decider.About)."""

from __future__ import annotations

from domain.decider import About

ABOUT = About(
    title="Guessing (a test game)",
    option_samples=[{"players": p} for p in (2, 4)],
    quick_options={"rounds": 6},
    # Every RuleViolation code the rules raise, listed by hand: the conformance kit checks the
    # list against the sources (tests/conformance/codes.py).
    refusal_codes=frozenset(
        {
            "already_marked",
            "deadline_not_reached",
            "game_already_started",
            "game_not_started",
            "game_over",
            "invalid_target",
            "invalid_value",
            "no_deadline",
            "not_a_player",
            "not_your_turn",
            "seat_out",
            "server_only",
            "unknown_command",
        }
    ),
    race_codes=frozenset({"not_your_turn", "game_over"}),
)
