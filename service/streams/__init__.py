"""Following a game live: per-game feeds, their wake-ups, Server-Sent Event streams, spectator chunks."""
