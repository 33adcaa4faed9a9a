"""The game's own test declarations, which the tests find through the registry (tests/declared.py):
``kit.py`` (the conformance kit's, ``KITS``), ``golden.py`` (the golden corpus's, ``GOLDEN``) and
``rules.py`` (its RULES.md lines and their tests). Not shipped in the wheel (pyproject.toml)."""
