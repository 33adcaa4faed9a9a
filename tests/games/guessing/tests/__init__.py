"""The guessing game's test declarations, as a real game's (domain/<game>/tests/): ``kit.py``."""
