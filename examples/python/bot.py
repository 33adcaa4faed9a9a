"""An example bot on a client generated from playlog's OpenAPI document (openapi-python-client).

It plays one seat of a running game of either kind: it follows the seat's event stream (SSE) and,
whenever its view lists moves of its own (``moves``: the legal commands but leaving), sends one
of them at random. Generate the client first
(from the repository's root; the package is git-ignored):

    openapi-python-client generate --path openapi/openapi.json --meta none \\
        --output-path examples/python/playlog_client --config examples/python/openapi-python-client.yaml \\
        --custom-template-path examples/python/templates
    python examples/python/bot.py http://127.0.0.1:8000 GAME_ID SEAT SEAT_TOKEN

With ``--drop 0.25`` a quarter of its answers are lost on purpose and asked for again (drops.py).
The game's commands, views and refusals are all typed: see type_checks.py. Refusals that only
mean the game moved on are read from the document (``x-playlog-races``); the stream is read with
sse.py, which resumes a dropped connection.
"""

from __future__ import annotations

import argparse
import random
import uuid

from drops import dropping, retried
from playlog_client import AuthenticatedClient
from playlog_client.api.play import get_seat_view, send_command
from playlog_client.models import ARiskCatSeatViewOut, CommandResult, ExplodingKittensSeatViewOut, GameStatus
from sse import follow


def races(client: AuthenticatedClient) -> frozenset[str]:
    """The refusals of a command that only mean the game moved on (the document's
    ``x-playlog-races``): read the view again and decide again."""
    document = retried(lambda: client.get_httpx_client().get("/schema/openapi.json"), "document").json()
    responses = document["paths"]["/games/{game_id}/seats/{seat}/commands"]["post"]["responses"]
    return frozenset(code for response in responses.values() for code in response.get("x-playlog-races", []))


class Bot:
    def __init__(self, client: AuthenticatedClient, game_id: uuid.UUID, seat: int, rng: random.Random):
        self.client = client
        self.game_id = game_id
        self.seat = seat
        self.rng = rng
        self.races = races(client)

    def turn(self) -> bool:
        """Look at the seat's view and play if it may; True once the game is over."""
        view = retried(lambda: get_seat_view.sync(self.game_id, self.seat, client=self.client), "view")
        if view is None:
            raise SystemExit("view: no answer")
        if not isinstance(view, ExplodingKittensSeatViewOut | ARiskCatSeatViewOut):
            raise SystemExit(f"view refused: {view.code.value} ({view.detail})")
        if view.status == GameStatus.FINISHED:
            print(f"seat {self.seat}: game over, winners {view.winners}")
            return True
        # The seat's own moves (its legal commands but leaving), typed by the view's kind: each
        # game lists only its own commands. Empty while the game waits for another seat.
        if not view.moves:
            return False
        command = self.rng.choice(view.moves)
        # One key per decision: a lost answer is asked for again with the same key, body and
        # expected_version, and the server answers as it did the first time (never acting twice).
        key = str(uuid.uuid4())
        print(f"decided {key} {command.type_}", flush=True)
        result = retried(
            lambda: send_command.sync(
                self.game_id,
                self.seat,
                client=self.client,
                body=command,
                expected_version=view.version,
                idempotency_key=key,
            ),
            f"command {key}",
        )
        if result is None:
            raise SystemExit(f"{command.type_}: no answer")
        if isinstance(result, CommandResult):
            print(f"applied {key}", flush=True)
        elif result.code.value not in self.races:
            raise SystemExit(f"{command.type_} refused: {result.code.value} ({result.detail})")
        return False

    def play(self) -> None:
        """Act on every event of the seat's stream until the game is over."""
        if self.turn():
            return
        path = f"/games/{self.game_id}/seats/{self.seat}/stream"
        for _ in follow(self.client.get_httpx_client(), path):
            # The view says what may be done now; the event only says it may have changed.
            if self.turn():
                return
        raise SystemExit("the stream ended before the game did")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("url")
    parser.add_argument("game_id", type=uuid.UUID)
    parser.add_argument("seat", type=int)
    parser.add_argument("token")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--drop", type=float, default=0.0, help="share of answers to drop (drops.py)")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    httpx_args = dropping(args.drop, random.Random(rng.random()))
    with AuthenticatedClient(
        base_url=args.url, token=args.token, timeout=None, httpx_args=httpx_args
    ) as client:
        Bot(client, args.game_id, args.seat, rng).play()


if __name__ == "__main__":
    main()
