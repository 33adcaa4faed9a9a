"""The golden corpus replays unchanged: every recorded game, every seq, under today's code.

A failure here means a change altered how an old game replays. If that was not meant, fix the
change. If it was (a new event shape, a new view field), old events must still read as they did:
add an upcaster (domain/*/upcasters.py) and, only for a deliberate change of views, regenerate
the expected files (``python -m tests.golden.record --expected-only``) and review their diff.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from projections.export import verify as export_verify
from tests.golden.corpus import configs, expectations, load_expected, load_export, names

CORPUS = names()


def _first_difference(expected: Any, actual: Any, path: str = "") -> str | None:
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual), key=str):
            found = _first_difference(expected.get(key), actual.get(key), f"{path}/{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found = _first_difference(e, a, f"{path}/{i}")
            if found:
                return found
        return None
    return None if expected == actual else f"{path or '/'}: expected {expected!r}, got {actual!r}"


def test_the_corpus_covers_every_kind_edition_mode_and_player_count() -> None:
    recorded = {name.rsplit("-", 1)[0] for name in CORPUS}
    assert recorded == {c.name for c in configs()}
    assert len(CORPUS) >= 48


@pytest.mark.parametrize("name", CORPUS)
def test_a_recorded_game_replays_to_the_same_states_views_and_outcome(name: str) -> None:
    export = load_export(name)
    # Recorded before commands were: checked at the replay level, and said so; accepted only
    # when asked (``playlog verify --accept-level replayed``).
    refused = export_verify.verify(export)
    assert not refused.ok and not refused.findings, refused.lines()
    assert "level:       replayed (no recorded commands): NOT ACCEPTED" in refused.lines()
    assert refused.lines()[-1].startswith("UNVERIFIED: the level replayed")
    report = export_verify.verify(export, accept=("replayed",))
    assert report.ok, report.lines()
    assert report.level == "replayed" and "level:       replayed (no recorded commands)" in report.lines()
    expected = load_expected(name)
    actual = msgspec.json.decode(msgspec.json.encode(expectations(export)))
    digests = expected["digests"]
    for seq, (want, got) in enumerate(zip(digests, actual["digests"], strict=False), start=1):
        assert want == got, f"{name}: the state after seq {seq} differs from the recorded one"
    assert len(digests) == len(actual["digests"])
    difference = _first_difference(expected, actual)
    assert difference is None, f"{name}: {difference}"
