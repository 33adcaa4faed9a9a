"""The dispute rules as data: given these past events, when this command, then these events or
this refusal (domain/disputes, composed into the table). No database, no clock."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from domain.decider import Context, Outcome
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
from domain.table.commands import LeaveSeat, StartGame, TableCommand
from domain.table.events import GameCreated, SeatJoined
from domain.table.refusals import TableRefusal
from domain.table.state import Table
from domain.viewers import MODERATOR, SPECTATOR, Seat

KIND = "exploding_kittens"
RULES = for_kind(KIND)
CREATED = GameCreated(
    kind=KIND, options={"players": 2, "reaction_window": 0}, public=True, spectator_delay=0.0, created_at=1.0
)
ALICE = SeatJoined(seat=0, name="alice", occupancy="a1")
BOB = SeatJoined(seat=1, name="bob", occupancy="b1")
MOD = "mia"


def ctx(now: float = 5.0) -> Context:
    return Context(random.Random(7), now, None)


def when(table: Table, command: TableCommand, now: float = 5.0) -> Sequence[Any]:
    return RULES.decide(table, command, ctx(now))


def then(table: Table, command: TableCommand, now: float = 5.0) -> Table:
    """``table`` after ``command``'s events."""
    return RULES.fold(table, when(table, command, now)) or table


def refused(table: Table, command: TableCommand, now: float = 5.0) -> TableRefusal:
    with pytest.raises(TableRefusal) as caught:
        when(table, command, now)
    return caught.value


def running() -> Table:
    table = RULES.fold(None, [CREATED, ALICE, BOB])
    assert table is not None
    return then(table, StartGame())


def finished() -> Table:
    """Bob conceded: alice won."""
    table = then(running(), LeaveSeat(seat=1, holder="b1"))
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
    table = then(table or finished(), raise_())
    return then(table, ClaimDispute(dispute_id="d1", moderator=moderator))


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
    assert when(table, raise_(seqs=(4, 3, 3))) == [
        DisputeRaised(
            dispute_id="d1",
            seat=1,
            seqs=(3, 4),
            category="rules",
            reason="the kitten was not shuffled",
            at=5.0,
        )
    ]
    after = then(table, raise_())
    assert [(d.dispute_id, d.status, d.raised_seq) for d in after.disputes] == [
        ("d1", "open", table.version + 1)
    ]
    assert after.outcome == table.outcome and after.ruled_outcome is None


def test_given_a_running_game_when_a_seat_raises_then_it_is_accepted() -> None:
    assert len(when(running(), raise_(window_closes_at=None))) == 1


def test_given_another_holder_when_raising_then_not_seated() -> None:
    refusal = refused(finished(), raise_(holder="someone"))
    assert (refusal.code, refusal.kind) == ("not_seated", "forbidden")


@pytest.mark.parametrize("seqs", [(), (0,), (999,)])
def test_given_seqs_outside_the_log_when_raising_then_seq_out_of_range(seqs: tuple[int, ...]) -> None:
    refusal = refused(finished(), raise_(seqs=seqs))
    assert (refusal.code, refusal.kind) == ("seq_out_of_range", "invalid")


def test_given_the_window_has_closed_when_raising_then_dispute_window_closed() -> None:
    refusal = refused(finished(), raise_(window_closes_at=4.0))
    assert (refusal.code, refusal.kind) == ("dispute_window_closed", "conflict")


def test_given_three_open_disputes_when_raising_a_fourth_then_too_many_open_disputes() -> None:
    table = finished()
    for n in range(3):
        table = then(table, raise_(dispute_id=f"d{n}"))
    refusal = refused(table, raise_(dispute_id="d9"))
    assert (refusal.code, refusal.kind) == ("too_many_open_disputes", "conflict")
    assert len(when(table, raise_(seat=0, dispute_id="d9"))) == 1  # per seat


def test_given_a_long_reason_when_raising_then_reason_too_long() -> None:
    refusal = refused(finished(), raise_(reason="x" * 1001))
    assert (refusal.code, refusal.kind) == ("reason_too_long", "invalid")
    assert refused(finished(), raise_(reason="  ")).code == "invalid_text"


@pytest.mark.parametrize("text", ["a\x00b", "\x1b[31m", "a\x7f", "a\x85b", "\x0b"])
def test_given_a_control_character_in_a_text_when_written_then_invalid_text(text: str) -> None:
    assert refused(finished(), raise_(reason=text)).code == "invalid_text"
    table = then(finished(), raise_())
    refusal = refused(table, NoteDispute(dispute_id="d1", moderator=MOD, text=text))
    assert (refusal.code, refusal.kind) == ("invalid_text", "invalid")


def test_given_a_text_on_several_lines_when_raising_then_its_line_breaks_and_tabs_are_kept() -> None:
    (raised,) = when(finished(), raise_(reason="first line\r\n\tsecond line"))
    assert raised.reason == "first line\r\n\tsecond line"


def test_given_a_lobby_when_raising_then_game_not_started() -> None:
    table = RULES.fold(None, [CREATED, ALICE, BOB])
    assert table is not None
    assert refused(table, raise_()).code == "game_not_started"


# -- moderating ---------------------------------------------------------------------------------


def test_given_an_open_dispute_when_claimed_then_claimed_and_another_moderator_is_refused() -> None:
    table = then(finished(), raise_())
    assert when(table, ClaimDispute(dispute_id="d1", moderator=MOD)) == [
        DisputeClaimed(dispute_id="d1", moderator=MOD, at=5.0)
    ]
    table = claimed()
    assert table.disputes[0].status == "claimed" and table.disputes[0].claimed_by == MOD
    assert when(table, ClaimDispute(dispute_id="d1", moderator=MOD)) == []  # already its own
    refusal = refused(table, ClaimDispute(dispute_id="d1", moderator="max"))
    assert (refusal.code, refusal.kind) == ("dispute_claimed", "conflict")


def test_given_a_claimed_dispute_when_released_then_open_again() -> None:
    table = claimed()
    assert refused(table, ReleaseDispute(dispute_id="d1", moderator="max")).code == "dispute_not_claimed"
    assert when(table, ReleaseDispute(dispute_id="d1", moderator=MOD)) == [
        DisputeReleased(dispute_id="d1", moderator=MOD, at=5.0)
    ]
    after = then(table, ReleaseDispute(dispute_id="d1", moderator=MOD))
    assert (after.disputes[0].status, after.disputes[0].claimed_by) == ("open", None)


def test_given_a_claim_of_a_revoked_moderator_when_the_server_releases_it_then_open_with_why() -> None:
    table = claimed()
    release = ReleaseRevokedClaim(dispute_id="d1", moderator=MOD)
    assert refused(table, ReleaseRevokedClaim(dispute_id="d1", moderator="max")).code == "dispute_not_claimed"
    assert when(table, release) == [
        DisputeReleased(dispute_id="d1", moderator=MOD, reason="moderator_revoked", at=5.0)
    ]
    after = then(table, release)
    assert (after.disputes[0].status, after.disputes[0].claimed_by) == ("open", None)


def test_given_a_moderator_named_as_a_seat_when_moderating_then_moderator_was_seated() -> None:
    table = then(finished(), raise_())
    refusal = refused(table, ClaimDispute(dispute_id="d1", moderator="Alice"))
    assert (refusal.code, refusal.kind) == ("moderator_was_seated", "conflict")


def test_given_an_unknown_dispute_when_claimed_then_unknown_dispute() -> None:
    assert refused(finished(), ClaimDispute(dispute_id="nope", moderator=MOD)).code == "unknown_dispute"


def test_given_a_dispute_when_a_note_is_written_then_noted_without_changing_the_state() -> None:
    table = then(finished(), raise_())
    events = when(table, NoteDispute(dispute_id="d1", moderator=MOD, text="looks fine"))
    assert events == [DisputeNoted(dispute_id="d1", moderator=MOD, text="looks fine", at=5.0)]
    assert RULES.fold(table, events).disputes == table.disputes  # type: ignore[union-attr]


def test_given_a_claimed_dispute_when_a_seat_is_asked_then_it_may_reply_once() -> None:
    table = claimed()
    ask = AskSeat(dispute_id="d1", moderator=MOD, seat=0, text="did you shuffle?")
    assert when(table, ask) == [
        QuestionAsked(dispute_id="d1", seat=0, moderator=MOD, text="did you shuffle?", at=5.0)
    ]
    table = then(table, ask)
    assert (
        refused(table, ReplyToQuestion(dispute_id="d1", seat=1, holder="b1", text="me?")).code == "not_asked"
    )
    answer = ReplyToQuestion(dispute_id="d1", seat=0, holder="a1", text="yes")
    assert when(table, answer) == [QuestionAnswered(dispute_id="d1", seat=0, text="yes", at=5.0)]
    table = then(table, answer)
    assert refused(table, answer).code == "not_asked"


def test_given_an_unclaimed_dispute_when_asking_or_resolving_then_dispute_not_claimed() -> None:
    table = then(finished(), raise_())
    assert (
        refused(table, AskSeat(dispute_id="d1", moderator=MOD, seat=0, text="?")).code
        == "dispute_not_claimed"
    )
    assert refused(table, resolve()).code == "dispute_not_claimed"


# -- ruling -------------------------------------------------------------------------------------


def test_given_a_dismissal_when_resolved_then_nothing_changes_but_the_status() -> None:
    table = then(claimed(), resolve(verdict="dismissed", action=None))
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
    table = then(before, resolve(action=action, seats=seats))
    assert table.outcome == before.outcome  # the original stays
    assert table.ruled_outcome == ruled
    assert table.final_outcome == (ruled or before.outcome)


def test_given_a_penalty_when_resolved_then_the_seat_gets_a_mark() -> None:
    table = then(claimed(), resolve(action="penalize", seats=(0,)))
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
    refusal = refused(claimed(), resolve(**changes))
    assert (refusal.code, refusal.kind) == ("invalid_ruling", "invalid")


def test_given_a_running_game_when_voided_then_game_not_finished() -> None:
    table = then(running(), raise_(window_closes_at=None))
    table = then(table, ClaimDispute(dispute_id="d1", moderator=MOD))
    assert refused(table, resolve(action="void")).code == "game_not_finished"
    assert len(when(table, resolve(action="penalize", seats=(1,)))) == 1


def test_given_a_resolved_dispute_when_ruled_again_then_dispute_resolved_and_a_review_is_a_new_dispute() -> (
    None
):
    table = then(claimed(), resolve(action="void"))
    assert refused(table, resolve()).code == "dispute_resolved"
    assert refused(table, ClaimDispute(dispute_id="d1", moderator=MOD)).code == "dispute_resolved"
    review = OpenReview(dispute_id="d1", moderator="max", review_id="r1", reason="second look")
    [event] = when(table, review)
    assert event == DisputeRaised(
        dispute_id="r1",
        seqs=(3,),
        category="rules",
        reason="second look",
        review_of="d1",
        moderator="max",
        at=5.0,
    )
    table = RULES.fold(table, [event]) or table
    table = then(table, ClaimDispute(dispute_id="r1", moderator="max"))
    table = then(table, resolve(dispute_id="r1", moderator="max", action="award", seats=(0,)))
    assert table.ruled_outcome == Outcome(winners=(0,))


def test_given_an_open_dispute_when_a_review_is_opened_then_dispute_not_resolved() -> None:
    table = then(finished(), raise_())
    review = OpenReview(dispute_id="d1", moderator=MOD, review_id="r1", reason="again")
    assert refused(table, review).code == "dispute_not_resolved"


# -- who reads what -----------------------------------------------------------------------------


def test_a_reason_reaches_the_raiser_and_moderators_only() -> None:
    [raised] = when(finished(), raise_())
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
