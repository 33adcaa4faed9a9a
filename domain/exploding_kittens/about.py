"""What tools say of Exploding Kittens (domain/decider.About)."""

from __future__ import annotations

from domain.decider import About

ABOUT = About(
    title="Exploding Kittens",
    rules_page="rules/exploding-kittens.md",
    option_samples=[
        {"players": p, "edition": e, "special_combos": c, "reaction_window": w}
        for p in (2, 3, 5)
        for e in ("2022", "classic")
        for c in (True, False)
        for w in (0, 5)  # with a window, Nopes and passes happen
    ],
    quick_options={"reaction_window": 0},  # no Nope window to wait out
    race_codes=frozenset({"window_closed", "stale_nope", "no_pending_decision"}),
)
