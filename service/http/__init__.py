"""HTTP: the Litestar app, its controllers (``api/``), pages (``web/``), errors and OpenAPI document."""
