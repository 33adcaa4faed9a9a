"""Prometheus metrics of our own, next to the request metrics of Litestar's plugin."""

from __future__ import annotations

from typing import Any

from litestar.plugins.prometheus import PrometheusConfig, PrometheusMiddleware
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR
from litestar.types import Receive, Scope, Send
from prometheus_client import Counter, Histogram

COMMANDS = Counter(
    "playlog_commands_total", "Game commands handled, by game kind and outcome", ["kind", "outcome"]
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


class RequestMetrics(PrometheusMiddleware):
    """Litestar's request metrics (same names, labels and values) at a fraction of the cost, for
    the edge layer (service/http/fast/edge.py) to record; Litestar's middleware serves only as their registry.

    The plugin's middleware builds a ``Request``, a label dict and four labelled children (each
    a locked dict look-up) on every request; here the labels come from the scope and each
    label set's children are looked up once and kept.
    """

    def __init__(self, config: PrometheusConfig) -> None:
        super().__init__(_unused, config)
        self._in_progress: dict[tuple[str, str], Any] = {}
        self._done: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    def _labels(self, method: str, path: str, status: int) -> dict[str, str | int | float]:
        return {"method": method, "path": path, "status_code": status, "app_name": self._config.app_name}

    def started(self, method: str, path: str) -> Any:
        """Count a request in progress; the gauge returned is decremented by ``finished``."""
        key = (method, path)
        gauge = self._in_progress.get(key)
        if gauge is None:
            labels = self._labels(method, path, 200)
            gauge = self._in_progress[key] = self.requests_in_progress(labels).labels(*labels.values())
        gauge.inc()
        return gauge

    def finished(self, gauge: Any, method: str, path: str, status: int, duration: float) -> None:
        gauge.dec()
        done = self._done.get((method, path, status))
        if done is None:
            labels = self._labels(method, path, status)
            values = [*labels.values()]
            done = self._done[(method, path, status)] = (
                self.request_count(labels).labels(*values),
                self.request_time(labels).labels(*values),
            )
        if status >= HTTP_500_INTERNAL_SERVER_ERROR:
            labels = self._labels(method, path, status)
            self.requests_error_count(labels).labels(*labels.values()).inc()
        done[0].inc()
        done[1].observe(duration)


async def _unused(scope: Scope, receive: Receive, send: Send) -> None:
    raise AssertionError("RequestMetrics records; it is not called as middleware")
