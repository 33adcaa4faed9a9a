"""The refusal codes both games share, one code per refusal (``RuleViolation.code``).

A refusal that means the same thing in every game has one code, named here; a game's own
refusals (``window_open``, ``angel_protected``, ...) stay with its rules and are listed in its
package docstring. The codes are part of the API (``problem+json``'s ``code``): never reuse one
for another meaning. ``RENAMED`` keeps the codes a game used before this table, for readers of
old logs and clients.
"""

from __future__ import annotations

UNKNOWN_GAME_KIND = "unknown_game_kind"
INVALID_OPTIONS = "invalid_options"
GAME_ALREADY_STARTED = "game_already_started"
GAME_NOT_STARTED = "game_not_started"
GAME_OVER = "game_over"
UNKNOWN_COMMAND = "unknown_command"
INVALID_COMMAND = "invalid_command"
NOT_A_PLAYER = "not_a_player"
NOT_YOUR_TURN = "not_your_turn"
NO_PENDING_DECISION = "no_pending_decision"
SERVER_ONLY = "server_only"
NO_DEADLINE = "no_deadline"
DEADLINE_NOT_REACHED = "deadline_not_reached"
INVALID_TARGET = "invalid_target"

SHARED: dict[str, str] = {
    UNKNOWN_GAME_KIND: "no game of that kind exists",
    INVALID_OPTIONS: "the game options are malformed or out of range",
    GAME_ALREADY_STARTED: "the game has already started (a second start, a late join)",
    GAME_NOT_STARTED: "the game has not started: no command is decided yet",
    GAME_OVER: "the game is over: no command is decided any more",
    UNKNOWN_COMMAND: "not a command of this game's kind",
    INVALID_COMMAND: "a command of this game whose fields are malformed",
    NOT_A_PLAYER: "the sender (or the viewer) is not a seat of this game",
    NOT_YOUR_TURN: "another seat must act now",
    NO_PENDING_DECISION: "the game does not wait for this decision",
    SERVER_ONLY: "a command only the server sends (acting on a deadline) came from a seat",
    NO_DEADLINE: "the server acted on a timeout, but nothing in this game has a deadline",
    DEADLINE_NOT_REACHED: "the server acted on a timeout before the deadline",
    INVALID_TARGET: "the named seat cannot be the target",
}

# Codes one game used before this table -> the shared code that replaced them.
RENAMED: dict[str, str] = {
    "already_started": GAME_ALREADY_STARTED,  # Exploding Kittens' start
    "no_decision_timeout": NO_DEADLINE,  # Exploding Kittens' ActOnTimeout without a timeout
}
