"""Follow a game as a spectator, on the client generated from playlog's OpenAPI document.

It prints one line per event of the delayed public stream (``seq type``), from the first or after
``--last-event-id``, until the game is over (``--drop``: answers lost and streams cut on purpose,
drops.py; the stream is resumed where it was cut):

    python examples/python/spectate.py http://127.0.0.1:8000 GAME_ID [--last-event-id 5]
"""

from __future__ import annotations

import argparse
import random
import uuid

from drops import dropping, retried
from playlog_client import Client
from playlog_client.api.spectate import get_spectator_snapshot
from playlog_client.models import ARiskCatSpectatorSnapshot, ExplodingKittensSpectatorSnapshot, GameStatus
from sse import follow


def finished(client: Client, game_id: uuid.UUID, seq: int) -> bool:
    """Whether ``seq`` is a spectator's last event of a game that is over (a spectator's events
    are numbered for spectators: the snapshot's ``version`` counts them the same way)."""
    snapshot = retried(lambda: get_spectator_snapshot.sync(game_id, client=client), "snapshot")
    if snapshot is None:
        raise SystemExit("snapshot: no answer")
    if not isinstance(snapshot, ExplodingKittensSpectatorSnapshot | ARiskCatSpectatorSnapshot):
        raise SystemExit(f"snapshot refused: {snapshot.code.value} ({snapshot.detail})")
    return snapshot.status == GameStatus.FINISHED and seq >= snapshot.version


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("url")
    parser.add_argument("game_id", type=uuid.UUID)
    parser.add_argument("--last-event-id", type=int, default=None)
    parser.add_argument("--drop", type=float, default=0.0, help="share of answers to drop (drops.py)")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    httpx_args = dropping(args.drop, random.Random(args.seed))
    with Client(base_url=args.url, timeout=None, httpx_args=httpx_args) as client:
        path = f"/games/{args.game_id}/spectate/stream"
        for message in follow(client.get_httpx_client(), path, last_event_id=args.last_event_id):
            print(message.id, message.data.type_.value, type(message.data.data).__name__, flush=True)
            if finished(client, args.game_id, message.id):
                return
    raise SystemExit("the stream ended before the game did")


if __name__ == "__main__":
    main()
