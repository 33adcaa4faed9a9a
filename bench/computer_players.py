"""How strong each computer player level is, and how long it takes to decide.

Run: ``.venv/bin/python bench/computer_players.py [--games 1000]``

Plays ``--games`` seeded games per pairing in process (service/tools/matches.py: the game's own
rules, each decision made from the seat's view alone, as over HTTP) and prints the "normal"
seat's win rate with a 95% Wilson interval next to its baseline, the share of games a seat wins
when every level is equal (1 / seats), and the time per decision of each level (mean and p99).
The "normal" seat moves round the table from game to game, so no seat's advantage counts for it.
Targets (issue 53): "normal" beats "easy" clearly in 2-player Exploding Kittens and in 3-player A
Risk Cat (the interval's low end above the baseline); a decision takes under 50 ms.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root

from service.tools.matches import play_match

PAIRINGS: list[tuple[str, str, int, dict[str, Any]]] = [
    ("Exploding Kittens, 2 players, 2022 edition", "exploding_kittens", 2, {"reaction_window": 0}),
    (
        "Exploding Kittens, 2 players, classic",
        "exploding_kittens",
        2,
        {"reaction_window": 0, "edition": "classic"},
    ),
    ("Exploding Kittens, 4 players", "exploding_kittens", 4, {"reaction_window": 0}),
    ("A Risk Cat, 3 players, base game", "a_risk_cat", 3, {}),
    ("A Risk Cat, 3 players, full game", "a_risk_cat", 3, {"mode": "full"}),
]


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% interval of a win rate (Wilson's score interval)."""
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    centre = (rate + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000, help="seeded games per pairing")
    args = parser.parse_args()
    timings: dict[str, list[float]] = defaultdict(list)
    print(f"{'pairing':48} {'normal wins':>12} {'95% interval':>16} {'baseline':>9}  verdict")
    for title, kind, seats, options in PAIRINGS:
        wins = 0
        for game in range(args.games):
            normal_seat = game % seats
            levels = tuple("normal" if seat == normal_seat else "easy" for seat in range(seats))
            match = play_match(kind, levels, options, seed=game)
            wins += normal_seat in match.winners
            for level, seconds in match.timings:
                timings[level].append(seconds)
        low, high = wilson(wins, args.games)
        baseline = 1 / seats
        verdict = "clearly stronger" if low > baseline else "not clearly stronger"
        interval = f"{low:.1%} - {high:.1%}"
        print(f"{title:48} {wins / args.games:>12.1%} {interval:>16} {baseline:>9.1%}  {verdict}")
    print()
    print(f"{'level':8} {'decisions':>10} {'mean ms':>9} {'p99 ms':>8} {'max ms':>8}  target < 50 ms")
    for level, seconds in sorted(timings.items()):
        mean, p99, worst = (
            statistics.fmean(seconds) * 1e3,
            percentile(seconds, 0.99) * 1e3,
            max(seconds) * 1e3,
        )
        met = "met" if p99 < 50 else "missed"
        print(f"{level:8} {len(seconds):>10} {mean:>9.3f} {p99:>8.3f} {worst:>8.3f}  {met}")


if __name__ == "__main__":
    main()
