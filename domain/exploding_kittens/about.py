"""What tools say of Exploding Kittens (domain/decider.About)."""

from __future__ import annotations

from domain.decider import About

ABOUT = About(
    title="Exploding Kittens",
    option_samples=[
        {"players": p, "edition": e, "special_combos": c, "reaction_window": w}
        for p in (2, 3, 5)
        for e in ("2022", "classic")
        for c in (True, False)
        for w in (0, 5)  # with a window, Nopes and passes happen
    ],
    quick_options={"reaction_window": 0},  # no Nope window to wait out
    # Every RuleViolation code of the rules (tests/unit/test_refusal_codes.py reads them off the
    # sources); draw_pile_empty is unreachable, kept as the guard it is.
    refusal_codes=frozenset(
        {
            "already_passed",
            "cannot_nope_own_card",
            "card_not_in_discard",
            "card_not_in_hand",
            "deadline_not_reached",
            "decision_pending",
            "draw_pile_empty",
            "game_already_started",
            "game_not_started",
            "game_over",
            "invalid_combo",
            "invalid_command",
            "invalid_named_card",
            "invalid_position",
            "invalid_target",
            "named_card_required",
            "no_deadline",
            "no_pending_decision",
            "not_a_player",
            "not_eligible",
            "not_playable",
            "not_your_decision",
            "not_your_turn",
            "player_eliminated",
            "server_only",
            "single_cat",
            "stale_nope",
            "target_has_no_cards",
            "target_not_alive",
            "target_required",
            "unknown_command",
            "window_closed",
            "window_open",
        }
    ),
    race_codes=frozenset({"window_closed", "stale_nope", "no_pending_decision"}),
)
