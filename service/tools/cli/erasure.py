"""``playlog erase-player``: an operator erases a player on their behalf (docs/erasure.md), as
``DELETE /players/me?erase=true`` does for a player who still holds their token."""

from __future__ import annotations

import asyncio
import sys
import uuid
from typing import TYPE_CHECKING

import click

from service.config import Settings
from service.tools.cli.common import friendly, main, resolve_database

if TYPE_CHECKING:
    from service.app.erasure import Erased


async def _erase(url: str, settings: Settings, player_id: uuid.UUID) -> Erased:
    from service.app.erasure import Erasure
    from service.app.games import GameService
    from service.app.players import Players
    from service.store.events import EventStore
    from service.store.pool import create_pool

    pool = await create_pool(url, min_size=1, max_size=2)
    try:
        await Players(pool, settings.keyring(), settings.player_token_lifetime).revoke(player_id)
        # This process caches no game: the running instances drop theirs on the erasure's NOTIFY.
        erasure = Erasure(GameService(EventStore(pool)), pool, forget=lambda _: None)
        return await erasure.player(player_id)
    finally:
        await pool.close()


@main.command("erase-player")
@click.argument("player_id", type=click.UUID)
@friendly
def erase_player(player_id: uuid.UUID) -> None:
    """Erase PLAYER_ID: revoke their tokens, destroy their name and texts in every game."""
    from service.app.errors import ServiceError

    settings = Settings.from_env()
    url = resolve_database(settings)
    try:
        done = asyncio.run(_erase(url, settings, player_id))
    except ServiceError as exc:
        click.echo(f"playlog: {exc.message}", err=True)
        sys.exit(1)
    click.echo(f"erased player {player_id}: shown as {done.pseudonym!r} from now on; tokens revoked")
    click.echo(f"texts erased: {done.texts}")
    for game_id in done.games:
        click.echo(f"game {game_id}: erased")
    for game_id in done.kept:
        click.echo(f"game {game_id}: kept (played before erasure existed, its names are in the log)")
    for game_id in done.refused:
        click.echo(f"game {game_id}: no tombstone yet (an open incident); its texts are erased all the same")
