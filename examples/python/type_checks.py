"""What the generated client's types refuse: checked by ``mypy --strict`` (tests/e2e/test_clients.py).

Each ``# type: ignore[...]`` marks a line that must NOT type-check: strict mode's
warn_unused_ignores fails the check if one of them ever does (mypy's counterpart of TypeScript's
``@ts-expect-error``). The lines without one must type-check.
"""

from __future__ import annotations

from playlog_client.models import (
    ARiskCatCreateGame,
    ARiskCatCreateGameKind,
    ARiskCatSeatViewOut,
    DrawCard,
    DrawCardType,
    DrawToken,
    DrawTokenType,
    ExplodingKittensCreateGame,
    ExplodingKittensCreateGameKind,
    ExplodingKittensOptions,
    ExplodingKittensSeatViewOut,
    GameKind,
    Problem,
    SendCommandResponse409,
    SendCommandResponse422,
    SendCommandResponse422Code,
)


def commands_of_the_seat_s_game(view: ExplodingKittensSeatViewOut | ARiskCatSeatViewOut) -> None:
    if isinstance(view, ExplodingKittensSeatViewOut) and view.view is not None:
        view.view.legal_commands.append(DrawCard(type_=DrawCardType.DRAWCARD))
        # A Risk Cat's command where Exploding Kittens' are expected:
        view.view.legal_commands.append(DrawToken(type_=DrawTokenType.DRAWTOKEN))  # type: ignore[arg-type]
    if isinstance(view, ARiskCatSeatViewOut) and view.view is not None:
        view.view.legal_commands.append(DrawToken(type_=DrawTokenType.DRAWTOKEN))
        view.view.legal_commands.append(DrawCard(type_=DrawCardType.DRAWCARD))  # type: ignore[arg-type]


def options_of_the_game_s_kind() -> None:
    ExplodingKittensCreateGame(
        kind=ExplodingKittensCreateGameKind.EXPLODING_KITTENS, options=ExplodingKittensOptions(players=2)
    )
    # Exploding Kittens' options under A Risk Cat:
    ARiskCatCreateGame(
        kind=ARiskCatCreateGameKind.A_RISK_CAT,
        options=ExplodingKittensOptions(players=2),  # type: ignore[arg-type]
    )
    ExplodingKittensCreateGame(
        kind=ARiskCatCreateGameKind.A_RISK_CAT,  # type: ignore[arg-type]
        options=ExplodingKittensOptions(players=2),
    )
    # A game without its options (the server would answer 422 invalid_options):
    ExplodingKittensCreateGame(kind=ExplodingKittensCreateGameKind.EXPLODING_KITTENS)  # type: ignore[call-arg]
    GameKind("chess")  # a valid call: the enum refuses it at run time (ValueError)


def every_refusal_has_its_code(problem: Problem) -> str:
    code: str = problem.code
    _ = problem.status_code  # type: ignore[attr-defined]  # Litestar's shape, never sent
    return code


def a_refused_command_s_code_is_one_of_its_response_s(refused: SendCommandResponse422) -> str:
    refused.code = SendCommandResponse422Code.WINDOW_CLOSED  # a game's rule code is listed
    refused.code = "no_such_code"  # type: ignore[assignment]
    conflict: SendCommandResponse409 = refused  # type: ignore[assignment]  # another status's codes
    _ = conflict
    return refused.code.value
