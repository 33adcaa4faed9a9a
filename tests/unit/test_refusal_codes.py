"""Each game declares every refusal code its rules can raise, no more (domain/<game>/about.py):
the OpenAPI document lists them as the enum of a refused command's ``code``. The reading of the
sources is the conformance kit's (tests/conformance/codes.py)."""

from __future__ import annotations

import pytest

from domain import registry
from tests.conformance.codes import declared_codes_are_raised_codes


@pytest.mark.parametrize("kind", sorted(registry.games()))
def test_a_game_declares_exactly_the_codes_its_rules_raise(kind: str) -> None:
    declared_codes_are_raised_codes(registry.games()[kind])


@pytest.mark.parametrize("kind", sorted(registry.games()))
def test_a_game_s_races_are_refusals_it_declares(kind: str) -> None:
    about = registry.games()[kind].about
    assert about is not None
    assert about.race_codes <= about.refusal_codes
