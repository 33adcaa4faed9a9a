"""The read models (lobby list, each player's games, the dispute queue), projected from the log."""
