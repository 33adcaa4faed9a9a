"""What a webhook tells (service/app/webhooks.py's ``notices``), over the tables of random games
folded event by event, no database: ``your_turn`` exactly when a seat's view gains moves,
``game_over`` once at the end, each at the seat's own version; nothing for a guest's seat, and
nothing for an old finished game folded again from its start."""

from __future__ import annotations

import itertools
import time
import uuid

import msgspec
import pytest

from domain.table.state import Table
from domain.viewers import Seat
from projections.numbering import version_for
from projections.seat_view import may_act
from service.app import webhooks
from tests.unit.test_read_model_jumps import tables_of
from tests.unit.test_replay import OPTIONS

GAME = uuid.uuid4()


def held(path: list[Table]) -> list[Table]:
    """The same tables with every seat but the last held by a player (the last a guest's)."""
    players = (*tuple(str(uuid.uuid5(GAME, str(n))) for n in range(len(path[-1].players) - 1)), None)
    return [msgspec.structs.replace(t, players=players[: len(t.players)]) for t in path]


@pytest.mark.parametrize("kind", sorted(OPTIONS))
@pytest.mark.parametrize("seed", [1, 54])
def test_a_seat_is_told_when_its_view_gains_moves_and_when_its_game_ends(kind: str, seed: int) -> None:
    path = held(tables_of(kind, seed))
    told = [n for before, after in itertools.pairwise(path) for n in webhooks.notices(GAME, before, after)]
    expected = []
    for before, after in itertools.pairwise(path):
        for seat, player in enumerate(after.players):
            if player is None:
                continue
            if after.status == "finished" and before.status != "finished":
                expected.append((player, "game_over", seat, version_for(after, Seat(seat))))
            elif may_act(after, seat) and (seat >= len(before.players) or not may_act(before, seat)):
                expected.append((player, "your_turn", seat, version_for(after, Seat(seat))))
    assert [(p, n.event, n.seat, n.version) for p, n in told] == expected
    assert sum(n.event == "game_over" for _, n in told) == len(path[-1].players) - 1  # not the guest
    assert all(n.game_id == GAME for _, n in told)


def test_an_old_finished_game_folded_again_from_its_start_tells_nothing() -> None:
    finished = held(tables_of("exploding_kittens", 1))[-1]
    assert finished.status == "finished"
    assert webhooks.notices(GAME, None, msgspec.structs.replace(finished, created_at=0.0)) == []
    just_now = msgspec.structs.replace(finished, created_at=time.time())  # created and ended in one round
    assert {n.event for _, n in webhooks.notices(GAME, None, just_now)} == {"game_over"}
