"""What the benches share: the database, the service in a subprocess or in process, a lean client."""
