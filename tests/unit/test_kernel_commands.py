"""The kernel's two commands, one name in every game (issue 39): the server's ``ActOnTimeout`` and
a seat's ``Concede``; the tags the games once sent them under still read, from a client's body as
from a recorded command."""

from __future__ import annotations

from typing import get_args

import msgspec
import pytest

from domain import registry
from domain.decider import ActOnTimeout, Concede
from domain.table.commands import Play
from projections import commands

OLD_TAGS = [("exploding_kittens", "Leave", Concede()), ("a_risk_cat", "ARiskCatActOnTimeout", ActOnTimeout())]


@pytest.mark.parametrize("kind", sorted(registry.games()))
def test_every_game_takes_the_kernels_timeout_and_concede_under_no_old_tag(kind: str) -> None:
    union = get_args(registry.get(kind).types.command)
    assert ActOnTimeout in union and Concede in union
    tags = {registry.tag_of(member) for member in union}
    assert not tags & set(registry.get(kind).versions.renamed_commands), "an old tag is no tag of today"


@pytest.mark.parametrize(("kind", "old", "today"), OLD_TAGS)
def test_given_an_old_tag_when_a_client_sends_it_then_it_reads_as_todays_command(
    kind: str, old: str, today: object
) -> None:
    assert registry.of(kind).commands.decode(msgspec.json.encode({"type": old})) == today


@pytest.mark.parametrize(("kind", "old", "today"), OLD_TAGS)
def test_given_an_old_tag_in_a_recorded_command_when_decoded_then_it_reexecutes_as_todays(
    kind: str, old: str, today: object
) -> None:
    recorded = msgspec.json.encode({"type": "table.play", "seat": 1, "command": {"type": old}})
    assert commands.decode(kind, recorded) == Play(seat=1, command=today)


def test_given_an_unknown_tag_when_decoded_then_the_decoders_own_error_names_the_field() -> None:
    with pytest.raises(msgspec.ValidationError, match=r"\$\.type"):
        registry.of("exploding_kittens").commands.decode(b'{"type": "Leav"}')


def test_given_another_games_old_tag_then_it_is_that_games_command_not_a_malformed_body() -> None:
    assert "Leave" in registry.of("a_risk_cat").foreign_commands
    assert "ARiskCatActOnTimeout" in registry.of("exploding_kittens").foreign_commands
    with pytest.raises(msgspec.ValidationError):
        registry.of("a_risk_cat").commands.decode(b'{"type": "Leave"}')
