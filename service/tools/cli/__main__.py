"""``python -m service.tools.cli``: the ``playlog`` command line."""

from service.tools.cli import main

main()
