"""A webhook receiver for the tests: an HTTP server on 127.0.0.1 that keeps every message it is
sent (path, headers, body) and answers 204, or ``status`` while it is set."""

from __future__ import annotations

import hashlib
import hmac
import http.server
import json
import threading
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> dict[str, Any]:
        decoded: dict[str, Any] = json.loads(self.body)
        return decoded

    def signed_by(self, secret: str) -> bool:
        """Whether Playlog-Signature is ``secret``'s HMAC-SHA256 over "<t>.<body>"."""
        parts = dict(part.split("=", 1) for part in self.headers["playlog-signature"].split(","))
        expected = hmac.new(secret.encode(), f"{parts['t']}.".encode() + self.body, hashlib.sha256)
        return hmac.compare_digest(parts["v1"], expected.hexdigest())


@dataclass
class Receiver:
    status: int = 204
    received: list[Received] = field(default_factory=list)
    _server: http.server.ThreadingHTTPServer | None = None

    def url(self, path: str = "/") -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}{path}"

    def __enter__(self) -> Receiver:
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status = receiver.status
                if status < 300:
                    headers = {k.lower(): v for k, v in self.headers.items()}
                    receiver.received.append(Received(self.path, headers, body))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(
        self, _t: type[BaseException] | None, _e: BaseException | None, _tb: TracebackType | None
    ) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
