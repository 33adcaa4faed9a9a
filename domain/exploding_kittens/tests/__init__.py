"""The game's own test declarations, which the tests find through the registry (tests/declared.py):
``kit.py`` (the conformance kit's, ``KITS``) and ``golden.py`` (the golden corpus's, ``GOLDEN``). Not
shipped in the wheel (pyproject.toml)."""
