"""The dispute rules as data: given these past events, when this command, then these events or
this refusal (tests/given.py; domain/disputes, composed into the table). No database, no clock:
the composed decider decides with no seat (``ctx.seat`` None) and the clock at 5.0."""

from __future__ import annotations

from typing import Any

import pytest

from domain.decider import Outcome
from domain.disputes.commands import (
    AskSeat,
    ClaimDispute,
    NoteDispute,
    OpenReview,
    RaiseDispute,
    ReleaseDispute,
    ReleaseRevokedClaim,
    ReplyToQuestion,
    ResolveDispute,
)
from domain.disputes.events import (
    DisputeClaimed,
    DisputeNoted,
    DisputeRaised,
    DisputeReleased,
    DisputeResolved,
    QuestionAnswered,
    QuestionAsked,
)
from domain.disputes.views import redact
from domain.registry import for_kind
from domain.table.commands import LeaveSeat, StartGame
from domain.table.events import GameCreated, SeatJoined
from domain.table.state import Table
from domain.viewers import MODERATOR, SPECTATOR, Seat
from tests.given import Rules, given_for

KIND = "exploding_kittens"
RULES = for_kind(KIND)
# given(table, *events), or given(None, *events): the table's empty log, then these events.
given = given_for(
    Rules(decide=lambda table, command, ctx: RULES.decide(table, command, ctx).events, fold=RULES.fold)
)
CREATED = GameCreated(
    kind=KIND, options={"players": 2, "reaction_window": 0}, public=True, spectator_delay=0.0, created_at=1.0
)
ALICE = SeatJoined(seat=0, name="alice", occupancy="a1")
BOB = SeatJoined(seat=1, name="bob", occupancy="b1")
MOD = "mia"


def running() -> Table:
    table: Table = given(None, CREATED, ALICE, BOB).when(StartGame(), now=5.0, seed=7).state
    return table


def finished() -> Table:
    """Bob conceded: alice won."""
    table: Table = given(running()).when(LeaveSeat(seat=1, holder="b1"), now=5.0, seed=7).state
    assert table.status == "finished" and table.outcome is not None
    return table


def raise_(seat: int = 1, dispute_id: str = "d1", **changes: Any) -> RaiseDispute:
    fields: dict[str, Any] = {
        "dispute_id": dispute_id,
        "seat": seat,
        "holder": ("a1", "b1")[seat],
        "seqs": (3,),
        "category": "rules",
        "reason": "the kitten was not shuffled",
        "window_closes_at": 100.0,
    }
    return RaiseDispute(**{**fields, **changes})


def claimed(table: Table | None = None, moderator: str = MOD) -> Table:
    past = given(table or finished())
    after: Table = (
        past.when(raise_(), now=5.0).when(ClaimDispute(dispute_id="d1", moderator=moderator), now=5.0).state
    )
    return after


def resolve(**changes: Any) -> ResolveDispute:
    fields: dict[str, Any] = {
        "dispute_id": "d1",
        "moderator": MOD,
        "verdict": "upheld",
        "action": "none",
        "explanation": "we looked",
    }
    return ResolveDispute(**{**fields, **changes})


# -- raising ------------------------------------------------------------------------------------


def test_given_a_finished_game_when_a_seat_raises_then_a_dispute_is_raised_with_its_reason() -> None:
    table = finished()
    given(table).when(raise_(seqs=(4, 3, 3)), now=5.0).then(
        [
            DisputeRaised(
                dispute_id="d1",
                seat=1,
                seqs=(3, 4),
                category="rules",
                reason="the kitten was not shuffled",
                at=5.0,
            )
        ]
    )
    after = given(table).when(raise_(), now=5.0).state
    assert [(d.dispute_id, d.status, d.raised_seq) for d in after.disputes] == [
        ("d1", "open", table.version + 1)
    ]
    assert after.outcome == table.outcome and after.ruled_outcome is None


def test_given_a_running_game_when_a_seat_raises_then_it_is_accepted() -> None:
    assert len(given(running()).when(raise_(window_closes_at=None), now=5.0).events) == 1


def test_given_another_holder_when_raising_then_not_seated() -> None:
    refused = given(finished()).when(raise_(holder="someone"), now=5.0)
    assert (refused.code, refused.kind) == ("not_seated", "forbidden")


@pytest.mark.parametrize("seqs", [(), (0,), (999,)])
def test_given_seqs_outside_the_log_when_raising_then_seq_out_of_range(seqs: tuple[int, ...]) -> None:
    refused = given(finished()).when(raise_(seqs=seqs), now=5.0)
    assert (refused.code, refused.kind) == ("seq_out_of_range", "invalid")


def test_given_the_window_has_closed_when_raising_then_dispute_window_closed() -> None:
    refused = given(finished()).when(raise_(window_closes_at=4.0), now=5.0)
    assert (refused.code, refused.kind) == ("dispute_window_closed", "conflict")


def test_given_three_open_disputes_when_raising_a_fourth_then_too_many_open_disputes() -> None:
    table = finished()
    for n in range(3):
        table = given(table).when(raise_(dispute_id=f"d{n}"), now=5.0).state
    refused = given(table).when(raise_(dispute_id="d9"), now=5.0)
    assert (refused.code, refused.kind) == ("too_many_open_disputes", "conflict")
    assert len(given(table).when(raise_(seat=0, dispute_id="d9"), now=5.0).events) == 1  # per seat


def test_given_a_long_reason_when_raising_then_reason_too_long() -> None:
    refused = given(finished()).when(raise_(reason="x" * 1001), now=5.0)
    assert (refused.code, refused.kind) == ("reason_too_long", "invalid")
    given(finished()).when(raise_(reason="  "), now=5.0).then("invalid_text")


@pytest.mark.parametrize("text", ["a\x00b", "\x1b[31m", "a\x7f", "a\x85b", "\x0b"])
def test_given_a_control_character_in_a_text_when_written_then_invalid_text(text: str) -> None:
    given(finished()).when(raise_(reason=text), now=5.0).then("invalid_text")
    raised = given(finished()).when(raise_(), now=5.0)
    refused = raised.when(NoteDispute(dispute_id="d1", moderator=MOD, text=text), now=5.0)
    assert (refused.code, refused.kind) == ("invalid_text", "invalid")


def test_given_a_text_on_several_lines_when_raising_then_its_line_breaks_and_tabs_are_kept() -> None:
    (raised,) = given(finished()).when(raise_(reason="first line\r\n\tsecond line"), now=5.0).events
    assert raised.reason == "first line\r\n\tsecond line"


def test_given_a_lobby_when_raising_then_game_not_started() -> None:
    lobby = given(None, CREATED, ALICE, BOB)
    assert lobby.state is not None
    lobby.when(raise_(), now=5.0).then("game_not_started")


# -- moderating ---------------------------------------------------------------------------------


def test_given_an_open_dispute_when_claimed_then_claimed_and_another_moderator_is_refused() -> None:
    raised = given(finished()).when(raise_(), now=5.0)
    raised.when(ClaimDispute(dispute_id="d1", moderator=MOD), now=5.0).then(
        [DisputeClaimed(dispute_id="d1", moderator=MOD, at=5.0)]
    )
    table = claimed()
    assert table.disputes[0].status == "claimed" and table.disputes[0].claimed_by == MOD
    given(table).when(ClaimDispute(dispute_id="d1", moderator=MOD), now=5.0).then([])  # already its own
    refused = given(table).when(ClaimDispute(dispute_id="d1", moderator="max"), now=5.0)
    assert (refused.code, refused.kind) == ("dispute_claimed", "conflict")


def test_given_a_claimed_dispute_when_released_then_open_again() -> None:
    table = given(claimed())
    table.when(ReleaseDispute(dispute_id="d1", moderator="max"), now=5.0).then("dispute_not_claimed")
    released = table.when(ReleaseDispute(dispute_id="d1", moderator=MOD), now=5.0)
    released.then([DisputeReleased(dispute_id="d1", moderator=MOD, at=5.0)])
    after = released.state
    assert (after.disputes[0].status, after.disputes[0].claimed_by) == ("open", None)


def test_given_a_claim_of_a_revoked_moderator_when_the_server_releases_it_then_open_with_why() -> None:
    table = given(claimed())
    release = ReleaseRevokedClaim(dispute_id="d1", moderator=MOD)
    table.when(ReleaseRevokedClaim(dispute_id="d1", moderator="max"), now=5.0).then("dispute_not_claimed")
    released = table.when(release, now=5.0)
    released.then([DisputeReleased(dispute_id="d1", moderator=MOD, reason="moderator_revoked", at=5.0)])
    after = released.state
    assert (after.disputes[0].status, after.disputes[0].claimed_by) == ("open", None)


def test_given_a_moderator_named_as_a_seat_when_moderating_then_moderator_was_seated() -> None:
    raised = given(finished()).when(raise_(), now=5.0)
    refused = raised.when(ClaimDispute(dispute_id="d1", moderator="Alice"), now=5.0)
    assert (refused.code, refused.kind) == ("moderator_was_seated", "conflict")


def test_given_an_unknown_dispute_when_claimed_then_unknown_dispute() -> None:
    given(finished()).when(ClaimDispute(dispute_id="nope", moderator=MOD), now=5.0).then("unknown_dispute")


def test_given_a_dispute_when_a_note_is_written_then_noted_without_changing_the_state() -> None:
    raised = given(finished()).when(raise_(), now=5.0)
    noted = raised.when(NoteDispute(dispute_id="d1", moderator=MOD, text="looks fine"), now=5.0)
    noted.then([DisputeNoted(dispute_id="d1", moderator=MOD, text="looks fine", at=5.0)])
    assert noted.state.disputes == raised.state.disputes


def test_given_a_claimed_dispute_when_a_seat_is_asked_then_it_may_reply_once() -> None:
    ask = AskSeat(dispute_id="d1", moderator=MOD, seat=0, text="did you shuffle?")
    asked = given(claimed()).when(ask, now=5.0)
    asked.then([QuestionAsked(dispute_id="d1", seat=0, moderator=MOD, text="did you shuffle?", at=5.0)])
    asked.when(ReplyToQuestion(dispute_id="d1", seat=1, holder="b1", text="me?"), now=5.0).then("not_asked")
    answer = ReplyToQuestion(dispute_id="d1", seat=0, holder="a1", text="yes")
    answered = asked.when(answer, now=5.0)
    answered.then([QuestionAnswered(dispute_id="d1", seat=0, text="yes", at=5.0)])
    answered.when(answer, now=5.0).then("not_asked")


def test_given_an_unclaimed_dispute_when_asking_or_resolving_then_dispute_not_claimed() -> None:
    raised = given(finished()).when(raise_(), now=5.0)
    ask = AskSeat(dispute_id="d1", moderator=MOD, seat=0, text="?")
    raised.when(ask, now=5.0).then("dispute_not_claimed")
    raised.when(resolve(), now=5.0).then("dispute_not_claimed")


# -- ruling -------------------------------------------------------------------------------------


def test_given_a_dismissal_when_resolved_then_nothing_changes_but_the_status() -> None:
    table = given(claimed()).when(resolve(verdict="dismissed", action=None), now=5.0).state
    assert table.disputes[0].status == "resolved" and table.ruled_outcome is None
    assert table.final_outcome == table.outcome


@pytest.mark.parametrize(
    ("action", "seats", "ruled"),
    [
        ("none", (), None),
        ("void", (), Outcome(winners=())),
        ("award", (1,), Outcome(winners=(1,))),
    ],
)
def test_given_an_upheld_verdict_when_resolved_then_the_ruled_outcome_follows_its_action(
    action: str, seats: tuple[int, ...], ruled: Outcome | None
) -> None:
    before = claimed()
    table = given(before).when(resolve(action=action, seats=seats), now=5.0).state
    assert table.outcome == before.outcome  # the original stays
    assert table.ruled_outcome == ruled
    assert table.final_outcome == (ruled or before.outcome)


def test_given_a_penalty_when_resolved_then_the_seat_gets_a_mark() -> None:
    table = given(claimed()).when(resolve(action="penalize", seats=(0,)), now=5.0).state
    assert table.penalties == (1, 0) and table.ruled_outcome is None


@pytest.mark.parametrize(
    "changes",
    [
        {"verdict": "dismissed", "action": "void"},
        {"verdict": "dismissed", "action": None, "seats": (1,)},
        {"action": None},
        {"action": "award", "seats": ()},
        {"action": "penalize", "seats": (7,)},
        {"action": "void", "seats": (1,)},
    ],
)
def test_given_an_inconsistent_ruling_when_resolved_then_invalid_ruling(changes: dict[str, Any]) -> None:
    refused = given(claimed()).when(resolve(**changes), now=5.0)
    assert (refused.code, refused.kind) == ("invalid_ruling", "invalid")


def test_given_a_running_game_when_voided_then_game_not_finished() -> None:
    raised = given(running()).when(raise_(window_closes_at=None), now=5.0)
    claimed_ = raised.when(ClaimDispute(dispute_id="d1", moderator=MOD), now=5.0)
    claimed_.when(resolve(action="void"), now=5.0).then("game_not_finished")
    assert len(claimed_.when(resolve(action="penalize", seats=(1,)), now=5.0).events) == 1


def test_given_a_resolved_dispute_when_ruled_again_then_dispute_resolved_and_a_review_is_a_new_dispute() -> (
    None
):
    resolved = given(claimed()).when(resolve(action="void"), now=5.0)
    resolved.when(resolve(), now=5.0).then("dispute_resolved")
    resolved.when(ClaimDispute(dispute_id="d1", moderator=MOD), now=5.0).then("dispute_resolved")
    review = OpenReview(dispute_id="d1", moderator="max", review_id="r1", reason="second look")
    reviewed = resolved.when(review, now=5.0)
    [event] = reviewed.events
    assert event == DisputeRaised(
        dispute_id="r1",
        seqs=(3,),
        category="rules",
        reason="second look",
        review_of="d1",
        moderator="max",
        at=5.0,
    )
    table = (
        reviewed.when(ClaimDispute(dispute_id="r1", moderator="max"), now=5.0)
        .when(resolve(dispute_id="r1", moderator="max", action="award", seats=(0,)), now=5.0)
        .state
    )
    assert table.ruled_outcome == Outcome(winners=(0,))


def test_given_an_open_dispute_when_a_review_is_opened_then_dispute_not_resolved() -> None:
    raised = given(finished()).when(raise_(), now=5.0)
    review = OpenReview(dispute_id="d1", moderator=MOD, review_id="r1", reason="again")
    raised.when(review, now=5.0).then("dispute_not_resolved")


# -- who reads what -----------------------------------------------------------------------------


def test_a_reason_reaches_the_raiser_and_moderators_only() -> None:
    [raised] = given(finished()).when(raise_(), now=5.0).events
    assert redact(raised, Seat(1)) == raised and redact(raised, MODERATOR) == raised
    assert redact(raised, Seat(0)) == DisputeRaised(dispute_id="d1", category="rules", at=5.0)
    assert redact(raised, SPECTATOR) == DisputeRaised(dispute_id="d1", at=5.0)


def test_a_note_reaches_moderators_only_and_a_question_its_seat() -> None:
    note = DisputeNoted(dispute_id="d1", moderator=MOD, text="secret", at=5.0)
    for viewer in (Seat(0), Seat(1), SPECTATOR):
        assert redact(note, viewer) == DisputeNoted(dispute_id="d1", at=5.0)
    asked = QuestionAsked(dispute_id="d1", seat=0, moderator=MOD, text="why?", at=5.0)
    assert redact(asked, Seat(0)) == asked
    assert redact(asked, Seat(1)) == QuestionAsked(dispute_id="d1", seat=0, at=5.0)


def test_a_ruling_is_public() -> None:
    ruling = DisputeResolved(dispute_id="d1", verdict="upheld", action="void", explanation="e", moderator=MOD)
    assert all(redact(ruling, viewer) == ruling for viewer in (Seat(0), SPECTATOR))
