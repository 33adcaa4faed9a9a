"""What tools say of A Risk Cat (domain/decider.About)."""

from __future__ import annotations

from domain.decider import About

ABOUT = About(
    title="A Risk Cat",
    rules_page="rules/a-risk-cat.md",
    option_samples=[{"players": p, "mode": m} for p in (3, 5, 8) for m in ("base", "full")],
)
