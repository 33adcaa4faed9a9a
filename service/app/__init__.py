"""The use cases: games and their one command loop, disputes, players, moderators, the audit's reads."""
