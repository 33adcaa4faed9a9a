"""structlog, configured once: JSON lines in production, readable lines on a terminal.

Request id, game id and seat (``service.runtime.request_context``) are merged into every line.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import sys
from collections.abc import MutableMapping
from datetime import UTC, datetime
from typing import Any

import msgspec
import structlog

from service.runtime.request_context import merge_request_context

_configured = False
# msgspec renders a line several times faster than the json module (a line per command is hot);
# what it cannot encode is written as its repr, as structlog's default renderer does.
_line_encoder = msgspec.json.Encoder(enc_hook=repr)


def _json_line(event: object, **_: object) -> bytes:
    return _line_encoder.encode(event)


class _Stderr:
    """The process's stderr as it is when a line is written, not when logging was configured:
    pytest replaces stderr for a test and closes it after, and an app built later would otherwise
    write to the closed one (every line then a 500).

    In a served process (``write_by_turn``), the lines of one turn of its event loop go out in
    one write at the turn's end (``call_soon``): a command's line is one more system call
    otherwise, and a batch of appends ends many commands in the same turn. Nothing waits longer
    than that turn, and the lines of several worker processes sharing stderr still never run
    into each other (each write holds whole lines). Elsewhere (the CLI, tests, another thread), a
    line is written at once: a test's loop stops between tests, with its last turn's lines
    held, and stderr is another stream by the time they would go out.
    """

    by_turn = False
    _pending: list[bytes] = []
    _loop: asyncio.AbstractEventLoop | None = None  # the loop whose turn will write them

    @classmethod
    def write(cls, line: bytes) -> None:
        if not cls.by_turn:
            cls._write_out([line])
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop in this thread
            loop = None
        if cls._loop is not None and cls._loop is not loop and cls._loop.is_closed():
            cls.write_pending()  # that loop ended before its turn did
        if loop is None or (cls._loop is not None and cls._loop is not loop):
            cls._write_out([line])
            return
        cls._pending.append(line)
        if cls._loop is None:
            cls._loop = loop
            loop.call_soon(cls.write_pending)

    @staticmethod
    def flush() -> None:  # structlog flushes after each line: the turn's end writes them instead
        pass

    @classmethod
    def write_pending(cls) -> None:
        lines, cls._pending, cls._loop = cls._pending, [], None
        if lines:
            cls._write_out(lines)

    @staticmethod
    def _write_out(lines: list[bytes]) -> None:
        stream = sys.stderr
        binary = getattr(stream, "buffer", None)  # absent when stderr was replaced by a text-only stream
        joined = b"".join(lines)
        if binary is None:
            stream.write(joined.decode())
        else:
            binary.write(joined)
        stream.flush()


# A line logged in a loop's last turn (shutdown) is written when the process ends.
atexit.register(_Stderr.write_pending)


def write_by_turn() -> None:
    """From now on, this process writes the lines of a turn of its event loop together."""
    _Stderr.by_turn = True


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
