"""Where a command's CPU goes, part by part, in process: the game's rules, the views and events a
seat is shown, the encodings, the token, the read models' fold, the receipt, the idempotency
fingerprint and the notification. Each part is timed around the
functions that do it (the outermost call only, so no time counts twice), next to the whole
command's CPU and to ``GET /healthz`` times the requests a command takes. What the parts leave
is the rest: Litestar's routing, the guards, the service loop, the append's client and batching,
the event loop, the log line, the metrics, and the driver's own share.

Run: ``.venv/bin/python bench/parts.py [--games 10] [--seconds 10]``

The app runs in process as in bench/calls.py (the same bot games, no sockets). The timers cost
about a microsecond a command; the parts are sync functions, so their wall time on one thread is
their CPU time, unless the machine takes the core away meanwhile (then every figure grows).
Served over HTTP, a command also pays uvicorn's share of the floor: bench/commands.py.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

from bench.lib import common
from bench.lib.inprocess import cpu_of_play, play_for, run, running_app

_spent: dict[str, int] = defaultdict(int)
_depth = 0


def _timed(part: str, function: Any) -> Any:
    def timed(*args: Any, **kwargs: Any) -> Any:
        global _depth
        if _depth:
            return function(*args, **kwargs)
        _depth = 1
        started = time.perf_counter_ns()
        try:
            return function(*args, **kwargs)
        finally:
            _spent[part] += time.perf_counter_ns() - started
            _depth = 0

    return timed


def _instrument() -> None:
    """Each part's timer around the functions that do it, where their callers look them up."""
    import service.app.idempotency
    import service.app.loop
    import service.app.seat_commands
    import service.http.api.guards
    import service.http.api.play
    import service.http.fast.lanes
    import service.readmodels.models
    import service.store.notifications
    from domain.table.decider import SeatedDecider
    from projections.receipts import ReceiptSigner

    parts: list[tuple[Any, str, str]] = [
        (SeatedDecider, "decide", "the rules: decide (the table after the events folded as they are made)"),
        (service.http.api.play, "seat_view", "the seat's view"),
        (service.app.seat_commands, "envelopes", "the events as the seat sees them"),
        (service.app.loop, "seal_append", "the events encoded (a person's words sealed)"),
        (service.app.seat_commands.SeatCommands, "decode_command", "the command decoded"),
        (service.http.api.guards, "read_bearer", "the token read"),
        (service.http.fast.lanes, "encode_json", "the answer encoded"),
        (service.readmodels.models.ReadModels, "_apply", "read models: fold"),
        (ReceiptSigner, "sign", "the receipt (its events' digest, the Ed25519 signature)"),
        (service.app.idempotency, "fingerprint", "the idempotency fingerprint"),
        (service.store.notifications.Notifier, "publish", "the notification to other instances"),
    ]
    for owner, name, part in parts:
        function = getattr(owner, name)
        timed = _timed(part, function)
        setattr(owner, name, staticmethod(timed) if isinstance(owner.__dict__[name], staticmethod) else timed)


async def measure(url: str, games: int, seconds: float) -> None:
    _instrument()
    async with running_app(url, "parts") as client:
        await play_for(client, games, 0, 2)
        _spent.clear()
        counts, cpu_per_command, cpu_per_healthz = await cpu_of_play(client, games, seconds)
    n = max(1, counts["commands"])
    requests = (counts["commands"] + counts["other"]) / n
    rows = [[part, f"{ns / n / 1000:.1f}"] for part, ns in sorted(_spent.items(), key=lambda x: -x[1])]
    total = sum(_spent.values()) / n / 1000
    print(f"playlog bench/parts.py  ({common.machine()})")
    common.print_table(
        f"CPU per command in process, {games} games, {seconds:g} s, {counts['commands']} commands",
        ["part", "us"],
        [
            *rows,
            ["all the parts above", f"{total:.1f}"],
            [
                "the rest (framework, guards, service loop, append client, event loop, metrics, driver)",
                f"{cpu_per_command * 1e6 - total - cpu_per_healthz * requests * 1e6:.1f}",
            ],
            [
                "the whole command, its views and lobby share (driver's share in it)",
                f"{cpu_per_command * 1e6:.1f}",
            ],
            [f"GET /healthz x {requests:.2f} requests a command", f"{cpu_per_healthz * requests * 1e6:.1f}"],
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    run("parts", lambda url: measure(url, args.games, args.seconds))


if __name__ == "__main__":
    main()
