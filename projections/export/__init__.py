"""A game as a portable file: its format (``format.py``) and its offline verifier (``verify.py``)."""
