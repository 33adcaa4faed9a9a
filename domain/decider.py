"""The shape every game has: a decider (Chassaing's pattern), bundled as one frozen value.

A game is a set of pure functions over immutable msgspec Structs, the decider's own at the top
of ``Decider``::

    initial_state(options) -> State            # before the game starts: nothing dealt
    start(state, ctx) -> list[Event]           # the setup (shuffle, deal), randomness via ctx
    decide(state, command, ctx) -> list[Event] # raises RuleViolation
    decide_and_fold(state, command, ctx)       # optional: decide's events and the state after
        -> (list[Event], State)                # them, made in one pass (what the table decides with)
    evolve(state, event) -> State              # total, deterministic, no RNG, no clock
    outcome(state) -> Outcome | None           # None while the game runs: the terminal state
    view(state, viewer) -> View                # Seat(n) | Spectator | Moderator
    redact(event, viewer) -> Event | None      # what a viewer may see of one event
    legal_commands(state, seat) -> list[Command]

its commands read from JSON (``commands``: built from ``types``, domain/command_reader.py), and the
rest in a few small values::

    seats    Seats(min, max, conceded)         # conceded(event) -> int | None: who has left
    types    Types(options, command, event, view)
    clock    Clock(deadline, on_deadline,      # deadline(state) -> float | None; on_deadline(state)
                   waiting_for, public_defaults) # -> Command, sent by the server (ctx.seat = None);
                                               # the seat a deadline waits for; a public game's
                                               # clock options unless its host gives them
    hidden   Hidden(order, private_to)         # order(state): what shuffle commitments commit to;
                                               # private_to(event): the one seat that may know it
    versions Versions(rules, schemas, upcasters, renamed_commands)
    about    About(title, ...)                 # what tools say of the game

Events that outlive the code: ``versions.schemas`` names each event type's current schema
version (absent: 1) and ``versions.upcasters[(type, v)]`` turns a stored body of version ``v``
into version ``v + 1`` (plain JSON dict in, dict out); projections/upcast.py runs the chain
before decoding. ``versions.rules`` is written into every new game, so a rules change can apply
to new games only. Commands that outlive their names: ``versions.renamed_commands`` maps a tag a
command was once sent under to today's, so a client's body or a recorded command under the old
tag still reads (domain/registry.py's ``Kind.commands``).

Two commands are the kernel's, one name in every game: the server's ``ActOnTimeout`` and a
seat's ``Concede``. Each game's command union holds both, and the table sends ``Concede`` when a
seat leaves a running game.

The service and the projections only ever see a ``Decider`` (through its kind's value in
domain/registry.py, the one module that imports the games); they never import a game.
``Decider[S, C, E, V]`` is generic in the game's state, command, event and view, so mypy checks
each game's functions against one another; every game decides through the kernel's batch
(domain/batch.py) and refuses what every game refuses with the codes of domain/refusals.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal

import msgspec
from typing_extensions import TypeVar

from domain import refusals
from domain.command_reader import Commands
from domain.errors import RuleViolation
from domain.integers import integers_as_ints
from domain.randomness import Randomness
from domain.viewers import Viewer


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every game's events: facts in the past tense, tagged by class name."""


class Command(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every game's commands: imperatives, tagged by class name."""


# Where a game stands: before the deal, running, or ended (its ``outcome`` then names the winners).
Phase = Literal["not_started", "playing", "over"]


class Pending(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind"):
    """Base of every game's pending decisions: the question the game waits for ``seat`` to answer,
    one subclass per question, tagged by its kind (RULES.md: a *pending decision*)."""

    seat: int

    @property
    def kind(self) -> str:
        """The subclass's tag: which question this is."""
        return str(type(self).__struct_config__.tag)


class ActOnTimeout(Command, frozen=True, kw_only=True):
    """The server's command once the game's deadline has passed (no seat may send it): the game
    makes the choice its rules name for the seat that did not answer in time."""


class Concede(Command, frozen=True, kw_only=True):
    """A seat leaves the running game: it concedes, and never acts again. Every game accepts it
    from any seat still in the game, at any time; the table sends it for a seat that leaves."""


class Context(msgspec.Struct, frozen=True):
    """What ``decide`` may use beyond the state: the draws, the clock and who is acting.

    ``seat`` is None when the server itself acts (a deadline passed). ``rng`` draws from the
    game's committed seeds (domain/randomness.py); ``now`` is recorded with the command, so a
    verifier runs ``decide`` again with the same context. ``server_seed`` (hex) is what the game
    discloses when it ends (None: a seeded game, which has none).
    """

    rng: Randomness
    now: float
    seat: int | None
    # The rules version the game was created under (lobby.created): where a rules change must
    # not alter games created before it, ``decide`` branches on this. Its choices are written
    # into the events, so replays never need it.
    rules_version: int = 1
    seed_commitment: str | None = None  # what ``lobby.created`` publishes of the server's seed
    server_seed: str | None = None

    def acting(self, seat: int | None) -> Context:
        """The same context, ``seat`` acting (None: the server, on a deadline)."""
        return msgspec.structs.replace(self, seat=seat)


class Outcome(msgspec.Struct, frozen=True):
    """How a finished game ended: the winning seats (several on a shared win)."""

    winners: tuple[int, ...]
    scores: tuple[int, ...] | None = None


# A stored event body (its JSON object) of one schema version -> the same fact one version on.
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


# The type parameters of a ``Decider``: its state, command, event and view. Each defaults to Any,
# so code that serves every game (service/, projections/) writes a bare ``Decider``, while each
# game's ``DECIDER`` is a ``Decider[State, Command, Event, View]`` that mypy checks field by field.
S = TypeVar("S", default=Any)
C = TypeVar("C", default=Any)
E = TypeVar("E", default=Any)
V = TypeVar("V", default=Any)


@dataclass(frozen=True)
class About:
    """What tools say of a game, so that none of them names it (service/tools/bot.py, service/tools/cli.py,
    service/tools/eventdocs.py): its title, option sets that exercise its rules (the event
    catalogue), the options that make it quick for bots, every refusal code its rules raise
    (``RuleViolation.code``: the OpenAPI document lists them as an enum), and those that only mean
    the game moved on between a view and a command (a bot retries those). Its rules document is
    its folder's ``rules.md`` (``registry.folder``)."""

    title: str
    option_samples: Sequence[Mapping[str, Any]] = ()
    quick_options: Mapping[str, Any] = field(default_factory=dict)
    refusal_codes: frozenset[str] = frozenset()
    race_codes: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Seats(Generic[E]):
    """How many seats a game takes, and which one an event says has conceded."""

    min: int
    max: int
    # The seat an event says has conceded (None for any other event): that seat may still read
    # its view and transcript, but never act again.
    conceded: Callable[[E], int | None] | None = None
    # The seat an event puts out of the running game (eliminated, or conceded; None for any other
    # event): the order seats go out in is a finishing order, the last one out placed best
    # (projections/ratings.py). Left None by a game that ranks by its scores.
    out: Callable[[E], int | None] | None = None


@dataclass(frozen=True)
class Types:
    """The game's options and its tagged unions, as JSON is read and the OpenAPI document types
    them (types, not classes: mypy cannot spell "the type object of C")."""

    options: type[msgspec.Struct]
    command: Any  # the game's tagged union of command Structs (C)
    event: Any  # the game's tagged union of event Structs (E)
    view: Any  # the union of the view Structs ``view`` returns (V)


@dataclass(frozen=True)
class Clock(Generic[S, C]):
    """When the server must act on its own (None: nothing is due), and what it sends then; whose
    time ran out then, and the clock a public game gets unless its host says otherwise."""

    deadline: Callable[[S], float | None]
    on_deadline: Callable[[S], C]  # decided with ``ctx.seat`` None
    # The one seat whose answer the deadline waits for (None: nobody's in particular, as a
    # reaction window every seat may answer): the table counts that seat's timeouts in a row.
    waiting_for: Callable[[S], int | None] = lambda state: None
    # Options a public game is created with when its host does not name them (the per-move
    # limit): recorded in ``lobby.created``, so they never change an existing game.
    public_defaults: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Hidden(Generic[S, E]):
    """What a game hides, as the proofs and the per-viewer numbering need it."""

    # The hidden order that events carrying a ``commitment`` commit to, read from the state
    # right after such an event (the draw pile, the bag): how a replay checks the shuffles.
    order: Callable[[S], Sequence[Any]] | None = None
    # For a game whose ``redact`` hides some events' very existence (returns None): the one seat
    # that may see such an event (None for events every viewer sees, perhaps in part). It must
    # agree with ``redact``; the projections number each viewer's events by it, so a hidden
    # event leaves no gap in what that viewer can read. Left None when nothing is ever hidden.
    private_to: Callable[[E], int | None] | None = None


@dataclass(frozen=True)
class Versions:
    """What outlives the code: the rules version written into every new game, each event type's
    schema version (absent: 1) and the upcasters to it, and the tags commands were once sent under."""

    rules: int = 1
    schemas: Mapping[str, int] = field(default_factory=dict)
    upcasters: Mapping[tuple[str, int], Upcaster] = field(default_factory=dict)
    renamed_commands: Mapping[str, str] = field(default_factory=dict)  # an old command tag -> today's


@dataclass(frozen=True)
class Decider(Generic[S, C, E, V]):
    """One game, as the registry holds it: the decider's own functions, and the rest grouped."""

    kind: str
    seats: Seats[E]
    types: Types
    initial_state: Callable[[Any], S]  # from the game's options (``types.options``)
    start: Callable[[S, Context], Sequence[E]]
    decide: Callable[[S, C, Context], Sequence[E]]
    evolve: Callable[[S, E], S]
    outcome: Callable[[S], Outcome | None]
    view: Callable[[S, Viewer], V]
    redact: Callable[[E, Viewer], E | None]
    legal_commands: Callable[[S, int], Sequence[C]]
    clock: Clock[S, C]
    hidden: Hidden[S, E] = field(default_factory=Hidden)
    versions: Versions = field(default_factory=Versions)
    about: About | None = None
    # ``decide``'s events with the state after them, folded as they were made (the kernel's batch,
    # domain/batch.py): the table builds the table after a command from that state, so no event
    # is evolved twice. A game without it is decided, then folded (domain/table/rules.py).
    decide_and_fold: Callable[[S, C, Context], tuple[Sequence[E], S]] | None = None
    # Its commands read from JSON (domain/command_reader.py), built once from ``types.command`` and
    # ``versions.renamed_commands``: a table's ``decider`` reads a body of its game.
    commands: Commands = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        reader = Commands(
            self.types.command, msgspec.json.Decoder(self.types.command), dict(self.versions.renamed_commands)
        )
        object.__setattr__(self, "commands", reader)

    def parse_options(self, raw: object) -> Any:
        """Options from untrusted input; unknown keys and bad values raise ``invalid_options``.
        An integer may come as a number without a fraction (JSON Schema's ``integer``: ``2.0``)."""
        try:
            return msgspec.convert(integers_as_ints(self.types.options, raw), self.types.options)
        except msgspec.ValidationError as exc:
            raise RuleViolation(refusals.INVALID_OPTIONS, f"Bad game options: {exc}") from exc

    def fold(self, state: S, events: Sequence[E]) -> S:
        """Apply ``evolve`` for each event in order."""
        for event in events:
            state = self.evolve(state, event)
        return state
