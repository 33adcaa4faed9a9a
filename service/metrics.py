"""Prometheus metrics of our own, next to the request metrics of Litestar's plugin."""

from __future__ import annotations

from prometheus_client import Counter

COMMANDS = Counter(
    "playlog_commands_total", "Game commands handled, by game kind and outcome", ["kind", "outcome"]
)
DEADLINES = Counter("playlog_deadline_actions_total", "Commands the scheduler sent on a deadline")
