"""RULES 3 / 1.7: a pass leaves no trace in what other viewers can read, numbers included.

Each viewer's numbering (projections/numbering) counts only the events it may see.
"""

from __future__ import annotations

import random
from typing import Any

from domain.decider import Context
from domain.exploding_kittens import DECIDER
from domain.exploding_kittens.commands import PassReaction, PlayCard
from domain.exploding_kittens.events import ReactionPassed
from domain.exploding_kittens.tests.builders import SF
from domain.viewers import MODERATOR, SPECTATOR, Seat, Viewer
from projections import table as tables
from projections.envelopes import envelopes
from projections.numbering import version_for
from projections.table import GameCreated, GameStarted, SeatJoined, Table


def _log() -> list[Any]:
    """A 3-player game: seat 0 plays See the Future in a 10 s window (seq 6 + setup)."""
    options = {"players": 3, "first_seat": 0, "reaction_window": 10.0}
    log: list[Any] = [
        GameCreated(
            kind="exploding_kittens", options=options, public=True, spectator_delay=0.0, created_at=0.0
        )
    ]
    log += [SeatJoined(seat=s, name=f"p{s}") for s in range(3)]
    log.append(GameStarted(started_at=0.0))
    table = tables.fold(log)
    assert table is not None
    log += DECIDER.start(table.state, Context(random.Random(7225), 0.0, None))
    state = tables.fold(log)
    assert state is not None
    hand = state.state.hands[0]
    card = SF if SF in hand else hand[1]
    log += DECIDER.decide(
        state.state,
        PlayCard(card=card, target=1 if card.value == "Favor" else None),
        Context(random.Random(1), 1.0, 0),
    )
    return log


def _table(log: list[Any]) -> Table:
    table = tables.fold(log)
    assert table is not None
    return table


def _seen(log: list[Any], viewer: Viewer) -> tuple[int, list[tuple[int, str]]]:
    """What ``viewer`` can read: its version and its numbered event list."""
    table = _table(log)
    shown = envelopes(table, [(i + 1, 0.0, e) for i, e in enumerate(log)], viewer)
    return version_for(table, viewer), [(e.seq, e.type) for e in shown]


def _passed(log: list[Any], seat: int) -> list[Any]:
    state = _table(log).state
    return [*log, *DECIDER.decide(state, PassReaction(), Context(random.Random(2), 2.0, seat))]


def test_1_7_public_window__a_pass_changes_no_number_another_seat_or_a_spectator_can_read() -> None:
    log = _log()
    assert _table(log).state.window is not None
    after = _passed(log, 1)
    assert isinstance(after[-1], ReactionPassed)
    for viewer in (Seat(0), Seat(2), SPECTATOR):
        assert _seen(after, viewer) == _seen(log, viewer)


def test_the_passing_seat_and_moderators_count_the_pass() -> None:
    log = _log()
    after = _passed(log, 1)
    version, events = _seen(after, Seat(1))
    assert version == len(after) and events[-1] == (len(after), "ReactionPassed")
    assert _seen(after, MODERATOR)[0] == len(after)


def test_3_no_inference_numbers__every_viewers_numbers_run_without_gaps_after_passes() -> None:
    log = _passed(_passed(_log(), 1), 2)  # both eligible seats passed: the window closed
    table = _table(log)
    assert table.state.window is None and table.private == (0, 1, 1)
    for viewer in (Seat(0), Seat(1), Seat(2), SPECTATOR, MODERATOR):
        version, events = _seen(log, viewer)
        assert [n for n, _ in events] == list(range(1, version + 1))
    assert _seen(log, SPECTATOR)[0] == len(log) - 2 and _seen(log, Seat(2))[0] == len(log) - 1


def test_3_no_trace__numbering_resumes_from_any_prefix() -> None:
    """Numbering a tail from the viewer's version before it gives the numbers of the whole log."""
    log = _passed(_passed(_log(), 1), 2)
    items = [(i + 1, 0.0, e) for i, e in enumerate(log)]
    for viewer in (Seat(1), Seat(2), SPECTATOR):
        whole = envelopes(_table(log), items, viewer)
        for cut in range(1, len(log)):
            before = version_for(_table(log[:cut]), viewer)
            tail = envelopes(_table(log), items[cut:], viewer, before)
            assert tail == [e for e in whole if e.seq > before]
