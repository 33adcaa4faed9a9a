"""What a seat (or the server) may ask: one tagged union, imperatives."""

from __future__ import annotations

from collections.abc import Mapping

from domain.decider import ActOnTimeout, Command, Concede


class DrawToken(Command, frozen=True, kw_only=True):
    """Draw one token from the bag (the first draw of a turn, or draw again)."""


class StopAndStack(Command, frozen=True, kw_only=True):
    """Stop: this turn's tokens go on top of the seat's stack, listed bottom to top."""

    order: list[str]


class StealRuns(Command, frozen=True, kw_only=True):
    """Answer a steal: the seats whose matching runs are taken (all of a run or none); [] declines."""

    from_seats: list[int]


class TakeMusicianCats(Command, frozen=True, kw_only=True):
    """Musician Cat option (a): take every other stack's top run of Musician Cats."""


class SwapMusicianCat(Command, frozen=True, kw_only=True):
    """Musician Cat option (b): swap the drawn Cat for the top token of another seat's stack."""

    with_seat: int


class KeepMusicianCat(Command, frozen=True, kw_only=True):
    """Musician Cat option (c): keep the drawn Cat."""


class ChooseRobinTellTarget(Command, frozen=True, kw_only=True):
    """Robin Tell: pick which of the equally richest stacks is robbed."""

    seat: int


class DealRobinTellToken(Command, frozen=True, kw_only=True):
    """Robin Tell: deal the robbed pile's top token onto the top of this seat's stack."""

    to_seat: int


class TakeTokenForLadies(Command, frozen=True, kw_only=True):
    """The three ladies: take the top token of another seat's stack (up to four in all)."""

    from_seat: int


class DismissLadies(Command, frozen=True, kw_only=True):
    """The three ladies: take no more tokens."""


ARiskCatCommand = (
    DrawToken
    | StopAndStack
    | StealRuns
    | TakeMusicianCats
    | SwapMusicianCat
    | KeepMusicianCat
    | ChooseRobinTellTarget
    | DealRobinTellToken
    | TakeTokenForLadies
    | DismissLadies
    | ActOnTimeout  # the kernel's (domain/decider.py): once the pending decision's deadline has passed
    | Concede  # the kernel's (RULES 3): any seat that has not conceded, at any time
)

COMMAND_TYPES: tuple[type[Command], ...] = (
    DrawToken,
    StopAndStack,
    StealRuns,
    TakeMusicianCats,
    SwapMusicianCat,
    KeepMusicianCat,
    ChooseRobinTellTarget,
    DealRobinTellToken,
    TakeTokenForLadies,
    DismissLadies,
    ActOnTimeout,
    Concede,
)

# The tags this game's commands were once sent under -> today's (domain/decider.py): a client's
# body or a recorded command under an old tag is read as today's command.
RENAMED_COMMANDS: Mapping[str, str] = {"ARiskCatActOnTimeout": "ActOnTimeout"}
