"""The spectators' clock: an event is public to spectators only ``spectator_delay`` after it."""

from __future__ import annotations


def released_by(now: float, delay: float) -> float:
    """Events recorded at or before this instant may be shown to spectators now."""
    return now - delay


def release_at(recorded_at: float, delay: float) -> float:
    return recorded_at + delay
