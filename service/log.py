"""structlog, configured once: JSON lines in production, readable lines on a terminal.

Request id, game id and seat (``service.request_context``) are merged into every line.
"""

from __future__ import annotations

import logging
import sys

import structlog

from service.request_context import merge_request_context

_configured = False


def configure(fmt: str = "auto", level: int = logging.INFO) -> None:
    global _configured
    if _configured:
        return
    _configured = True
    console = fmt == "console" or (fmt == "auto" and sys.stderr.isatty())
    renderer: structlog.typing.Processor = (
        structlog.dev.ConsoleRenderer() if console else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            merge_request_context,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        # One write per line (PrintLogger writes the newline apart), so the lines of several
        # worker processes sharing stderr never run into each other.
        logger_factory=structlog.WriteLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )


def get_logger(name: str) -> structlog.typing.FilteringBoundLogger:
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger(name)
    return logger
