"""The read side: what each viewer is shown of a game (docs/architecture.md, "The rooms of service/")."""
