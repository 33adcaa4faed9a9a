"""The projector may go straight from one table of a game to a later one (service/readmodels/projector.py,
``ReadModels._jump``) while the game's status stays the same, and folds the events it reads in
runs of one status (``ReadModels._apply``): the read models then change as if every event in
between had been folded one by one. No database."""

from __future__ import annotations

import itertools
import random
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.table.state import Table
from projections import read_models
from projections import table as tables
from projections.read_models import BatchChanges
from service.readmodels.models import ReadModels
from service.store.events import StoredEvent
from tests.unit.disputes.test_dispute_decider import given as given_table
from tests.unit.disputes.test_rulings_in_read_models import CLAIMED, RAISED, conceded, ruled
from tests.unit.test_replay import OPTIONS, random_game

GAME = uuid.uuid4()
AT = datetime(2026, 12, 1, tzinfo=UTC)


def effect(batch: BatchChanges) -> tuple[Any, ...]:
    """What a batch writes."""
    return batch.lobby, batch.player_games, batch.disputes


def one_by_one(path: list[Table]) -> BatchChanges:
    """The changes of each step of ``path`` (of its one step: a jump from its first to its last)."""
    batch = BatchChanges()
    for before, after in itertools.pairwise(path):
        batch.add(read_models.changes(GAME, before, after, AT))
    return batch


def tables_of(kind: str, seed: int) -> list[Table]:
    """The table after each event of a random game, folded as the projector folds."""
    raws, _ = random_game(kind, seed)
    table: Table | None = None
    path = []
    for raw in raws:
        table, _ = tables.step(table, raw.type, raw.data, raw.schema_version)
        path.append(table)
    return path


@pytest.mark.parametrize("kind", sorted(OPTIONS))
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), cut=st.integers(0, 10**6))
def test_a_jump_within_one_status_changes_the_read_models_as_folding_each_event(
    kind: str, seed: int, cut: int
) -> None:
    path = tables_of(kind, seed)
    rng = random.Random(cut)
    for _ in range(20):
        i, j = sorted(rng.sample(range(len(path)), 2))
        if path[i].status != path[j].status:
            continue
        assert effect(one_by_one([path[i], path[j]])) == effect(one_by_one(path[i : j + 1]))


def dispute_path(**ruling: Any) -> list[Table]:
    """Ann wins when ben concedes; ben disputes it, mia claims it and rules."""
    finished = conceded()
    raised = given_table(finished).when(RAISED, now=5.0)
    claimed = raised.when(CLAIMED, now=5.0)
    return [finished, raised.state, claimed.state, ruled(claimed.state, **ruling)]


@pytest.mark.parametrize(
    "ruling",
    [
        {"verdict": "upheld", "action": "penalize", "seats": (1,)},
        {"verdict": "upheld", "action": "award", "seats": (1,)},
        {"verdict": "upheld", "action": "void"},
        {"verdict": "dismissed"},
    ],
)
def test_a_jump_over_a_dispute_and_its_ruling_changes_the_read_models_as_folding_each_event(
    ruling: dict[str, Any],
) -> None:
    path = dispute_path(**ruling)
    assert {t.status for t in path} == {"finished"}
    assert effect(one_by_one([path[0], path[-1]])) == effect(one_by_one(path))


@pytest.mark.parametrize("kind", sorted(OPTIONS))
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), start=st.integers(0, 10**6))
def test_folding_in_runs_of_one_status_changes_the_read_models_as_folding_each_event(
    kind: str, seed: int, start: int
) -> None:
    raws, _ = random_game(kind, seed)
    stored = [
        StoredEvent(
            GAME, n, raw.type, raw.schema_version, raw.data, "{}", AT + timedelta(seconds=n), b"", b""
        )
        for n, raw in enumerate(raws, 1)
    ]
    path = tables_of(kind, seed)
    first = start % len(path)  # fold from a table the read models hold, or from none
    table: Table | None = path[first - 1] if first else None
    expected = BatchChanges()
    for event, after in zip(stored[first:], path[first:], strict=True):
        expected.add(read_models.changes(GAME, table, after, event.recorded_at))
        table = after
    batch = BatchChanges()
    folded = ReadModels._apply(batch, path[first - 1] if first else None, stored[first:])
    assert folded == path[-1]
    assert effect(batch) == effect(expected)
