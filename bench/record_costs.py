"""What recording commands and committed seeds add to a command's Python work, in one run.

Run: ``.venv/bin/python bench/record_costs.py [--commands 3000] [--kind exploding_kittens]``

Issue 35 stores each accepted command in the log (the metadata every event of its append carries,
projections/commands.py) and draws every random choice from a stream keyed by committed seeds
(domain/randomness.py). This bench plays bot games through the composed decider alone (no
database, no HTTP) and times, per command, the parts the service adds on its command path:

- **decide + evolve**: the rules' own work, the baseline;
- **record**: ``commands.record`` and the metadata's encoding, against the metadata without it;
- **draws**: the key derivation (one HMAC) and the context built for each command.

It also counts the bytes the record adds to each event's metadata (one append's events all carry
it). The database's share (a larger jsonb per row) is bench/append_costs.py's to price; the
lead compares bench/commands.py with and without this change on a quiet machine for the target
(within 5% of commands/s).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import uuid
from typing import Any

import msgspec

from domain import randomness
from domain.registry import for_kind
from domain.table import seeds
from domain.table.commands import CreateGame, JoinSeat, Play, StartGame
from projections import commands

QUICK = {
    "exploding_kittens": {"players": 3, "reaction_window": 0},
    "a_risk_cat": {"players": 3, "mode": "full"},
}


def _metadata(record: dict[str, Any] | None) -> bytes:
    fields: dict[str, Any] = {
        "command_id": "seat:0:0123456789abcdef",
        "actor": "seat:0",
    }
    if record is not None:
        fields["command"] = record
    return msgspec.json.encode(fields)


def run(kind: str, total: int, rng: random.Random) -> dict[str, list[float]]:
    rules = for_kind(kind)
    server = bytes(32)
    times: dict[str, list[float]] = {"decide": [], "record": [], "draws": [], "bytes": []}
    done = 0
    while done < total:
        game_id = uuid.uuid4()
        ctx = randomness.Draws(None, 0)
        committed = randomness.server_commitment(server)
        table = None
        from domain.decider import Context

        lobby: list[Any] = [CreateGame(kind=kind, options=QUICK[kind])]
        lobby += [JoinSeat(name=f"p{n}", occupancy=f"o{n}") for n in range(QUICK[kind]["players"])]
        lobby.append(StartGame())
        for command in lobby:
            if table is None:
                context = Context(ctx, time.time(), None, seed_commitment=committed)
            else:
                draws = seeds.draws(table, game_id, server)
                assert draws is not None
                context = seeds.context(table, draws, time.time(), server)
            table = rules.decide(table, command, context).table
        assert table is not None
        while table.status == "running" and done < total:
            seat = table.state.active_seat
            legal = [
                c for c in table.decider.legal_commands(table.state, seat) if type(c).__name__ != "Concede"
            ]
            if not legal:
                break
            command = Play(seat=seat, command=rng.choice(legal), holder=f"o{seat}")
            started = time.perf_counter()
            draws = seeds.draws(table, game_id, server)
            assert draws is not None
            context = seeds.context(table, draws, time.time(), server)
            keyed = time.perf_counter()
            decision = rules.decide(table, command, context)
            events, table = decision.events, decision.table
            decided = time.perf_counter()
            with_record = _metadata(commands.record(command, context.now, len(events)))
            recorded = time.perf_counter()
            without = _metadata(None)
            plain = time.perf_counter()
            times["draws"].append(keyed - started)
            times["decide"].append(decided - keyed)
            times["record"].append((recorded - decided) - (plain - recorded))
            times["bytes"].append(len(with_record) - len(without))
            done += 1
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=3000)
    parser.add_argument("--kind", default="exploding_kittens", choices=sorted(QUICK))
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    times = run(args.kind, args.commands, random.Random(args.seed))
    base = statistics.median(times["decide"]) * 1e6
    print(f"{args.kind}: {len(times['decide'])} commands, medians per command")
    print(f"  decide + evolve   {base:8.1f} µs")
    for part in ("record", "draws"):
        cost = statistics.median(times[part]) * 1e6
        print(f"  {part:<16}  {cost:8.1f} µs  ({cost / base:6.1%} of decide + evolve)")
    print(f"  metadata bytes added per event: median {statistics.median(times['bytes']):.0f}")


if __name__ == "__main__":
    main()
