"""How CPython's cycle collector runs in a serving process.

The collector stops the process while it walks a generation, and a full collection walks every
tracked object. A serving process holds many that live long: the modules, the app and its routes,
and several hundred per open stream. With the default settings (a collection every 700 new
objects) the objects of requests and stream wake-ups in flight survived into the older
generations, full collections followed every few seconds, and with 10,000 open spectator streams
each stopped the instance for 0.8-1.2 s and the collector took a third of its CPU
(``bench/fanout.py``; docs/performance.md). Two settings, applied once the app has started:

- what start-up made is collected once and frozen (``gc.freeze``): it lives as long as the
  process, so no later collection walks it again;
- the youngest generation is collected every 25,000 new objects: reference counting frees most of
  a request's objects before any collection sees them, so few survive into the older generations
  and full collections become rare.

Cycles are still collected: only later, and in larger batches.
"""

from __future__ import annotations

import gc

YOUNG = 25_000  # new objects between two collections of the youngest generation (default 700)
MIDDLE = 10  # youngest-generation collections between two of the middle one (the default)
OLD = 10  # middle-generation collections before a full one is considered (the default)


def settle() -> None:
    """Collect what start-up left, freeze the rest, and space collections out."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG, MIDDLE, OLD)
