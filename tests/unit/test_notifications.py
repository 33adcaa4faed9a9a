"""An instance's own appends reach its waiters at once; NOTIFY is for the other instances."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from service.store.notifications import Listener, Notifier


async def test_an_own_append_wakes_this_instances_waiters_before_any_notify_is_sent() -> None:
    listener = Listener("postgresql://nowhere.invalid/none")  # never started: no LISTEN at all
    told: list[tuple[uuid.UUID, int]] = []
    listener.on_append(lambda game_id, seq: told.append((game_id, seq)))
    game, other = uuid.uuid4(), uuid.uuid4()
    waiting, elsewhere = listener.subscribe(game), listener.subscribe(other)
    pool: Any = None  # never asked: the notifier is not started, nothing is sent
    notifier = Notifier(pool, local=listener.deliver)

    notifier.publish(game, 4)
    assert not waiting.is_set()  # not on the append's own path: the loop's next turn
    await asyncio.sleep(0)

    assert waiting.is_set() and not elsewhere.is_set()
    assert told == [(game, 4)]
    assert notifier._pending == {game: 4}  # still to be sent, for the other instances


async def test_a_subscriber_that_fails_on_an_own_append_fails_neither_the_append_nor_the_others() -> None:
    listener = Listener("postgresql://nowhere.invalid/none")

    def broken(_game_id: uuid.UUID, _seq: int) -> None:
        raise RuntimeError("a subscriber failed")

    listener.on_append(broken)
    game = uuid.uuid4()
    waiting = listener.subscribe(game)
    pool: Any = None
    notifier = Notifier(pool, local=listener.deliver)
    loop = asyncio.get_running_loop()
    unhandled: list[dict[str, Any]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: unhandled.append(context))
    try:
        notifier.publish(game, 1)  # returns: the append it follows has committed
        await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(previous)
    assert unhandled == []  # logged as local_delivery_failed, not left to the loop
    assert notifier._pending == {game: 1}  # the NOTIFY still goes out, and tells this instance too
    assert not waiting.is_set()  # this delivery stopped at the failure; the NOTIFY's will wake it
