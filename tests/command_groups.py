"""The events a command appended, found by its id in the log itself (not the ``commands`` table):
the groups opened by an event whose metadata records the command under that id, each as long as
its record says. Applied twice, a command opens two groups, so its events are more than its run.
Only a group's first event carries the id (migration 0024)."""

# $1: the game, $2: the command id; rows: the events' seqs, in order.
COMMAND_EVENTS = """
SELECT e.seq
  FROM events f
  JOIN events e ON e.game_id = f.game_id
   AND e.seq BETWEEN f.seq AND f.seq + (f.metadata->'command'->>'events')::int - 1
 WHERE f.game_id = $1 AND f.metadata->>'command_id' = $2 AND f.metadata ? 'command'
 ORDER BY e.seq
"""
