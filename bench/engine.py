"""Exploding Kittens engine speed: random full games, and replay (decode + fold) of their events.

Run: ``.venv/bin/python bench/engine.py``. Prints:
- random full games per second (``legal_commands`` of every seat + ``decide`` + ``evolve``,
  reaction_window 0, 2-5 players, both editions);
- events folded per second (``evolve`` alone, on decoded events);
- the baseline: msgspec's own decode-only speed for the same events (one JSON document per event,
  as stored), next to decode + fold;
- the replay cost of a typical game (decode + fold of all its events), in ms.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

import msgspec

from domain.decider import Concede, Context
from domain.exploding_kittens import DECIDER

GAME_SECONDS = 4.0
REPLAY_ROUNDS = 5


def random_game(seed: int) -> tuple[object, list[object]]:
    rng = random.Random(seed)
    raw = {
        "players": rng.randint(2, 5),
        "edition": rng.choice(["2022", "classic"]),
        "reaction_window": 0,
    }
    options = DECIDER.parse_options(raw)
    state = DECIDER.initial_state(options)
    events = list(DECIDER.start(state, Context(rng, 0.0, None)))
    state = DECIDER.fold(state, events)
    while DECIDER.outcome(state) is None:
        moves = [
            (seat, command)
            for seat in range(options.players)
            for command in DECIDER.legal_commands(state, seat)
            if not isinstance(command, Concede)
        ]
        seat, command = rng.choice(moves)
        batch = DECIDER.decide(state, command, Context(rng, 0.0, seat))
        for event in batch:
            state = DECIDER.evolve(state, event)
        events.extend(batch)
    return options, events


def main() -> None:
    games: list[tuple[object, list[object]]] = []
    started = time.perf_counter()
    seed = 0
    while time.perf_counter() - started < GAME_SECONDS:
        games.append(random_game(seed))
        seed += 1
    elapsed = time.perf_counter() - started
    total_events = sum(len(events) for _, events in games)
    rate = len(games) / elapsed
    print(f"random full games: {rate:8.1f} games/s ({len(games)} games, {total_events} events)")

    encoder = msgspec.json.Encoder()
    decoder = msgspec.json.Decoder(DECIDER.types.event)
    encoded = [(options, [encoder.encode(e) for e in events]) for options, events in games]
    decoded = [(options, [decoder.decode(b) for b in blobs]) for options, blobs in encoded]
    evolve = DECIDER.evolve
    initial = DECIDER.initial_state

    def decode_only() -> None:
        for _, blobs in encoded:
            for blob in blobs:
                decoder.decode(blob)

    def fold_only() -> None:
        for options, events in decoded:
            state = initial(options)
            for event in events:
                state = evolve(state, event)

    def decode_and_fold() -> None:
        for options, blobs in encoded:
            state = initial(options)
            for blob in blobs:
                state = evolve(state, decoder.decode(blob))

    def best(fn: object) -> float:
        times = []
        for _ in range(REPLAY_ROUNDS):
            t0 = time.perf_counter()
            fn()  # type: ignore[operator]
            times.append(time.perf_counter() - t0)
        return min(times)

    t_decode = best(decode_only)
    t_fold = best(fold_only)
    t_both = best(decode_and_fold)
    print(f"msgspec decode only: {total_events / t_decode:12,.0f} events/s   (baseline)")
    print(f"fold only (evolve):  {total_events / t_fold:12,.0f} events/s")
    ratio = t_both / t_decode
    print(f"decode + fold:       {total_events / t_both:12,.0f} events/s   ({ratio:.2f}x decode-only time)")
    sizes = [len(events) for _, events in games]
    typical = statistics.median(sizes)
    per_event = t_both / total_events
    print(
        f"replay of a typical game ({typical:.0f} events, median): {typical * per_event * 1000:.3f} ms "
        f"(decode + fold; fold alone {typical * t_fold / total_events * 1000:.3f} ms)"
    )


if __name__ == "__main__":
    main()
