"""The conformance kit every game passes (docs/game-authors.md)."""
