"""A small typed reader of playlog's event streams (Server-Sent Events), for the generated client.

Each message is one ``EventMessage`` of the document (#/components/schemas/EventMessage): its
``event`` is the event's type, its ``id`` the event's number for this viewer and its ``data`` one
``EventOut`` as JSON, read here into the generated model. A dropped connection is resumed with
``Last-Event-ID``: no event is lost or read twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
from playlog_client.models import EventOut

# Reconnections in a row that bring nothing new before the reader gives up.
RECONNECTS = 5


@dataclass(frozen=True)
class EventMessage:
    event: str
    id: int
    data: EventOut


def _messages(lines: Iterator[str]) -> Iterator[EventMessage]:
    fields: dict[str, str] = {}
    for line in lines:
        if line == "":  # a blank line ends a message; one without data is a comment or keep-alive
            if "data" in fields and "id" in fields:
                data = EventOut.from_dict(json.loads(fields["data"]))
                yield EventMessage(
                    event=fields.get("event", data.type_.value), id=int(fields["id"]), data=data
                )
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            fields[name] = f"{fields[name]}\n{value}" if name == "data" and name in fields else value


def follow(
    http: httpx.Client, path: str, *, last_event_id: int | None = None, headers: dict[str, str] | None = None
) -> Iterator[EventMessage]:
    """The stream's events after ``last_event_id`` (None: from the first), resumed after a drop.

    It ends when the server ends the stream (a seat's stream ends when the seat changes hands)."""
    quiet = 0
    while True:
        sent = dict(headers or {})
        if last_event_id is not None:
            sent["Last-Event-ID"] = str(last_event_id)
        try:
            with http.stream("GET", path, headers=sent, timeout=httpx.Timeout(10.0, read=None)) as response:
                if response.status_code != 200:
                    raise RuntimeError(f"stream refused: {response.status_code} {response.read()!r}")
                for message in _messages(response.iter_lines()):
                    quiet = 0
                    last_event_id = message.id
                    yield message
            return
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.ConnectError) as exc:
            quiet += 1
            if quiet > RECONNECTS:
                raise RuntimeError(f"the stream keeps dropping: {exc}") from exc
