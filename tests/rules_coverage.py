# ruff: noqa: E501  (a table of long test names)
"""Every rule and decision line of RULES.md (the binding rules digest), with the tests proving it.

RULES.md lives outside the repository, so each line is kept here by id and a short text.
``tests/unit/test_rules_coverage.py`` fails the suite when a line names no test or names a test
that does not exist. Test references are ``<path from the repository's root>::<test function>``. When RULES.md
gains or changes a line, change this table with it.
"""

from __future__ import annotations

from types import ModuleType
from typing import NamedTuple

from domain import registry
from tests.declared import declared


class Rule(NamedTuple):
    id: str
    text: str
    tests: tuple[str, ...]


E2E = "tests/e2e/"
UNIT = "tests/unit/"
HTTP_RULES = E2E + "test_rules_decisions_over_http.py::"
LEAKS = E2E + "test_numbering_leaks.py::"
# The conformance kit: random games of every game, every promise checked at every step.
KIT = "tests/conformance/test_conformance.py::test_random_games_keep_secrets_replay_draw_fairly_conserve_and_offer_what_is_accepted"

# The lines every game shares (sections 0 and 3); each game adds its tests of them.
SHARED: tuple[Rule, ...] = (
    Rule("0.enforced", "every rule is enforced by the server: the client is never trusted", ()),
    Rule(
        "3.not-waited",
        "a command from a seat the game is not waiting for is refused (reactions excepted)",
        (E2E + "test_api_errors.py::test_not_your_turn",),
    ),
    Rule(
        "3.refused-nothing",
        "a refused command changes nothing and appends nothing",
        (E2E + "test_api_errors.py::test_stale_expected_version_is_409_with_the_current_version",),
    ),
    Rule(
        "3.timeout-option",
        "decision_timeout (default off): the server acts; the choice is marked by_server",
        (
            HTTP_RULES + "test_exploding_kittens_deadline_is_acted_on_by_the_scheduler_over_http",
            HTTP_RULES + "test_a_risk_cat_deadline_is_acted_on_by_the_scheduler_over_http",
        ),
    ),
    Rule(
        "3.timeout-ek",
        "EK: draw / random Kitten position / random card given / uniform eligible discard pick",
        (),
    ),
    Rule(
        "3.timeout-arc",
        "ARC: draw first, decline a steal, keep a Cat, deal back, ladies take nothing, stop as obtained",
        (),
    ),
    Rule(
        "3.timeout-robin-tie",
        "ARC: Robin Tell's tied target on timeout: the first in seat order after the chooser",
        (),
    ),
    Rule(
        "3.concede-arc",
        "ARC: leaving concedes; its turns are skipped",
        (HTTP_RULES + "test_a_risk_cat_leaving_concedes_and_the_last_seat_standing_ends_the_game_over_http",),
    ),
    Rule(
        "3.concede-arc-decisions",
        "ARC: the conceding seat's pending decisions resolve with the timeout choice",
        (),
    ),
    Rule(
        "3.concede-arc-stack",
        "ARC: a conceded stack stays (stealable, reachable by powers) and is scored",
        (),
    ),
    Rule("3.concede-arc-win", "ARC: a conceded seat cannot win", ()),
    Rule(
        "3.concede-arc-end",
        "ARC: with fewer than two seats not conceded the game ends at once and is scored",
        (HTTP_RULES + "test_a_risk_cat_leaving_concedes_and_the_last_seat_standing_ends_the_game_over_http",),
    ),
    Rule(
        "3.creation",
        "player counts out of range, unknown options and bad values are refused at creation",
        (E2E + "test_api_errors.py::test_bad_options_are_refused_at_creation",),
    ),
    Rule(
        "3.no-inference-numbers",
        "nothing hidden is inferable from versions, seqs, stream ids or cursors",
        (
            LEAKS + "test_a_pass_changes_nothing_another_seat_or_a_spectator_can_read",
            LEAKS + "test_expected_version_refuses_only_what_the_seat_can_see",
            LEAKS + "test_after_passes_every_viewer_reads_gapless_numbers_and_resumes_in_them",
            KIT,
        ),
    ),
    Rule("3.no-inference-errors", "nor from error messages", ()),
    Rule("3.no-inference-offers", "nor from which commands a viewer is offered", ()),
    Rule(
        "3.no-trace",
        "an event hidden from a viewer leaves no trace in anything it can read",
        (
            LEAKS + "test_a_pass_changes_nothing_another_seat_or_a_spectator_can_read",
            KIT,
        ),
    ),
)


def rules() -> tuple[Rule, ...]:
    """Every line: the shared ones (sections 0 and 3) and every registered game's (its folder's
    ``tests/rules.py``: ``RULES``, and its tests of the shared lines, ``EVERY_GAME``)."""
    games = [_declared(kind) for kind in registry.games()]
    shared = [
        rule._replace(tests=rule.tests + tuple(t for game in games for t in game.EVERY_GAME.get(rule.id, ())))
        for rule in SHARED
    ]
    first = [rule for rule in shared if rule.id.startswith("0.")]
    return (*first, *(rule for game in games for rule in game.RULES), *(r for r in shared if r not in first))


def sections() -> tuple[str, ...]:
    """The sections of RULES.md the lines must cover: every registered game's, and the shared one."""
    return (*(s for kind in registry.games() for s in _declared(kind).SECTIONS), "3.")


def _declared(kind: str) -> ModuleType:
    module = declared(kind, "rules")
    if module is None:
        raise LookupError(f"The game {kind!r} declares no RULES.md lines (its folder's tests/rules.py).")
    return module
