"""Telling long-lived responses that the process is shutting down (SIGTERM or SIGINT).

uvicorn stops on either signal by closing its listening sockets, then waiting (bounded by its
graceful-shutdown timeout) for open responses to end, and only then runs the app's lifespan
shutdown. An SSE stream never ends on its own, so it would be cut when that wait runs out. Hooks
registered here run first, in their own event loop, so every stream ends cleanly with a last
comment and the wait covers only the requests still in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGTERM, signal.SIGINT)
_hooks: dict[Callable[[], None], asyncio.AbstractEventLoop] = {}


def on_shutdown_signal(hook: Callable[[], None]) -> Callable[[], None]:
    """Call ``hook()`` in the running loop when SIGTERM or SIGINT arrives, before the handler
    in place (uvicorn's); returns the function that unregisters it."""
    _hooks[hook] = asyncio.get_running_loop()
    if threading.current_thread() is threading.main_thread():  # signals are the main thread's
        for sig in SIGNALS:
            _wrap(sig)

    def unregister() -> None:
        _hooks.pop(hook, None)

    return unregister


def _wrap(sig: signal.Signals) -> None:
    current = signal.getsignal(sig)
    if getattr(current, "playlog_hooks", False):
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        for hook, loop in list(_hooks.items()):
            with contextlib.suppress(RuntimeError):  # a loop already closed
                loop.call_soon_threadsafe(hook)
        _chain(current, signum, frame)

    handler.playlog_hooks = True  # type: ignore[attr-defined]
    signal.signal(sig, handler)


def _chain(previous: Any, signum: int, frame: FrameType | None) -> None:
    if callable(previous):
        previous(signum, frame)
    elif previous != signal.SIG_IGN:  # the default action: put it back and let it happen
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)
