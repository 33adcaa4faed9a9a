"""Games used only by the tests (never registered with the service): the smallest games that
prove a new game fits the engine (tests/conformance)."""
