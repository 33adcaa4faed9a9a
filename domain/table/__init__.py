"""The table around every game, as a decider composed with the game's (RULES.md's lobby).

- commands.py: create, join, start, leave (or concede), a seat's ``Play``, the server's deadline
- events.py: the ``lobby.*`` facts, in the shapes every stored log holds
- state.py: ``Table`` and its ``evolve`` (the game's facts through the game's ``evolve``)
- rules.py: ``decide``: delay bounds, names, full tables, unfilled seats, who holds a seat
- decider.py: ``seated(game, *alongside)``, the table composed with the game and with the deciders
  beside it (the disputes), which it never imports: domain/registry.py composes them per kind
"""
