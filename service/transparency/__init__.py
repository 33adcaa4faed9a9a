"""The transparency log of games: signing identity, Merkle log, tiles, witnesses.

See docs/transparency-log.md.
"""
