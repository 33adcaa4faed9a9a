"""End of game: who wins each painting, and the scores (RULES 2.4)."""

from __future__ import annotations

from collections.abc import Sequence

from domain.a_risk_cat.tokens import PAINTINGS, black_cat, painting, token_points


class ARiskCatScoreSheet:
    """Holdings per seat and painting, paintings won (-1: nobody), scores and winners."""

    __slots__ = ("holdings", "paintings_won", "scores", "winners")

    def __init__(
        self,
        holdings: tuple[tuple[int, ...], ...],
        paintings_won: tuple[int, ...],
        scores: tuple[int, ...],
        winners: tuple[int, ...],
    ) -> None:
        self.holdings = holdings
        self.paintings_won = paintings_won
        self.scores = scores
        self.winners = winners


def score(
    stacks: Sequence[Sequence[str]], removed: Sequence[int] = (), conceded: Sequence[int] = ()
) -> ARiskCatScoreSheet:
    """Most tokens of a painting wins it; a tie goes to the black-cat holder (tied or not).

    Score: 1 a token, 2 a Twins token, plus the values of the paintings won. Equal highest
    scores share the win. Conceded seats are scored (and may win paintings) but cannot win:
    the winners are the highest scores among the seats that did not concede.
    """
    counts = [[0] * len(PAINTINGS) for _ in stacks]
    black_cat_holder: dict[int, int] = {}
    points = [0] * len(stacks)
    for seat, stack in enumerate(stacks):
        for token in stack:
            p = painting(token)
            counts[seat][p - 1] += 1
            points[seat] += token_points(token)
            if token == black_cat(p):
                black_cat_holder[p] = seat
    won: list[int] = []
    for p in PAINTINGS:
        best = max((row[p - 1] for row in counts), default=0)
        if p in removed or best == 0:
            won.append(-1)
            continue
        leaders = [seat for seat, row in enumerate(counts) if row[p - 1] == best]
        winner = leaders[0] if len(leaders) == 1 else black_cat_holder.get(p, -1)
        won.append(winner)
        if winner >= 0:
            points[winner] += p
    contenders = [seat for seat in range(len(stacks)) if seat not in conceded]
    top = max((points[seat] for seat in contenders), default=0)
    winners = tuple(seat for seat in contenders if points[seat] == top)
    return ARiskCatScoreSheet(
        holdings=tuple(tuple(row) for row in counts),
        paintings_won=tuple(won),
        scores=tuple(points),
        winners=winners,
    )
