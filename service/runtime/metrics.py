"""The service's Prometheus metrics.

Those counted on every request are tallies (service/runtime/tallies.py): the requests, under the
names, labels and buckets of Litestar's Prometheus plugin (``litestar_requests_total`` and its
siblings, so that its dashboards read them), and the commands by kind and outcome. The rarer ones
are prometheus_client's own metrics.
"""

from __future__ import annotations

from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR
from prometheus_client import REGISTRY, Counter, Histogram

from service.runtime.tallies import CounterTally, GaugeTally, HistogramTally, Labels, Tallies

APP_NAME = "playlog"
_REQUEST_LABELS = ("method", "path", "status_code", "app_name")  # path: the route's template

COMMANDS = CounterTally(
    "playlog_commands_total", "Game commands handled, by game kind and outcome", ("kind", "outcome")
)
REQUESTS_IN_PROGRESS = GaugeTally(
    "litestar_requests_in_progress", "Total requests currently in progress", _REQUEST_LABELS
)
REQUESTS = CounterTally("litestar_requests_total", "Total requests", _REQUEST_LABELS)
REQUEST_ERRORS = CounterTally("litestar_requests_error_total", "Total errors in requests", _REQUEST_LABELS)
REQUEST_DURATION = HistogramTally(
    "litestar_request_duration_seconds",
    "Request duration, in seconds",
    _REQUEST_LABELS,
    Histogram.DEFAULT_BUCKETS,
)
DEADLINES = Counter("playlog_deadline_actions_total", "Commands the scheduler sent on a deadline")
ACKNOWLEDGED_MISSING = Counter(
    "playlog_acknowledged_missing_total",
    "Games found missing seqs from their log that had been acknowledged (each an incident)",
)

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
APPEND_BATCH_SIZE = Histogram(
    "playlog_append_batch_size",
    "Appends sent together in one call of playlog_append_batch (1 while the service is quiet)",
    buckets=(1, 2, 4, 8, 16, 32, 64),
)


def request_started(method: str, path: str) -> Labels:
    """Count a request in progress; ``request_finished`` takes the labels returned."""
    labels = (method, path, "200", APP_NAME)
    REQUESTS_IN_PROGRESS.add(labels, 1)
    return labels


def request_finished(in_progress: Labels, status: int, duration: float) -> None:
    REQUESTS_IN_PROGRESS.add(in_progress, -1)
    labels = (in_progress[0], in_progress[1], str(status), APP_NAME)
    if status >= HTTP_500_INTERNAL_SERVER_ERROR:
        REQUEST_ERRORS.inc(labels)
    REQUESTS.inc(labels)
    REQUEST_DURATION.observe(labels, duration)


REGISTRY.register(Tallies(COMMANDS, REQUESTS_IN_PROGRESS, REQUESTS, REQUEST_ERRORS, REQUEST_DURATION))
