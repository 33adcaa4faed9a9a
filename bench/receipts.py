"""What a receipt costs: signing one on the command path, verifying one offline.

Run: ``.venv/bin/python bench/receipts.py [--rounds 5] [--seconds 1]``. Prints, per receipt, the
median over rounds of: the whole ``ReceiptSigner.sign`` (the events' digest, the head's
commitment, the body, the Ed25519 signature) for a typical answer (two Exploding Kittens events
as a seat sees them), the Ed25519 signature alone, and ``projections.receipts.verify`` (parse
and check the signature). Compare the first with the service's CPU per command (bench/README.md,
"Where the targets stand": 0.409 ms on the faster machine) for its share of the command path.
A micro-benchmark: run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from projections.notes import Signer
from projections.receipts import ReceiptSigner, verify

# Two events as a seat sees them after a draw (the card drawn and the next turn).
EVENTS = [
    (41, "CardDrawn", {"type": "CardDrawn", "seat": 0, "card": "Skip", "draw_pile_size": 23}),
    (42, "OwedTurnStarted", {"type": "OwedTurnStarted", "seat": 1, "turns_owed": 1, "under_attack": False}),
]


def per_call(work: Callable[[], object], seconds: float) -> float:
    """Microseconds per call of ``work``, run for about ``seconds``."""
    calls, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        for _ in range(200):
            work()
        calls += 200
    return elapsed / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    key = Signer.generate("playlog.bench/log")
    signer = ReceiptSigner([key])
    game_id, head = uuid.uuid4(), bytes(range(32))

    def sign() -> str:
        return signer.sign(game_id, 0, (40, 42), EVENTS, head, fingerprint="ab" * 32, key="k-1")

    text = sign()
    keys = [key.verifier]
    body = text.split("\n\n")[0].encode()
    works = {
        "sign a receipt (all of it)": sign,
        "  the Ed25519 signature alone": lambda: key.key.sign(body),
        "verify a receipt offline": lambda: verify(text, keys),
    }
    rounds = {
        name: [per_call(work, args.seconds) for _ in range(args.rounds)] for name, work in works.items()
    }
    for name, times in rounds.items():
        print(
            f"{name:32} {statistics.median(times):8.1f} us  (rounds: {', '.join(f'{t:.1f}' for t in times)})"
        )
    print(f"receipt size: {len(text)} bytes")


if __name__ == "__main__":
    main()
