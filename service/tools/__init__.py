"""Tools around the service: the ``playlog`` CLI, bots, a typed Python client, the event catalogue."""
