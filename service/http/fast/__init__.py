"""Everything that leans on Litestar's or uvicorn's internals, fenced in one room (docs/architecture.md)."""
