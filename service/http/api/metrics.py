"""``GET /metrics``: Prometheus' text exposition format, documented as the text it is."""

from __future__ import annotations

import os

from litestar import Controller, MediaType, Response
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess

from service.http.api.problems import problems
from service.http.fast.routes import get

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class MetricsController(Controller):
    path = "/metrics"
    tags = ["operations"]

    @get(
        operation_id="metrics",
        summary="Prometheus metrics (text exposition format)",
        media_type=MediaType.TEXT,
        responses=problems({503: ["too_many_connections"]}),
    )
    async def metrics(self) -> Response[str]:
        registry = REGISTRY
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):  # several worker processes
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        text = generate_latest(registry).decode()
        return Response(text, media_type=CONTENT_TYPE)
