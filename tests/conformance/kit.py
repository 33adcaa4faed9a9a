"""The conformance kit: what any game must pass, given only its ``Decider`` and a few declarations.

A game author fills in a ``GameKit`` (its folder's ``tests/kit.py``: tests/declared.py) and the kit
plays random games through the decider's public fields (``initial_state``, ``start``, ``decide``,
``evolve``, ``view``, ``redact``, ``hidden``, ``legal_commands``, ``clock``, ``outcome``, ``about``)
and the kernel's ``Concede``, checking after every accepted command (docs/game-authors.md):

- secrecy: no view and no redacted event shows a viewer what it may not see (every seat, the
  spectators; numbers included, RULES 3): the game's own ``blind_*`` declarations re-deal what a
  viewer may not know, and what the viewer reads must not change; an event hidden from a viewer
  (``private_to``) changes nothing that viewer reads, so its numbering shows no gap;
- replay: the events, stored as JSON and read back, fold to the live state at every step;
- committed randomness: each published ``commitment`` holds for the hidden order it leaves
  (``hidden.order``, with the event's salt); every draw comes from ``ctx.rng``
  (domain/randomness.py's ``Draws``, as the service passes it): deciding again with the same
  recorded context gives the same events, and a command that drew nothing gives the same events
  under any other seeds;
- conservation: what the game declares conserved stays the same from the deal to the end;
- legal commands: ``legal_commands`` are exactly the commands ``decide`` accepts (probed with
  every seat's offers, earlier offers and the game's own probes, from every seat);
- refusal codes: every code raised is among ``about.refusal_codes``.
"""

from __future__ import annotations

import random
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
from hypothesis import strategies as st

from domain import commitment
from domain.decider import Concede, Context, Decider
from domain.errors import RuleViolation
from domain.randomness import Draws
from domain.viewers import MODERATOR, SPECTATOR, Seat, Viewer


@dataclass(frozen=True)
class GameKit:
    """What the kit needs to know of one game beyond its ``Decider``.

    ``options``: a strategy of raw options (as a client sends them). ``conserved(state)``: what
    never changes once the game is dealt (a Counter of cards, a count of tokens...).
    ``blind_view(state, viewer, rng)``: a state ``viewer`` cannot tell from ``state`` (what it may
    not know re-dealt at random; the rules' word, not ``view``'s); ``blind_event(event, viewer,
    rng)`` the same of one event (its hidden fields re-dealt). ``probes(state, rng)``: more
    commands worth sending (wrong cards, bad targets): the kit already sends every seat's offers.
    ``prefer``: the policy's weight of a legal command (1 by default: uniform), to make games end.
    ``move``: see below.
    """

    decider: Decider
    options: st.SearchStrategy[Mapping[str, Any]]
    conserved: Callable[[Any], Any]
    blind_view: Callable[[Any, Viewer, random.Random], Any]
    blind_event: Callable[[Any, Viewer, random.Random], Any]
    probes: Callable[[Any, random.Random], Sequence[Any]] = lambda state, rng: ()
    prefer: Callable[[Any, Any], float] = lambda state, command: 1.0
    # The move a command makes, where ``legal_commands`` lists one command a move because the
    # move's free choices are too many to list (A Risk Cat's stop: any order of the turn's
    # tokens): an accepted command's move must be offered. By default every command is its own.
    move: Callable[[Any], Any] = lambda command: command
    max_steps: int = 120  # commands per game: enough to reach every phase, short enough to run often
    deadline_rate: float = 0.15  # how often the policy lets a deadline pass when there is one
    concede_rate: float = 0.01
    probe_every: int = 3  # the legal-commands probe runs on every n-th step
    name: str = ""

    @property
    def id(self) -> str:
        return self.name or self.decider.kind


@dataclass
class Game:
    """One game being played: its options, the state, the log and the clock."""

    kit: GameKit
    options: Any
    key: bytes
    state: Any
    events: list[Any] = field(default_factory=list)
    now: float = 0.0

    @property
    def decider(self) -> Decider:
        return self.kit.decider

    def context(self, seat: int | None, key: bytes | None = None) -> Context:
        """The context the service would pass: draws keyed by the game's seeds, for this version."""
        return Context(Draws(key or self.key, len(self.events)), self.now, seat)


class _Counting:
    """Draws that count how many times ``decide`` drew."""

    def __init__(self, inner: Draws) -> None:
        self.inner = inner
        self.draws = 0

    def __getattr__(self, name: str) -> Any:
        self.draws += 1
        return getattr(self.inner, name)


# --- the checks -------------------------------------------------------------------------------


def viewers(state: Any, decider: Decider) -> list[Viewer]:
    return [SPECTATOR, *(Seat(seat) for seat in range(players(state, decider)))]


def players(state: Any, decider: Decider) -> int:
    count = getattr(state, "players", None)
    assert isinstance(count, int), "the kit reads the number of seats from ``state.players``"
    return count


def _json(value: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(value))


def check_views_hide_what_is_hidden(game: Game, rng: random.Random) -> None:
    """Each viewer's view is the same for every state it cannot tell from this one."""
    decider, state = game.decider, game.state
    for viewer in viewers(state, decider):
        seen = _json(decider.view(state, viewer))
        for _ in range(2):
            other = game.kit.blind_view(state, viewer, rng)
            assert _json(decider.view(other, viewer)) == seen, f"{viewer} sees what it may not"
    _json(decider.view(state, MODERATOR))


def check_event_hides_what_is_hidden(game: Game, before: Any, event: Any, rng: random.Random) -> None:
    """Each viewer's redaction is the same for every event it cannot tell from this one, agrees
    with ``private_to`` (what the numbering counts), and an event hidden from a viewer changes
    nothing that viewer reads (RULES 3: it leaves no trace)."""
    decider = game.decider
    assert decider.redact(event, MODERATOR) == event, "moderators see every event whole"
    owner = decider.hidden.private_to(event) if decider.hidden.private_to is not None else None
    after = decider.evolve(before, event)
    for viewer in viewers(before, decider):
        shown = decider.redact(event, viewer)
        mine = isinstance(viewer, Seat) and viewer.index == owner
        assert (shown is None) == (owner is not None and not mine), (viewer, event)
        if shown is None:
            assert _json(decider.view(after, viewer)) == _json(decider.view(before, viewer)), (
                f"an event hidden from {viewer} changed what it reads: {event}"
            )
            continue
        expected = _json(shown)
        for _ in range(2):
            other = game.kit.blind_event(event, viewer, rng)
            assert _json(decider.redact(other, viewer)) == expected, f"{viewer} sees too much of {event}"


def check_commitment(game: Game, event: Any, after: Any) -> None:
    """An event that publishes a ``commitment`` commits to the hidden order it leaves
    (``hidden.order``), with the salt it carries: what an audit reveals and checks at the end."""
    committed = getattr(event, "commitment", None)
    hidden_order = game.decider.hidden.order
    if not committed or hidden_order is None:
        return
    salt = getattr(event, "salt", None)
    order = _json(list(hidden_order(after)))
    assert salt is not None and commitment.verify(order, salt, committed), (
        f"a commitment that does not hold: {event}"
    )


def check_replay(game: Game, replayed: Any) -> None:
    """The live state is the fold of the log as stored (JSON) and read back."""
    assert replayed == game.state, "replay from the events differs from the live state"


def check_randomness(game: Game, seat: int | None, command: Any, events: Sequence[Any]) -> None:
    """``decide`` is a function of (state, command, recorded context): the same context gives the
    same events; a command that draws nothing gives them under any seeds too."""
    decider = game.decider
    counting = _Counting(Draws(game.key, len(game.events)))
    again = decider.decide(game.state, command, Context(counting, game.now, seat))  # type: ignore[arg-type]
    assert list(again) == list(events), "the same recorded context gave other events"
    if counting.draws == 0:
        other = decider.decide(game.state, command, game.context(seat, key=bytes(32)))
        assert list(other) == list(events), "a command that drew nothing depends on the seeds"


def check_refusal_code(game: Game, error: RuleViolation) -> None:
    about = game.decider.about
    assert about is not None, "a game declares its refusal codes in ``about``"
    assert error.code in about.refusal_codes, f"undeclared refusal code {error.code!r}"
    assert error.message, "every refusal says why"


def bare_commands(decider: Decider) -> list[Any]:
    """One of each of the game's commands that has no fields (a draw, a swap, a pass...)."""
    out = []
    for cls in typing.get_args(decider.types.command):
        if not any(f.required for f in msgspec.structs.fields(cls)):
            out.append(cls())
    return out


def check_legal_commands(game: Game, offered_before: list[Any], rng: random.Random) -> None:
    """For every seat (and a seat the game does not have), the commands ``decide`` accepts among
    the probes are exactly those ``legal_commands`` offers it. Conceding is the table's, not an
    offer, and is left out."""
    decider, state = game.decider, game.state
    n = players(state, decider)
    concede = Concede()
    offers = {seat: list(decider.legal_commands(state, seat)) for seat in range(n)}
    probes = [c for offer in offers.values() for c in offer]
    probes += offered_before[-30:]
    probes += list(game.kit.probes(state, rng)) + bare_commands(decider)
    if game.decider.clock.deadline(state) is not None:
        probes.append(decider.clock.on_deadline(state))
    unique = list({msgspec.json.encode(c): c for c in probes if c != concede}.values())
    for seat in range(-1, n + 1):
        offered = offers.get(seat, [])
        for command in unique:
            try:
                events = list(decider.decide(state, command, game.context(seat)))
            except RuleViolation as error:
                check_refusal_code(game, error)
                assert command not in offered, (seat, command, "offered but refused")
                continue
            if command in offered or game.kit.move(command) in [game.kit.move(o) for o in offered]:
                continue
            # Another spelling of an offered command (seats listed in another order, say) is the
            # same command: it must decide the same events as one.
            same = (list(decider.decide(state, o, game.context(seat))) == events for o in offered)
            assert any(same), (seat, command, "accepted but not offered")


# --- playing ----------------------------------------------------------------------------------


def new_game(kit: GameKit, raw: Mapping[str, Any], seed: int) -> tuple[Game, random.Random]:
    rng = random.Random(seed)
    decider = kit.decider
    options = decider.parse_options(dict(raw))
    key = rng.randbytes(32)
    game = Game(kit=kit, options=options, key=key, state=decider.initial_state(options))
    start = list(decider.start(game.state, game.context(None)))
    again = list(decider.start(game.state, game.context(None)))
    assert start == again, "the deal is a function of the recorded context"
    for event in start:
        game.state = decider.evolve(game.state, event)
        game.events.append(event)
        check_commitment(game, event, game.state)
    return game, rng


def _choose(game: Game, rng: random.Random) -> tuple[int | None, Any] | None:
    """The policy: a legal command of any seat, now and then a deadline let pass or a concession.
    The clock moves only to a deadline: ``legal_commands`` knows no clock, so the offers hold
    until the next deadline, when the server acts."""
    decider, state = game.decider, game.state
    due = decider.clock.deadline(state)
    if due is not None and rng.random() < game.kit.deadline_rate:
        game.now = max(game.now, due)
        return None, decider.clock.on_deadline(state)
    concede = Concede()
    if rng.random() < game.kit.concede_rate:
        standing = [s for s in range(players(state, decider)) if concede in decider.legal_commands(state, s)]
        standing = standing or list(range(players(state, decider)))
        return rng.choice(standing), concede
    options = [
        (seat, command)
        for seat in range(players(state, decider))
        for command in decider.legal_commands(state, seat)
        if command != concede
    ]
    if not options:
        if due is None:
            return None
        game.now = max(game.now, due)
        return None, decider.clock.on_deadline(state)
    weights = [game.kit.prefer(state, command) for _, command in options]
    return rng.choices(options, weights)[0]


def play(kit: GameKit, raw: Mapping[str, Any], seed: int) -> Iterator[Game]:
    """Play one random game, running every check; yields the game after each accepted command."""
    game, rng = new_game(kit, raw, seed)
    decider = kit.decider
    decoder = msgspec.json.Decoder(decider.types.event)
    replayed = decider.fold(
        decider.initial_state(game.options), [decoder.decode(msgspec.json.encode(e)) for e in game.events]
    )
    conserved = kit.conserved(game.state)
    offered: list[Any] = []
    check_replay(game, replayed)
    check_views_hide_what_is_hidden(game, rng)
    for step in range(kit.max_steps):
        if decider.outcome(game.state) is not None:
            break
        if step % kit.probe_every == 0:
            check_legal_commands(game, offered, rng)
        for seat in range(players(game.state, decider)):
            offered.extend(decider.legal_commands(game.state, seat))
        choice = _choose(game, rng)
        if choice is None:
            break
        seat, command = choice
        try:
            events = list(decider.decide(game.state, command, game.context(seat)))
        except RuleViolation as error:  # a concession the game does not take now, say
            check_refusal_code(game, error)
            assert command == Concede(), error
            continue
        assert events, "an accepted command appends events"
        check_randomness(game, seat, command, events)
        for event in events:
            before = game.state
            game.state = decider.evolve(before, event)
            replayed = decider.evolve(replayed, decoder.decode(msgspec.json.encode(event)))
            check_event_hides_what_is_hidden(game, before, event, rng)
            check_commitment(game, event, game.state)
        game.events.extend(events)
        check_replay(game, replayed)
        assert kit.conserved(game.state) == conserved, "a conserved quantity changed"
        check_views_hide_what_is_hidden(game, rng)
        yield game
    fresh = decider.fold(
        decider.initial_state(game.options), [decoder.decode(msgspec.json.encode(e)) for e in game.events]
    )
    check_replay(game, fresh)
    result = decider.outcome(game.state)
    if result is not None:
        n = players(game.state, decider)
        assert result.winners and set(result.winners) <= set(range(n)), result
        for seat in range(n):
            assert [c for c in decider.legal_commands(game.state, seat) if c != Concede()] == [], (
                "over, yet offered"
            )
