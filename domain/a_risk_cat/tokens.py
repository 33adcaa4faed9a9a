"""The components: eleven paintings and their 66 tokens.

A token's id is ``"p<painting>-<k>"`` with ``k`` in ``1..painting`` (``"p8-3"`` is the third Twins
token). Token ``"p<n>-1"`` of every painting bears the black-cat silhouette (the tie-breaker); for
painting 2 that is the Banker (``"p2-1"``), and the Cheater is ``"p2-2"``.
"""

from __future__ import annotations

ANGEL = 3
SWIMMER = 4
WRITER = 6
TWINS = 8
FORTUNE_TELLER = 9
FIREFIGHTER = 10
MUSICIAN_CATS = 11

PAINTINGS: tuple[int, ...] = tuple(range(1, 12))
LADIES: frozenset[int] = frozenset({SWIMMER, WRITER, FORTUNE_TELLER})

PAINTING_NAMES: dict[int, str] = {
    1: "Robin Tell",
    2: "Banker and Cheater",
    3: "Angel",
    4: "Swimmer",
    5: "Astronaut",
    6: "Writer",
    7: "Mason",
    8: "Twins",
    9: "Fortune Teller",
    10: "Firefighter",
    11: "Musician Cats",
}

ROBIN_TELL = "p1-1"
BANKER = "p2-1"
CHEATER = "p2-2"

ALL_TOKENS: tuple[str, ...] = tuple(f"p{n}-{k}" for n in PAINTINGS for k in range(1, n + 1))
_PAINTING_OF: dict[str, int] = {token: int(token[1:].split("-")[0]) for token in ALL_TOKENS}

#: Paintings taken out of the game at 3 or 4 players.
REMOVED_AT_FEW_PLAYERS: tuple[int, ...] = (FIREFIGHTER,)


def painting(token: str) -> int:
    """The painting (1..11) a token belongs to."""
    return _PAINTING_OF[token]


def black_cat(painting_number: int) -> str:
    """The token of this painting that bears the black cat (the tie-breaker)."""
    return f"p{painting_number}-1"


def removed_paintings(players: int) -> tuple[int, ...]:
    """Painting 10 and its tokens leave the game at 3 or 4 players."""
    return REMOVED_AT_FEW_PLAYERS if players <= 4 else ()


def tokens_in_play(players: int) -> tuple[str, ...]:
    removed = removed_paintings(players)
    return tuple(t for t in ALL_TOKENS if painting(t) not in removed)


def token_points(token: str) -> int:
    """1 point a token, 2 for a Twins token."""
    return 2 if painting(token) == TWINS else 1
