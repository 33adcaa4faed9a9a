"""What a ruling changes in the read models (projections/read_models.py): wins move to the ruled
outcome, penalties mark players, and the dispute's queue row follows. No database."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from domain.disputes.commands import ClaimDispute, RaiseDispute, ResolveDispute
from domain.table.commands import LeaveSeat, StartGame
from domain.table.events import SeatJoined
from domain.table.state import Table
from projections import read_models
from projections.read_models import StatChange
from tests.unit.disputes.test_dispute_decider import CREATED, RULES, then

GAME = uuid.uuid4()
KIND = "exploding_kittens"


def conceded() -> Table:
    """Ann (seat 0) won after ben (seat 1) conceded."""
    table = RULES.fold(
        None,
        [
            CREATED,
            SeatJoined(seat=0, name="ann", occupancy="a1", player="p-ann"),
            SeatJoined(seat=1, name="ben", occupancy="b1", player="p-ben"),
        ],
    )
    assert table is not None
    return then(then(table, StartGame()), LeaveSeat(seat=1, holder="b1"))


RAISED = RaiseDispute(
    dispute_id=str(uuid.UUID(int=1)),
    seat=1,
    holder="b1",
    seqs=(3,),
    category="technical",
    reason="misclick",
    window_closes_at=None,
)
CLAIMED = ClaimDispute(dispute_id=str(uuid.UUID(int=1)), moderator="mia")


def claimed_after_a_game() -> Table:
    """Ben disputes ann's win after his concession; mia claims the dispute."""
    return then(then(conceded(), RAISED), CLAIMED)


def ruled(table: Table, **ruling: object) -> Table:
    fields: dict[str, object] = {"dispute_id": str(uuid.UUID(int=1)), "moderator": "mia", "explanation": "e"}
    return then(table, ResolveDispute(**{**fields, **ruling}))  # type: ignore[arg-type]


def test_a_void_takes_the_win_away_and_an_award_moves_it() -> None:
    before = claimed_after_a_game()
    voided = ruled(before, verdict="upheld", action="void")
    assert read_models.stat_changes(before, voided) == (StatChange("p-ann", KIND, 0, -1),)
    awarded = ruled(before, verdict="upheld", action="award", seats=(1,))
    assert set(read_models.stat_changes(before, awarded)) == {
        StatChange("p-ann", KIND, 0, -1),
        StatChange("p-ben", KIND, 0, 1),
    }
    change = read_models.lobby_change(GAME, before, awarded, datetime.now(UTC))
    assert (change.winners, change.ruled_winners) == ((0,), (1,))


def test_a_penalty_marks_the_seats_player_and_a_dismissal_changes_no_statistic() -> None:
    before = claimed_after_a_game()
    penalized = ruled(before, verdict="upheld", action="penalize", seats=(1,))
    assert read_models.stat_changes(before, penalized) == (StatChange("p-ben", KIND, 0, 0, 1),)
    assert read_models.stat_changes(before, ruled(before, verdict="dismissed")) == ()


def test_the_queue_row_follows_the_dispute() -> None:
    before = claimed_after_a_game()
    after = ruled(before, verdict="upheld", action="none")
    [row] = read_models.dispute_changes(GAME, before, after)
    assert (row.status, row.verdict, row.action, row.claimed_by, row.seat) == (
        "resolved",
        "upheld",
        "none",
        None,
        1,
    )
    assert row.resolved_at is not None and read_models.dispute_changes(GAME, after, after) == ()
