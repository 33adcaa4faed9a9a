"""Disputes and moderation (issue 14): a decider over the table, its events in the game's own log.

- events.py: the ``dispute.*`` facts (raised, claimed, released, noted, asked, answered, resolved)
- commands.py: what a seat (raise, reply) and a moderator (claim, release, note, ask, resolve,
  review) may send
- state.py: ``DisputeState`` per dispute and ``apply``: what the table keeps (no reason, no note)
- rules.py: ``decide``: who may do what, when, and what a ruling changes
- views.py: ``redact``: what each viewer may read of a dispute event
- decider.py: ``DISPUTES``, the disputes as a decider beside the table (their ``evolve`` too)
"""
