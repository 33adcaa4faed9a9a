"""HTTP controllers: thin; each builds a call to the game service and returns a Struct."""
