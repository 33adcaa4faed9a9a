"""What happened: one tagged union of facts in the past tense.

Every event may carry ``awaiting`` (the decision the game waits for after it, public) and
``deadline`` (when the server answers that decision itself, or None). Within the events of one
command only the last carries them. Fields documented as *hidden* are blanked by ``redact`` for
everyone but moderators.
"""

from __future__ import annotations

import msgspec

from domain.a_risk_cat.state import ARiskCatPending, Mode
from domain.decider import Event


class ARiskCatEvent(Event, frozen=True, kw_only=True):
    awaiting: ARiskCatPending | None = None
    deadline: float | None = None


class StolenRun(msgspec.Struct, frozen=True, kw_only=True):
    """A run of identical tokens taken from the top of ``from_seat``'s stack (listed top first)."""

    from_seat: int
    tokens: tuple[str, ...]


class ARiskCatGameSetUp(ARiskCatEvent, frozen=True, kw_only=True):
    """Tokens in the bag, shuffled; the first seat chosen. ``bag`` (top first) and ``salt`` hidden."""

    players: int
    mode: Mode
    first_seat: int
    removed_paintings: tuple[int, ...]
    bag_size: int
    commitment: str
    bag: tuple[str, ...] = ()
    salt: str = ""


class ARiskCatTurnStarted(ARiskCatEvent, frozen=True, kw_only=True):
    seat: int
    turn_number: int


class TokenDrawn(ARiskCatEvent, frozen=True, kw_only=True):
    """The bag's top token, now in front of the seat. ``spared``: a duplicate the Cheater forgave.

    ``triggers``: the tokens (this one) whose power triggers (full mode)."""

    seat: int
    token: str
    spared: bool = False
    triggers: tuple[str, ...] = ()
    by_server: bool = False


class TurnBusted(ARiskCatEvent, frozen=True, kw_only=True):
    """A duplicate: every token obtained this turn (``returned``, public) goes back into the bag,
    which is reshuffled. ``bag`` (new order, top first) and ``salt`` hidden."""

    seat: int
    token: str
    returned: tuple[str, ...]
    bag_size: int
    commitment: str
    bag: tuple[str, ...] = ()
    salt: str = ""


class RunsStolen(ARiskCatEvent, frozen=True, kw_only=True):
    """The answer to a steal: the runs taken (none = declined)."""

    seat: int
    runs: tuple[StolenRun, ...]
    triggers: tuple[str, ...] = ()
    by_server: bool = False


class MusicianCatsTaken(ARiskCatEvent, frozen=True, kw_only=True):
    """Musician Cat option (a): every other Cat-topped stack's run of Cats."""

    seat: int
    runs: tuple[StolenRun, ...]


class MusicianCatSwapped(ARiskCatEvent, frozen=True, kw_only=True):
    """Musician Cat option (b): ``cat`` went on top of ``with_seat``'s stack, ``token`` joined."""

    seat: int
    with_seat: int
    cat: str
    token: str
    triggers: tuple[str, ...] = ()


class MusicianCatKept(ARiskCatEvent, frozen=True, kw_only=True):
    """Musician Cat option (c)."""

    seat: int
    token: str
    by_server: bool = False


class CheaterArmed(ARiskCatEvent, frozen=True, kw_only=True):
    """The Cheater's power: the next duplicate drawn this turn is spared."""

    seat: int
    token: str


class BankerReturned(ARiskCatEvent, frozen=True, kw_only=True):
    """The Banker's power: the top ``count`` tokens of the seat's stack went back into the bag
    (``blocked``: an Angel on top prevented it). ``returned``, ``bag`` and ``salt`` hidden."""

    seat: int
    token: str
    count: int
    blocked: bool
    new_top: str | None
    stack_size: int
    bag_size: int
    commitment: str
    returned: tuple[str, ...] = ()
    bag: tuple[str, ...] = ()
    salt: str = ""


class RobinTellTriggered(ARiskCatEvent, frozen=True, kw_only=True):
    """Robin Tell's power. ``candidates``: the richest eligible stacks (none: no effect). With one
    candidate it is robbed at once (``robbed_seat``, ``count``, ``pile_top``); with several the
    seat chooses. ``pile`` (the robbed stack, bottom to top) hidden."""

    seat: int
    token: str
    candidates: tuple[int, ...]
    robbed_seat: int | None = None
    count: int = 0
    pile_top: str | None = None
    pile: tuple[str, ...] = ()


class RobinTellTargetChosen(ARiskCatEvent, frozen=True, kw_only=True):
    """Among equally rich stacks, ``robbed_seat``'s was taken. ``pile`` hidden."""

    seat: int
    robbed_seat: int
    count: int
    pile_top: str
    pile: tuple[str, ...] = ()
    by_server: bool = False


class RobinTellTokenDealt(ARiskCatEvent, frozen=True, kw_only=True):
    """The robbed pile's top ``token`` went on top of ``to_seat``'s stack; ``next_token`` is the
    pile's new top (public), None once the pile is dealt out."""

    seat: int
    token: str
    to_seat: int
    remaining: int
    next_token: str | None
    by_server: bool = False


class LadiesAssembled(ARiskCatEvent, frozen=True, kw_only=True):
    """``token`` completed the Swimmer, the Writer and the Fortune Teller this turn."""

    seat: int
    token: str


class LadyTookToken(ARiskCatEvent, frozen=True, kw_only=True):
    """The three ladies: the top ``token`` of ``from_seat``'s stack joined this turn's tokens."""

    seat: int
    from_seat: int
    token: str
    triggers: tuple[str, ...] = ()


class LadiesDismissed(ARiskCatEvent, frozen=True, kw_only=True):
    """The three ladies are done (``taken`` tokens in all)."""

    seat: int
    taken: int
    by_server: bool = False


class TurnStopped(ARiskCatEvent, frozen=True, kw_only=True):
    """This turn's ``count`` tokens went on top of the seat's stack; ``new_top`` public, ``order``
    (bottom to top) hidden."""

    seat: int
    count: int
    new_top: str
    stack_size: int
    order: tuple[str, ...] = ()
    by_server: bool = False


class SeatConceded(ARiskCatEvent, frozen=True, kw_only=True):
    """The seat left the game (RULES 3): its turns are skipped, its stack stays and is scored,
    and it cannot win."""

    seat: int


class ARiskCatGameEnded(ARiskCatEvent, frozen=True, kw_only=True):
    """A turn ended with the bag empty. ``holdings[seat][p - 1]``: tokens of painting p held;
    ``paintings_won[p - 1]``: the seat that won painting p (-1: removed or nobody). Also ends the
    game at once when fewer than two seats have not conceded."""

    holdings: tuple[tuple[int, ...], ...]
    paintings_won: tuple[int, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]


ARiskCatEventUnion = (
    ARiskCatGameSetUp
    | ARiskCatTurnStarted
    | TokenDrawn
    | TurnBusted
    | RunsStolen
    | MusicianCatsTaken
    | MusicianCatSwapped
    | MusicianCatKept
    | CheaterArmed
    | BankerReturned
    | RobinTellTriggered
    | RobinTellTargetChosen
    | RobinTellTokenDealt
    | LadiesAssembled
    | LadyTookToken
    | LadiesDismissed
    | TurnStopped
    | SeatConceded
    | ARiskCatGameEnded
)
