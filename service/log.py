"""structlog, configured once: JSON lines in production, readable lines on a terminal.

Request id, game id and seat (``service.request_context``) are merged into every line.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from datetime import UTC, datetime
from typing import Any

import msgspec
import structlog

from service.request_context import merge_request_context

_configured = False
# msgspec renders a line several times faster than the json module (a line per command is hot);
# what it cannot encode is written as its repr, as structlog's default renderer does.
_line_encoder = msgspec.json.Encoder(enc_hook=repr)


def _json_line(event: object, **_: object) -> bytes:
    return _line_encoder.encode(event)


class _Stderr:
    """The process's stderr as it is when a line is written, not when logging was configured:
    pytest replaces stderr for a test and closes it after, and an app built later would otherwise
    write to the closed one (every line then a 500)."""

    @staticmethod
    def write(line: bytes) -> None:
        stream = sys.stderr
        binary = getattr(stream, "buffer", None)  # absent when stderr was replaced by a text-only stream
        if binary is None:
            stream.write(line.decode())
        else:
            binary.write(line)

    @staticmethod
    def flush() -> None:
        sys.stderr.flush()


_LEVEL_NAMES = {"warn": "warning", "exception": "error"}  # as structlog's add_log_level names them


def _fields(logger: Any, method: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """The request's fields, the level and the UTC time of a line, in one processor: what
    structlog's add_log_level, TimeStamper(fmt="iso", utc=True) and format_exc_info add, at a
    third of the calls (a line per command is hot)."""
    event = merge_request_context(logger, method, event)
    event["level"] = _LEVEL_NAMES.get(method, method)
    event["timestamp"] = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    if "exc_info" in event:
        return structlog.processors.format_exc_info(logger, method, event)
    return event


def configure(fmt: str = "auto", level: int = logging.INFO) -> None:
    global _configured
    if _configured:
        return
    _configured = True
    console = fmt == "console" or (fmt == "auto" and sys.stderr.isatty())
    renderer: structlog.typing.Processor
    factory: structlog.WriteLoggerFactory | structlog.BytesLoggerFactory
    if console:
        renderer, factory = structlog.dev.ConsoleRenderer(), structlog.WriteLoggerFactory(file=sys.stderr)
    else:
        renderer = structlog.processors.JSONRenderer(serializer=_json_line)
        factory = structlog.BytesLoggerFactory(file=_Stderr())  # type: ignore[arg-type]
    structlog.configure(
        processors=[_fields, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        # One write per line (PrintLogger writes the newline apart), so the lines of several
        # worker processes sharing stderr never run into each other.
        logger_factory=factory,
        cache_logger_on_first_use=True,
    )


def get_logger(name: str) -> structlog.typing.FilteringBoundLogger:
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger(name)
    return logger
