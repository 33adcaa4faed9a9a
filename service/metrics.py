"""Prometheus metrics of our own, next to the request metrics of Litestar's plugin."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

COMMANDS = Counter(
    "playlog_commands_total", "Game commands handled, by game kind and outcome", ["kind", "outcome"]
)
DEADLINES = Counter("playlog_deadline_actions_total", "Commands the scheduler sent on a deadline")

DISPUTES_RAISED = Counter(
    "playlog_disputes_raised_total", "Disputes raised by seats, by category", ["category"]
)
DISPUTES_RESOLVED = Counter(
    "playlog_disputes_resolved_total", "Disputes ruled on, by category and verdict", ["category", "verdict"]
)
DISPUTE_RESOLUTION_SECONDS = Histogram(
    "playlog_dispute_resolution_seconds",
    "Time from a dispute's raise to its ruling",
    buckets=(60, 600, 3600, 4 * 3600, 86400, 3 * 86400, 7 * 86400, 30 * 86400),
)
