"""What a seat may send now: exactly what ``decide`` accepts from it (conceding aside)."""

from __future__ import annotations

from tests.games.guessing.commands import Guess, GuessingCommand, Mark, Swap
from tests.games.guessing.state import GuessingState


def legal_commands(state: GuessingState, seat: int) -> list[GuessingCommand]:
    if state.phase != "playing" or not 0 <= seat < state.players or state.hands[seat] is None:
        return []
    values = range(1, state.options.deck_size + 1)
    out: list[GuessingCommand] = [Mark(value=v) for v in values if v not in state.marks[seat]]
    if seat == state.active_seat:
        out.append(Swap())
        out += [Guess(target=t, value=v) for t in state.standing() if t != seat for v in values]
    return out
