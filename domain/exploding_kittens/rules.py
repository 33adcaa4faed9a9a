"""Setup, decide and evolve for Exploding Kittens (RULES.md section 1 and section 3)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import msgspec
from msgspec.structs import replace

from domain import refusals
from domain.batch import Batch
from domain.commitment import commit, new_salt
from domain.decider import Context, Outcome
from domain.errors import RuleViolation
from domain.exploding_kittens import knowledge
from domain.exploding_kittens.cards import (
    ACTION_CARDS,
    CAT_KINDS,
    HAND_DEAL,
    SEE_THE_FUTURE_COUNT,
    Card,
    dealable_cards,
    defuses_back,
)
from domain.exploding_kittens.commands import (
    COMMAND_TYPES,
    ActOnTimeout,
    Defuse,
    DrawCard,
    ExplodingKittensCommand,
    GiveCard,
    Leave,
    Nope,
    PassReaction,
    PlayCard,
    PlayCombo,
    ResolveReactions,
    TakeFromDiscard,
)
from domain.exploding_kittens.events import (
    ActionHadNoEffect,
    CardDrawn,
    CardPlayed,
    CardStolen,
    CardTakenFromDiscard,
    ClosedBy,
    ComboPlayed,
    DeckDealt,
    DeckShuffled,
    DiscardPickAsked,
    ExplodingKittensEvent,
    ExplodingKittensWon,
    FavorAsked,
    FavorGiven,
    FutureSeen,
    KittenDefused,
    KittenDrawn,
    KittenLeft,
    NamedCardRequested,
    NopePlayed,
    OwedTurnStarted,
    PlayerConceded,
    PlayerExploded,
    ReactionPassed,
    ReactionsResolved,
)
from domain.exploding_kittens.state import (
    ExplodingKittensState,
    PendingDecision,
    ReactionWindow,
)

State = ExplodingKittensState

# --------------------------------------------------------------------------------------------
# evolve: only sets fields; no RNG, no clock


def _without(cards: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    """``cards`` minus one copy of ``card`` (the first); unchanged if absent."""
    try:
        i = cards.index(card)
    except ValueError:
        return cards
    return cards[:i] + cards[i + 1 :]


def _with_item(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1 :])


def _move_card(state: State, giver: int, receiver: int, card: Card) -> State:
    hands = state.hands
    if card not in hands[giver]:
        return state
    hands = _with_item(hands, giver, _without(hands[giver], card))
    hands = _with_item(hands, receiver, (*hands[receiver], card))
    return replace(state, hands=hands)


def _ev_deck_dealt(s: State, e: DeckDealt) -> State:
    n = len(e.hands)
    return replace(
        s,
        started=True,
        hands=e.hands,
        draw_pile=e.draw_pile,
        discard=(),
        out_of_game=e.out_of_game,
        alive=(True,) * n,
        active=e.first_seat,
        turns_owed=1,
        under_attack=False,
        turn_deadline=e.turn_deadline,
        commitment=e.commitment,
        salt=e.salt,
        seen_future=((),) * n,
        placed_kitten=(None,) * n,
    )


def _ev_card_played(s: State, e: CardPlayed) -> State:
    window = ReactionWindow(
        actor=e.seat,
        cards=(e.card,),
        combo=False,
        target=e.target,
        named=None,
        nopes=(),
        deadline=e.deadline,
        passed=(),
    )
    hands = _with_item(s.hands, e.seat, _without(s.hands[e.seat], e.card))
    return replace(s, hands=hands, discard=(*s.discard, e.card), window=window)


def _ev_combo_played(s: State, e: ComboPlayed) -> State:
    window = ReactionWindow(
        actor=e.seat,
        cards=e.cards,
        combo=True,
        target=e.target,
        named=e.named,
        nopes=(),
        deadline=e.deadline,
        passed=(),
    )
    hand = s.hands[e.seat]
    for card in e.cards:
        hand = _without(hand, card)
    return replace(s, hands=_with_item(s.hands, e.seat, hand), discard=s.discard + e.cards, window=window)


def _ev_nope_played(s: State, e: NopePlayed) -> State:
    hands = _with_item(s.hands, e.seat, _without(s.hands[e.seat], Card.NOPE))
    window = s.window
    if window is not None:
        window = replace(window, nopes=(*window.nopes, e.seat), deadline=e.deadline, passed=())
    return replace(s, hands=hands, discard=(*s.discard, Card.NOPE), window=window)


def _ev_reaction_passed(s: State, e: ReactionPassed) -> State:
    if s.window is None:
        return s
    return replace(s, window=replace(s.window, passed=(*s.window.passed, e.seat)))


def _ev_reactions_resolved(s: State, e: ReactionsResolved) -> State:
    return replace(s, window=None, turn_deadline=e.turn_deadline)


def _ev_owed_turn_started(s: State, e: OwedTurnStarted) -> State:
    return replace(
        s, active=e.seat, turns_owed=e.turns_owed, under_attack=e.under_attack, turn_deadline=e.deadline
    )


def _ev_card_drawn(s: State, e: CardDrawn) -> State:
    top = s.draw_pile[0]
    hands = _with_item(s.hands, e.seat, (*s.hands[e.seat], top))
    seen, placed = knowledge.after_draw(s.seen_future, s.placed_kitten)
    return replace(s, hands=hands, draw_pile=s.draw_pile[1:], seen_future=seen, placed_kitten=placed)


def _ev_kitten_drawn(s: State, e: KittenDrawn) -> State:
    defusable = e.defusable
    if defusable is None:  # stored before ``defusable`` was recorded: read the hand, as then
        defusable = Card.DEFUSE in s.hands[e.seat]
    pending = PendingDecision(kind="defuse", seat=e.seat, deadline=e.deadline) if defusable else None
    seen, placed = knowledge.after_draw(s.seen_future, s.placed_kitten)
    return replace(
        s,
        draw_pile=s.draw_pile[1:],
        drawn_kitten=e.seat,
        pending=pending,
        seen_future=seen,
        placed_kitten=placed,
    )


def _ev_kitten_defused(s: State, e: KittenDefused) -> State:
    position = e.position if e.position is not None else 0
    pile = (*s.draw_pile[:position], Card.EXPLODING_KITTEN, *s.draw_pile[position:])
    hands = _with_item(s.hands, e.seat, _without(s.hands[e.seat], Card.DEFUSE))
    seen, placed = knowledge.after_defuse(s.seen_future, s.placed_kitten, e.seat, position)
    return replace(
        s,
        hands=hands,
        discard=(*s.discard, Card.DEFUSE),
        draw_pile=pile,
        drawn_kitten=None,
        pending=None,
        commitment=e.commitment,
        salt=e.salt,
        seen_future=seen,
        placed_kitten=placed,
    )


def _ev_player_exploded(s: State, e: PlayerExploded) -> State:
    return replace(
        s,
        alive=_with_item(s.alive, e.seat, False),
        discard=s.discard + s.hands[e.seat],
        hands=_with_item(s.hands, e.seat, ()),
        out_of_game=(*s.out_of_game, Card.EXPLODING_KITTEN),
        drawn_kitten=None,
        pending=None,
    )


def _ev_favor_asked(s: State, e: FavorAsked) -> State:
    return replace(
        s, pending=PendingDecision(kind="favor", seat=e.giver, receiver=e.receiver, deadline=e.deadline)
    )


def _ev_favor_given(s: State, e: FavorGiven) -> State:
    if e.card is not None:
        s = _move_card(s, e.giver, e.receiver, e.card)
    return replace(s, pending=None, turn_deadline=e.turn_deadline)


def _ev_card_stolen(s: State, e: CardStolen) -> State:
    if e.card is None:
        return s
    return _move_card(s, e.victim, e.thief, e.card)


def _ev_named_card_requested(s: State, e: NamedCardRequested) -> State:
    if not e.given:
        return s
    return _move_card(s, e.target, e.seat, e.named)


def _ev_discard_pick_asked(s: State, e: DiscardPickAsked) -> State:
    return replace(s, pending=PendingDecision(kind="discard_pick", seat=e.seat, deadline=e.deadline))


def _ev_card_taken_from_discard(s: State, e: CardTakenFromDiscard) -> State:
    discard = s.discard
    for i in range(len(discard) - 1, -1, -1):
        if discard[i] == e.card:
            discard = discard[:i] + discard[i + 1 :]
            break
    hands = _with_item(s.hands, e.seat, (*s.hands[e.seat], e.card))
    return replace(s, discard=discard, hands=hands, pending=None, turn_deadline=e.turn_deadline)


def _ev_future_seen(s: State, e: FutureSeen) -> State:
    return replace(s, seen_future=_with_item(s.seen_future, e.seat, e.cards))


def _ev_deck_shuffled(s: State, e: DeckShuffled) -> State:
    seen, placed = knowledge.voided(s.seen_future, s.placed_kitten)
    return replace(
        s, draw_pile=e.order, commitment=e.commitment, salt=e.salt, seen_future=seen, placed_kitten=placed
    )


def _ev_action_had_no_effect(s: State, e: ActionHadNoEffect) -> State:
    return s


def leaving_kitten(s: State, seat: int) -> tuple[KittenLeft, int | None]:
    """RULES 1.8: the Kitten that leaves with ``seat``: the one it was placing, else the
    bottom-most of the draw pile (its index from the top), else none."""
    if s.drawn_kitten == seat:
        return "drawn", None
    for i in range(len(s.draw_pile) - 1, -1, -1):
        if s.draw_pile[i] is Card.EXPLODING_KITTEN:
            return "pile", i
    return "none", None


def _ev_player_conceded(s: State, e: PlayerConceded) -> State:
    if e.kitten_left is None:  # stored before the choice was recorded: make it as it was made then
        kitten_left, position = leaving_kitten(s, e.seat)
    else:
        kitten_left, position = e.kitten_left, e.kitten_position
    pile = s.draw_pile
    out = s.out_of_game
    drawn_kitten = s.drawn_kitten
    seen, placed = s.seen_future, s.placed_kitten
    if kitten_left == "drawn":
        drawn_kitten = None
        out = (*out, Card.EXPLODING_KITTEN)
    elif kitten_left == "pile" and position is not None:
        pile = pile[:position] + pile[position + 1 :]
        out = (*out, Card.EXPLODING_KITTEN)
        seen, placed = knowledge.after_removal(seen, placed, position)
    window = s.window
    if window is not None and window.actor == e.seat:
        window = None
    pending = s.pending
    if pending is not None and e.seat in (pending.seat, pending.receiver):
        pending = None
    return replace(
        s,
        alive=_with_item(s.alive, e.seat, False),
        discard=s.discard + s.hands[e.seat],
        hands=_with_item(s.hands, e.seat, ()),
        draw_pile=pile,
        out_of_game=out,
        drawn_kitten=drawn_kitten,
        window=window,
        pending=pending,
        turn_deadline=e.turn_deadline,
        seen_future=seen,
        placed_kitten=placed,
    )


def _ev_won(s: State, e: ExplodingKittensWon) -> State:
    return replace(s, winner=e.winner, window=None, pending=None)


_EVOLVERS: dict[type[Any], Callable[[State, Any], State]] = {
    DeckDealt: _ev_deck_dealt,
    CardPlayed: _ev_card_played,
    ComboPlayed: _ev_combo_played,
    NopePlayed: _ev_nope_played,
    ReactionPassed: _ev_reaction_passed,
    ReactionsResolved: _ev_reactions_resolved,
    OwedTurnStarted: _ev_owed_turn_started,
    CardDrawn: _ev_card_drawn,
    KittenDrawn: _ev_kitten_drawn,
    KittenDefused: _ev_kitten_defused,
    PlayerExploded: _ev_player_exploded,
    FavorAsked: _ev_favor_asked,
    FavorGiven: _ev_favor_given,
    CardStolen: _ev_card_stolen,
    NamedCardRequested: _ev_named_card_requested,
    DiscardPickAsked: _ev_discard_pick_asked,
    CardTakenFromDiscard: _ev_card_taken_from_discard,
    FutureSeen: _ev_future_seen,
    DeckShuffled: _ev_deck_shuffled,
    ActionHadNoEffect: _ev_action_had_no_effect,
    PlayerConceded: _ev_player_conceded,
    ExplodingKittensWon: _ev_won,
}


def evolve(state: State, event: ExplodingKittensEvent) -> State:
    """Apply one event. Total over the game's events, deterministic, no RNG or clock."""
    return _EVOLVERS[type(event)](state, event)


# --------------------------------------------------------------------------------------------
# start: the setup of RULES 1.3


def start(state: State, ctx: Context) -> list[ExplodingKittensEvent]:
    if state.started:
        raise RuleViolation(refusals.GAME_ALREADY_STARTED, "The game has already started.")
    opts = state.options
    n = opts.players
    rng = ctx.rng
    rest = dealable_cards()
    rng.shuffle(rest)
    hands = tuple((Card.DEFUSE, *rest[i * HAND_DEAL : (i + 1) * HAND_DEAL]) for i in range(n))
    back = defuses_back(opts.edition, n)
    pile = rest[n * HAND_DEAL :] + [Card.DEFUSE] * back + [Card.EXPLODING_KITTEN] * (n - 1)
    rng.shuffle(pile)
    out = (Card.DEFUSE,) * (6 - n - back) + (Card.EXPLODING_KITTEN,) * (4 - (n - 1))
    first = opts.first_seat if opts.first_seat is not None else rng.randrange(n)
    salt = new_salt(rng)
    return [
        DeckDealt(
            players=n,
            first_seat=first,
            hands=hands,
            hand_sizes=tuple(len(h) for h in hands),
            draw_pile=tuple(pile),
            draw_pile_size=len(pile),
            out_of_game=out,
            commitment=commit(pile, salt),
            salt=salt,
            turn_deadline=_timeout_at(state, ctx),
        )
    ]


# --------------------------------------------------------------------------------------------
# decide


class _Batch(Batch[State, ExplodingKittensEvent]):
    """The kernel's batch, folding with this game's ``evolve``."""

    __slots__ = ()

    def __init__(self, state: State) -> None:
        super().__init__(state, evolve)


def _timeout_at(state: State, ctx: Context) -> float | None:
    timeout = state.options.decision_timeout
    return None if timeout is None else ctx.now + timeout


def _validated(command: object) -> ExplodingKittensCommand:
    if type(command) not in COMMAND_TYPES:
        raise RuleViolation(refusals.UNKNOWN_COMMAND, "This is not an Exploding Kittens command.")
    try:
        valid: ExplodingKittensCommand = msgspec.convert(
            msgspec.to_builtins(command),
            ExplodingKittensCommand,
        )
    except Exception as exc:  # garbage field values of any kind
        raise RuleViolation(refusals.INVALID_COMMAND, f"Malformed command: {exc}") from None
    return valid


def _acting_seat(state: State, ctx: Context) -> int:
    seat = ctx.seat
    if type(seat) is not int or not 0 <= seat < state.players:
        raise RuleViolation(refusals.NOT_A_PLAYER, "Only a seat of this game may send this command.")
    if not state.alive[seat]:
        raise RuleViolation("player_eliminated", f"Seat {seat} is out of the game.")
    return seat


def decide(state: State, command: object, ctx: Context) -> list[ExplodingKittensEvent]:
    """The events a command leads to; raises ``RuleViolation`` (and nothing else) if refused."""
    cmd = _validated(command)
    if not state.started:
        raise RuleViolation(refusals.GAME_NOT_STARTED, "The game has not started yet.")
    if state.winner is not None:
        raise RuleViolation(refusals.GAME_OVER, "The game is over.")
    batch = _Batch(state)
    window = state.window
    if (
        window is not None
        and ctx.now >= window.deadline
        and not isinstance(cmd, Nope | PassReaction | ResolveReactions)
    ):
        # The deadline, not the write, closes the window: settle it before anything else.
        _close_window(batch, ctx, "deadline")
    match cmd:
        case ResolveReactions():
            _resolve_reactions(batch, ctx)
        case ActOnTimeout():
            _act_on_timeout(batch, ctx)
        case Leave():
            _leave(batch, _acting_seat(state, ctx), ctx)
        case Nope():
            _nope(batch, _acting_seat(state, ctx), cmd, ctx)
        case PassReaction():
            _pass(batch, _acting_seat(state, ctx), ctx)
        case _:
            seat = _acting_seat(state, ctx)
            if batch.state.window is not None:
                raise RuleViolation("window_open", "An action is waiting for its reaction window to close.")
            match cmd:
                case Defuse():
                    _answer_defuse(batch, seat, cmd, ctx)
                case GiveCard():
                    _answer_favor(batch, seat, cmd, ctx)
                case TakeFromDiscard():
                    _answer_discard_pick(batch, seat, cmd, ctx)
                case _:
                    _check_turn(batch.state, seat)
                    match cmd:
                        case DrawCard():
                            _draw(batch, seat, ctx, by_server=False)
                        case PlayCard():
                            _play_card(batch, seat, cmd, ctx)
                        case PlayCombo():
                            _play_combo(batch, seat, cmd, ctx)
    return batch.events


def _check_turn(state: State, seat: int) -> None:
    if seat != state.active:
        raise RuleViolation(refusals.NOT_YOUR_TURN, f"It is seat {state.active}'s turn.")
    if state.pending is not None:
        raise RuleViolation(
            "decision_pending", f"Waiting for seat {state.pending.seat} to answer ({state.pending.kind})."
        )


# ---- turns


def _end_one_turn(batch: _Batch, ctx: Context) -> None:
    """The active seat's current owed turn is over (a draw, a Skip, a Defuse)."""
    s = batch.state
    if s.turns_owed > 1:
        batch.emit(
            OwedTurnStarted(
                seat=s.active,
                turns_owed=s.turns_owed - 1,
                under_attack=s.under_attack,
                deadline=_timeout_at(s, ctx),
            )
        )
    else:
        batch.emit(
            OwedTurnStarted(
                seat=s.next_living(s.active), turns_owed=1, under_attack=False, deadline=_timeout_at(s, ctx)
            )
        )


def _after_elimination(batch: _Batch, seat: int, was_active: bool, ctx: Context) -> bool:
    """Declare the winner, or pass the turn if the eliminated seat had it. True if the game ended."""
    s = batch.state
    living = s.living()
    if len(living) == 1:
        batch.emit(ExplodingKittensWon(winner=living[0]))
        return True
    if was_active:
        batch.emit(
            OwedTurnStarted(
                seat=s.next_living(seat), turns_owed=1, under_attack=False, deadline=_timeout_at(s, ctx)
            )
        )
    return False


def _draw(batch: _Batch, seat: int, ctx: Context, *, by_server: bool) -> None:
    s = batch.state
    if not s.draw_pile:  # cannot happen: the pile always holds living players - 1 Kittens
        raise RuleViolation("draw_pile_empty", "The draw pile is empty.")
    top = s.draw_pile[0]
    if top is not Card.EXPLODING_KITTEN:
        batch.emit(CardDrawn(seat=seat, card=top, by_server=by_server))
        _end_one_turn(batch, ctx)
        return
    has_defuse = Card.DEFUSE in s.hands[seat]
    batch.emit(
        KittenDrawn(
            seat=seat,
            by_server=by_server,
            deadline=_timeout_at(s, ctx) if has_defuse else None,
            defusable=has_defuse,
        )
    )
    if not has_defuse:
        batch.emit(PlayerExploded(seat=seat, discarded=batch.state.hands[seat]))
        _after_elimination(batch, seat, True, ctx)


# ---- pending decisions


def _pending_for(state: State, seat: int, kind: str) -> None:
    pending = state.pending
    if pending is None or pending.kind != kind:
        raise RuleViolation(refusals.NO_PENDING_DECISION, "No such decision is pending.")
    if pending.seat != seat:
        raise RuleViolation("not_your_decision", f"The decision belongs to seat {pending.seat}.")


def _defuse(batch: _Batch, seat: int, position: int, ctx: Context, *, by_server: bool) -> None:
    s = batch.state
    pile = (*s.draw_pile[:position], Card.EXPLODING_KITTEN, *s.draw_pile[position:])
    salt = new_salt(ctx.rng)
    batch.emit(
        KittenDefused(
            seat=seat, position=position, commitment=commit(pile, salt), salt=salt, by_server=by_server
        )
    )
    _end_one_turn(batch, ctx)


def _answer_defuse(batch: _Batch, seat: int, cmd: Defuse, ctx: Context) -> None:
    _pending_for(batch.state, seat, "defuse")
    size = len(batch.state.draw_pile)
    if not 0 <= cmd.position <= size:
        raise RuleViolation("invalid_position", f"The position must be between 0 (top) and {size} (bottom).")
    _defuse(batch, seat, cmd.position, ctx, by_server=False)


def _give(batch: _Batch, card: Card, ctx: Context, *, by_server: bool) -> None:
    pending = batch.state.pending
    assert pending is not None and pending.receiver is not None
    batch.emit(
        FavorGiven(
            giver=pending.seat,
            receiver=pending.receiver,
            card=card,
            by_server=by_server,
            turn_deadline=_timeout_at(batch.state, ctx),
        )
    )


def _answer_favor(batch: _Batch, seat: int, cmd: GiveCard, ctx: Context) -> None:
    _pending_for(batch.state, seat, "favor")
    if cmd.card not in batch.state.hands[seat]:
        raise RuleViolation("card_not_in_hand", f"You hold no {cmd.card}.")
    _give(batch, cmd.card, ctx, by_server=False)


def _take(batch: _Batch, seat: int, card: Card, ctx: Context, *, by_server: bool) -> None:
    batch.emit(
        CardTakenFromDiscard(
            seat=seat, card=card, by_server=by_server, turn_deadline=_timeout_at(batch.state, ctx)
        )
    )


def _answer_discard_pick(batch: _Batch, seat: int, cmd: TakeFromDiscard, ctx: Context) -> None:
    _pending_for(batch.state, seat, "discard_pick")
    if cmd.card is Card.EXPLODING_KITTEN or cmd.card not in batch.state.discard:
        raise RuleViolation("card_not_in_discard", f"There is no {cmd.card} to take in the discard pile.")
    _take(batch, seat, cmd.card, ctx, by_server=False)


# ---- server commands


def _resolve_reactions(batch: _Batch, ctx: Context) -> None:
    window = batch.state.window
    if window is None:
        raise RuleViolation("window_closed", "No reaction window is open.")
    if ctx.now < window.deadline:
        raise RuleViolation(refusals.DEADLINE_NOT_REACHED, "The reaction window is still open.")
    _close_window(batch, ctx, "deadline")


def _act_on_timeout(batch: _Batch, ctx: Context) -> None:
    s = batch.state
    if s.options.decision_timeout is None:
        raise RuleViolation(refusals.NO_DEADLINE, "This game has no decision timeout.")
    if s.window is not None:
        raise RuleViolation("window_open", "A reaction window is open; it closes by ResolveReactions.")
    pending = s.pending
    deadline = pending.deadline if pending is not None else s.turn_deadline
    if deadline is None or ctx.now < deadline:
        raise RuleViolation(refusals.DEADLINE_NOT_REACHED, "The decision's deadline has not passed.")
    rng = ctx.rng
    if pending is None:
        _draw(batch, s.active, ctx, by_server=True)
    elif pending.kind == "defuse":
        _defuse(batch, pending.seat, rng.randint(0, len(s.draw_pile)), ctx, by_server=True)
    elif pending.kind == "favor":
        _give(batch, rng.choice(s.hands[pending.seat]), ctx, by_server=True)
    else:
        choices = [c for c in s.discard if c is not Card.EXPLODING_KITTEN]
        _take(batch, pending.seat, rng.choice(choices), ctx, by_server=True)


# ---- leaving (RULES 1.8)


def _leave(batch: _Batch, seat: int, ctx: Context) -> None:
    s = batch.state
    was_active = s.active == seat
    pending = s.pending
    giver_left = pending is not None and pending.kind == "favor" and pending.seat == seat
    turn_deadline = _timeout_at(s, ctx) if giver_left else s.turn_deadline
    kitten_left, kitten_position = leaving_kitten(s, seat)
    batch.emit(
        PlayerConceded(
            seat=seat,
            discarded=s.hands[seat],
            turn_deadline=turn_deadline,
            kitten_left=kitten_left,
            kitten_position=kitten_position,
        )
    )
    if _after_elimination(batch, seat, was_active, ctx):
        return
    s = batch.state
    if s.window is not None and all(other in s.window.passed for other in s.eligible()):
        _close_window(batch, ctx, "leave")


# ---- reactions (RULES 1.7)


def _open_window_checks(state: State, ctx: Context) -> ReactionWindow:
    window = state.window
    if window is None or ctx.now >= window.deadline:
        raise RuleViolation("window_closed", "No reaction window is open.")
    return window


def _nope(batch: _Batch, seat: int, cmd: Nope, ctx: Context) -> None:
    window = _open_window_checks(batch.state, ctx)
    if seat == window.top_seat:
        raise RuleViolation("cannot_nope_own_card", "You cannot Nope a card you played yourself.")
    if cmd.chain_length != len(window.nopes):
        raise RuleViolation(
            "stale_nope", f"The chain now holds {len(window.nopes)} Nope(s); your Nope answered an older one."
        )
    if Card.NOPE not in batch.state.hands[seat]:
        raise RuleViolation("card_not_in_hand", "You hold no Nope.")
    batch.emit(
        NopePlayed(
            seat=seat,
            chain_length=len(window.nopes) + 1,
            deadline=ctx.now + batch.state.options.reaction_window,
        )
    )


def _pass(batch: _Batch, seat: int, ctx: Context) -> None:
    window = _open_window_checks(batch.state, ctx)
    eligible = batch.state.eligible()
    if seat not in eligible:
        raise RuleViolation("not_eligible", "You played the top card of the chain; others answer it.")
    if seat in window.passed:
        raise RuleViolation("already_passed", "You have already passed on this card.")
    batch.emit(ReactionPassed(seat=seat))
    new_window = batch.state.window
    assert new_window is not None
    if all(other in new_window.passed for other in eligible):
        _close_window(batch, ctx, "passes")


def _close_window(batch: _Batch, ctx: Context, closed_by: ClosedBy) -> None:
    window = batch.state.window
    assert window is not None
    noped = len(window.nopes) % 2 == 1
    batch.emit(
        ReactionsResolved(noped=noped, closed_by=closed_by, turn_deadline=_timeout_at(batch.state, ctx))
    )
    if not noped:
        _apply_action(batch, window, ctx)


def _target_ok(state: State, target: int | None) -> bool:
    return target is not None and state.alive[target] and bool(state.hands[target])


def _apply_action(batch: _Batch, window: ReactionWindow, ctx: Context) -> None:
    s = batch.state
    actor = window.actor
    rng = ctx.rng
    if window.combo:
        size = len(window.cards)
        if size == 5:
            batch.emit(DiscardPickAsked(seat=actor, deadline=_timeout_at(s, ctx)))
            return
        target = window.target
        if target is None or not _target_ok(s, target):
            batch.emit(ActionHadNoEffect(seat=actor, reason="the target has no cards or left"))
            return
        if size == 2:
            batch.emit(CardStolen(thief=actor, victim=target, card=rng.choice(s.hands[target])))
        else:
            named = window.named
            assert named is not None
            batch.emit(
                NamedCardRequested(seat=actor, target=target, named=named, given=named in s.hands[target])
            )
        return
    card = window.cards[0]
    if card is Card.ATTACK:
        owed = 2
        if s.options.edition == "2022" and s.under_attack:
            owed += s.turns_owed
        batch.emit(
            OwedTurnStarted(
                seat=s.next_living(actor), turns_owed=owed, under_attack=True, deadline=_timeout_at(s, ctx)
            )
        )
    elif card is Card.SKIP:
        _end_one_turn(batch, ctx)
    elif card is Card.FAVOR:
        target = window.target
        if target is None or not _target_ok(s, target):
            batch.emit(ActionHadNoEffect(seat=actor, reason="the target has no cards or left"))
            return
        batch.emit(FavorAsked(giver=target, receiver=actor, deadline=_timeout_at(s, ctx)))
    elif card is Card.SHUFFLE:
        order = list(s.draw_pile)
        rng.shuffle(order)
        salt = new_salt(rng)
        batch.emit(DeckShuffled(seat=actor, order=tuple(order), commitment=commit(order, salt), salt=salt))
    else:  # See the Future
        batch.emit(FutureSeen(seat=actor, cards=s.draw_pile[:SEE_THE_FUTURE_COUNT]))


# ---- playing cards (RULES 1.4, 1.6)


def _check_target(state: State, seat: int, target: int | None) -> int:
    if target is None:
        raise RuleViolation("target_required", "This action needs a target seat.")
    if not 0 <= target < state.players or target == seat:
        raise RuleViolation(refusals.INVALID_TARGET, "The target must be another seat of this game.")
    if not state.alive[target]:
        raise RuleViolation("target_not_alive", f"Seat {target} is out of the game.")
    if not state.hands[target]:
        raise RuleViolation("target_has_no_cards", f"Seat {target} has no cards.")
    return target


def _window_deadline(state: State, ctx: Context) -> float:
    return ctx.now + state.options.reaction_window


def _play_card(batch: _Batch, seat: int, cmd: PlayCard, ctx: Context) -> None:
    s = batch.state
    card = cmd.card
    if card in CAT_KINDS:
        raise RuleViolation("single_cat", "A Cat card alone has no effect; play a pair (PlayCombo).")
    if card not in ACTION_CARDS:
        raise RuleViolation("not_playable", f"{card} cannot be played as an action.")
    if card not in s.hands[seat]:
        raise RuleViolation("card_not_in_hand", f"You hold no {card}.")
    if card is Card.FAVOR:
        _check_target(s, seat, cmd.target)
    elif cmd.target is not None:
        raise RuleViolation(refusals.INVALID_TARGET, f"{card} takes no target.")
    batch.emit(CardPlayed(seat=seat, card=card, target=cmd.target, deadline=_window_deadline(s, ctx)))
    if s.options.reaction_window == 0:
        _close_window(batch, ctx, "at_once")


def _play_combo(batch: _Batch, seat: int, cmd: PlayCombo, ctx: Context) -> None:
    s = batch.state
    opts = s.options
    cards = cmd.cards
    size = len(cards)
    titles = set(cards)
    if size == 1:
        if cards[0] in CAT_KINDS:
            raise RuleViolation("single_cat", "A Cat card alone has no effect; play a pair.")
        raise RuleViolation("invalid_combo", "A combo needs 2, 3 or 5 cards; play one card with PlayCard.")
    if size in (2, 3) and len(titles) == 1:
        if not opts.special_combos and (size == 3 or cards[0] not in CAT_KINDS):
            raise RuleViolation(
                "invalid_combo", "Without special combos only pairs of one Cat kind are allowed."
            )
    elif size == 5 and len(titles) == 5:
        if opts.edition != "classic" or not opts.special_combos:
            raise RuleViolation(
                "invalid_combo",
                "Five different cards is a combo only in the classic edition with special combos.",
            )
    else:
        raise RuleViolation(
            "invalid_combo",
            "A combo is 2 or 3 cards of one title, or (classic) 5 cards of 5 different titles.",
        )
    have = Counter(s.hands[seat])
    for card, count in Counter(cards).items():
        if have[card] < count:
            raise RuleViolation("card_not_in_hand", f"You do not hold {count} {card}.")
    if size == 5:
        if cmd.target is not None:
            raise RuleViolation(refusals.INVALID_TARGET, "Five different cards take no target.")
        if cmd.named is not None:
            raise RuleViolation("invalid_named_card", "Only a triple names a card.")
    else:
        _check_target(s, seat, cmd.target)
        if size == 2 and cmd.named is not None:
            raise RuleViolation("invalid_named_card", "Only a triple names a card.")
        if size == 3:
            if cmd.named is None:
                raise RuleViolation("named_card_required", "A triple names the title it asks for.")
            if cmd.named is Card.EXPLODING_KITTEN:
                raise RuleViolation("invalid_named_card", "A triple cannot ask for an Exploding Kitten.")
    batch.emit(
        ComboPlayed(
            seat=seat, cards=cards, target=cmd.target, named=cmd.named, deadline=_window_deadline(s, ctx)
        )
    )
    if opts.reaction_window == 0:
        _close_window(batch, ctx, "at_once")


# --------------------------------------------------------------------------------------------
# deadlines and outcome


def deadline(state: State) -> float | None:
    """The earliest time the server must act on its own, if any."""
    if not state.started or state.winner is not None:
        return None
    if state.window is not None:
        return state.window.deadline
    if state.pending is not None:
        return state.pending.deadline
    return state.turn_deadline


def on_deadline(state: State) -> ExplodingKittensCommand:
    """The command the server sends (with ``ctx.seat = None``) once ``deadline(state)`` has passed."""
    if state.window is not None:
        return ResolveReactions()
    return ActOnTimeout()


def outcome(state: State) -> Outcome | None:
    if state.winner is None:
        return None
    return Outcome(winners=(state.winner,))
