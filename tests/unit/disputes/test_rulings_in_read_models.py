"""What a ruling changes in the read models (projections/read_models.py): wins move to the ruled
outcome, penalties mark players, each with the ruling's time (the public learns it only a
spectator delay later, projections/spectator.py), and the dispute's queue row follows. No database."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from domain.decider import Outcome
from domain.disputes.commands import ClaimDispute, OpenReview, RaiseDispute, ResolveDispute
from domain.table.commands import LeaveSeat, StartGame
from domain.table.events import SeatJoined
from domain.table.state import Table
from projections import read_models, spectator
from projections.read_models import ListedRuling, PlayerGame, PlayerRuling
from tests.unit.disputes.test_dispute_decider import CREATED, given

GAME = uuid.uuid4()
KIND = "exploding_kittens"


def conceded() -> Table:
    """Ann (seat 0) won after ben (seat 1) conceded."""
    lobby = given(
        None,
        CREATED,
        SeatJoined(seat=0, name="ann", occupancy="a1", player="p-ann"),
        SeatJoined(seat=1, name="ben", occupancy="b1", player="p-ben"),
    )
    assert lobby.state is not None
    started = lobby.when(StartGame(), now=5.0, seed=7)
    table: Table = started.when(LeaveSeat(seat=1, holder="b1"), now=5.0, seed=7).state
    return table


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
    table: Table = given(conceded()).when(RAISED, now=5.0).when(CLAIMED, now=5.0).state
    return table


def ruled(table: Table, **ruling: object) -> Table:
    fields: dict[str, object] = {"dispute_id": str(uuid.UUID(int=1)), "moderator": "mia", "explanation": "e"}
    after: Table = given(table).when(ResolveDispute(**{**fields, **ruling}), now=5.0).state  # type: ignore[arg-type]
    return after


def rows(table: Table) -> dict[str, PlayerGame]:
    return {row.player: row for row in read_models.player_games(table)}


def ruled_at(table: Table) -> float:
    [ruling] = [d.ruling for d in table.disputes if d.ruling is not None]
    return ruling.at


def test_a_void_takes_the_win_away_and_an_award_moves_it() -> None:
    before = claimed_after_a_game()
    assert {p: (r.ended, r.outcome, r.rulings) for p, r in rows(before).items()} == {
        "p-ann": ("won", "won", ()),
        "p-ben": ("lost", "lost", ()),
    }
    voided = ruled(before, verdict="upheld", action="void")
    at = ruled_at(voided)
    assert {p: (r.ended, r.outcome, r.rulings) for p, r in rows(voided).items()} == {
        "p-ann": ("won", "lost", (PlayerRuling(at, "lost", 0),)),
        "p-ben": ("lost", "lost", (PlayerRuling(at, "lost", 0),)),
    }
    awarded = ruled(before, verdict="upheld", action="award", seats=(1,))
    at = ruled_at(awarded)
    assert {p: (r.outcome, r.rulings) for p, r in rows(awarded).items()} == {
        "p-ann": ("lost", (PlayerRuling(at, "lost", 0),)),
        "p-ben": ("won", (PlayerRuling(at, "won", 0),)),
    }
    change = read_models.lobby_change(GAME, before, awarded, datetime.now(UTC))
    assert (change.winners, change.rulings) == ((0,), (ListedRuling(at, (1,)),))


def test_a_penalty_marks_the_seats_player_and_a_dismissal_changes_no_row() -> None:
    before = claimed_after_a_game()
    penalized = ruled(before, verdict="upheld", action="penalize", seats=(1,))
    at = ruled_at(penalized)
    assert {p: r.rulings for p, r in rows(penalized).items()} == {
        "p-ann": (PlayerRuling(at, "won", 0),),
        "p-ben": (PlayerRuling(at, "lost", 1),),
    }
    assert read_models.lobby_change(GAME, before, penalized, datetime.now(UTC)).rulings == (
        ListedRuling(at, None),  # the original winners stand
    )
    dismissed = ruled(before, verdict="dismissed")
    assert read_models.player_games_change(GAME, before, dismissed, datetime.now(UTC)) is None
    assert spectator.rulings(dismissed) == ()


def test_each_ruling_that_changes_the_result_is_kept_with_its_time() -> None:
    """A review's ruling after the first: the public learns each one a delay after its own time."""
    voided = ruled(claimed_after_a_game(), verdict="upheld", action="void")  # at 5.0
    review = str(uuid.UUID(int=2))
    reviewed = given(voided).when(
        OpenReview(dispute_id=str(uuid.UUID(int=1)), review_id=review, moderator="max", reason="again"),
        now=6.0,
    )
    claimed: Table = reviewed.when(ClaimDispute(dispute_id=review, moderator="max"), now=6.0).state
    resolve = ResolveDispute(
        dispute_id=review, moderator="max", explanation="e", verdict="upheld", action="award", seats=(0, 1)
    )
    awarded: Table = given(claimed).when(resolve, now=7.0).state
    assert awarded.outcome is not None
    scores = awarded.outcome.scores
    assert spectator.rulings(awarded) == (
        spectator.Ruled(5.0, Outcome((), scores), ()),
        spectator.Ruled(7.0, Outcome((0, 1), scores), ()),
    )
    assert rows(awarded)["p-ben"].rulings == (PlayerRuling(5.0, "lost", 0), PlayerRuling(7.0, "won", 0))
    assert read_models.lobby_change(GAME, claimed, awarded, datetime.now(UTC)).rulings == (
        ListedRuling(5.0, ()),
        ListedRuling(7.0, (0, 1)),
    )


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
