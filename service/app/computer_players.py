"""Computer players seated at a table, and the loop that plays their seats.

A computer player is a player of its own per level (``Computer (normal)``), with an id fixed for
good (so its games and statistics gather under it) and no token anyone can hold: its row is
revoked from the start. A host, or any seated player, seats one in a free seat of an open game
(``seat``); it joins as that player, like anyone.

Every instance plays the computer seats of every running game (``ComputerPlayers``), as the
deadline scheduler acts on every due game: it reads the seat's view (the same ``seat_view`` a
seat's token reads, nothing more), lets the level choose (``bots``: a function of that view
alone), and sends the move through the seat's own use case (``command``: the same rules, the
same log, the same receipt) with the key ``computer-<version>``. The choice is a function of the
view, and the view of the seat's version, so two instances that act on the same version send the
same move under the same key: one append lands, the other gets its answer. An instance that
dies leaves nothing behind; the others go on playing its seats.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping

import msgspec

import bots
from projections.seat_view import seat_view
from service.app.games import GameService, Lobbied
from service.app.polling import Polling
from service.runtime.log import get_logger
from service.store.tasks import log_failure

log = get_logger("playlog.computer")

PLAYERS: Mapping[bots.Level, uuid.UUID] = {
    level: uuid.uuid5(uuid.NAMESPACE_URL, f"https://playlog.invalid/computer/{level}")
    for level in bots.LEVELS
}
LEVEL_OF: Mapping[uuid.UUID, bots.Level] = {player: level for level, player in PLAYERS.items()}
IDLE_PAUSE = 0.5  # the longest wait between two looks while no computer seat may move


def name(level: bots.Level) -> str:
    return f"Computer ({level})"


def kept_name(name: str) -> bool:
    """Whether a person may not join under ``name``: it would pass for a computer player's."""
    return name.strip().casefold().startswith("computer (")


async def seat(
    games: GameService, game_id: uuid.UUID, level: bots.Level, *, key: str | None, body: bytes
) -> tuple[int, Lobbied]:
    """Seat a computer player of ``level`` in the first free seat of ``game_id``."""
    player = PLAYERS[level]
    await games.store.db.execute(
        "INSERT INTO players (player_id, name, revoked_at) VALUES ($1, $2, now()) ON CONFLICT DO NOTHING",
        player,
        name(level),
    )
    return await games.lobby.join(game_id, name(level), player=str(player), key=key, body=body)


class ComputerPlayers(Polling):
    """Plays every computer seat that may move, a move a seat every ``interval`` seconds (see the
    module): a table of computer players alone plays about twenty moves a second."""

    name = "playlog-computer-players"
    failed = "computer_players_failed"
    log = log
    _idle = 0.0  # the last wait while no computer seat moved

    def wait(self, done: int) -> float:
        # No computer seat moved: look again less and less often (up to IDLE_PAUSE), so that a
        # service without computer players pays next to nothing for them.
        idle = min(max(self._idle, self.interval) * 2, max(IDLE_PAUSE, self.interval))
        self._idle = 0.0 if done else idle
        return self.interval if done else idle

    async def tick(self) -> int:
        """One round over the running games that seat a computer player; the moves made."""
        rows = await self.games.store.db.fetch(
            "SELECT game_id, player_id, seats FROM player_games"
            " WHERE player_id = ANY($1) AND status = 'running'",
            list(LEVEL_OF),
        )
        moved = 0
        for row in rows:
            for seat_number in row["seats"]:
                try:
                    moved += await self.play(row["game_id"], seat_number, LEVEL_OF[row["player_id"]])
                except Exception as exc:  # a race or a refusal: the next round looks again
                    log_failure(
                        log, "computer_move_failed", exc, game_id=str(row["game_id"]), seat=seat_number
                    )
        return moved

    async def play(self, game_id: uuid.UUID, seat_number: int, level: bots.Level) -> bool:
        """The level's move for this seat, if the seat is still the computer's and may move."""
        table = await self.games.load(game_id, cached_ok=True)
        if table.status != "running" or table.players[seat_number] != str(PLAYERS[level]):
            return False
        shown = msgspec.to_builtins(seat_view(game_id, table, seat_number))
        rng = bots.seeded(str(game_id), seat_number, shown["version"])
        move = bots.choose(table.kind, level, shown["view"] or {}, shown["moves"], rng)
        if move is None:
            return False
        await self.games.seats.command(
            game_id,
            seat_number,
            msgspec.json.encode(move),
            idempotency_key=f"computer-{shown['version']}",
            holder=table.occupancies[seat_number],
        )
        return True
