"""The read models' SQL: which games are behind, their events, and the rows a batch writes."""

from __future__ import annotations

from service.store.events import event_columns

BEHIND = """
SELECT s.game_id, coalesce(g.version, 0) AS projected, s.seq
  FROM streams s LEFT JOIN lobby_games g ON g.game_id = s.game_id
 WHERE s.seq > coalesce(g.version, 0)
"""
# Among named games only: a condition on the distribution column alone, so Citus asks only the
# shards that hold them.
BEHIND_AMONG = BEHIND + " AND s.game_id = ANY($1::uuid[])"


# The events of several games, each after its own seq and up to its own: one query.
EVENTS_OF = f"""
SELECT {event_columns("e")}
  FROM events e JOIN unnest($1::uuid[], $2::int[], $3::int[]) AS r(game_id, after_seq, up_to_seq)
    ON e.game_id = r.game_id
 WHERE e.seq > r.after_seq AND e.seq <= r.up_to_seq
 ORDER BY e.game_id, e.seq
"""

UPSERT_GAME = """
INSERT INTO lobby_games AS g (game_id, kind, status, public, spectator_delay, seat_names, seats_taken,
                              seats_total, created_at, started_at, finished_at, winners, version,
                              rulings)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb)
ON CONFLICT (game_id) DO UPDATE SET
    kind = EXCLUDED.kind, status = EXCLUDED.status, public = EXCLUDED.public,
    spectator_delay = EXCLUDED.spectator_delay, seat_names = EXCLUDED.seat_names,
    seats_taken = EXCLUDED.seats_taken, seats_total = EXCLUDED.seats_total,
    started_at = coalesce(g.started_at, EXCLUDED.started_at),
    finished_at = coalesce(g.finished_at, EXCLUDED.finished_at),
    winners = EXCLUDED.winners, version = EXCLUDED.version, rulings = EXCLUDED.rulings
WHERE g.version < EXCLUDED.version
"""

# A dispute's queue row: the batch holds each dispute's latest state (a game's events are folded
# in seq order, once), so the last write wins.
UPSERT_DISPUTE = """
INSERT INTO disputes (dispute_id, game_id, kind, seat, category, status, claimed_by, verdict, action,
                      review_of, raised_at, raised_seq, resolved_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
ON CONFLICT (game_id, dispute_id) DO UPDATE SET
    status = EXCLUDED.status, claimed_by = EXCLUDED.claimed_by, verdict = EXCLUDED.verdict,
    action = EXCLUDED.action, resolved_at = EXCLUDED.resolved_at
"""


# A game's player rows are replaced whole: those of players who left go, the others are rewritten,
# keeping the game's end (given only by the event that ended it).
DELETE_PLAYER_GAMES = "DELETE FROM player_games WHERE game_id = $1 AND player_id <> ALL($2::text[]::uuid[])"
UPSERT_PLAYER_GAME = """
INSERT INTO player_games AS p (player_id, game_id, kind, seats, status, outcome, created_at,
                               spectator_delay, finished_at, ended, rulings)
VALUES ($1::text::uuid, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb)
ON CONFLICT (player_id, game_id) DO UPDATE SET
    kind = EXCLUDED.kind, seats = EXCLUDED.seats, status = EXCLUDED.status, outcome = EXCLUDED.outcome,
    spectator_delay = EXCLUDED.spectator_delay, finished_at = coalesce(p.finished_at, EXCLUDED.finished_at),
    ended = EXCLUDED.ended, rulings = EXCLUDED.rulings
"""


# A rated game's row: its results are rewritten, its end kept (given only by the event that ended it).
UPSERT_RATED_GAME = """
INSERT INTO rated_games AS r (game_id, kind, finished_at, spectator_delay, results)
VALUES ($1, $2, $3, $4, $5::jsonb)
ON CONFLICT (game_id) DO UPDATE SET
    finished_at = coalesce(r.finished_at, EXCLUDED.finished_at), results = EXCLUDED.results
"""
