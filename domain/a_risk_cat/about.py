"""What tools say of A Risk Cat (domain/decider.About)."""

from __future__ import annotations

from domain.decider import About

ABOUT = About(
    title="A Risk Cat",
    option_samples=[{"players": p, "mode": m} for p in (3, 5, 8) for m in ("base", "full")],
    # Every RuleViolation code of the rules (tests/unit/test_refusal_codes.py reads them off the
    # sources); invalid_viewer refuses a view, invalid_clock and invalid_context a server fault.
    refusal_codes=frozenset(
        {
            "already_conceded",
            "angel_protected",
            "bag_empty",
            "deadline_not_reached",
            "duplicate_seat",
            "game_already_started",
            "game_not_started",
            "game_over",
            "invalid_clock",
            "invalid_command",
            "invalid_context",
            "invalid_order",
            "invalid_target",
            "invalid_viewer",
            "must_draw_first",
            "no_cats_to_take",
            "no_deadline",
            "no_pending_decision",
            "not_a_player",
            "not_your_turn",
            "server_only",
            "stack_not_stealable",
            "stack_not_swappable",
            "unknown_command",
        }
    ),
)
