"""Who may call each route reads off its declaration: the guards (service/http/api/guards.py) of every
operation, as one table. A new route must take its place here."""

from __future__ import annotations

from service.http.app import create_app

ANYONE: list[str] = []
WHO_MAY_CALL = {
    "healthz": ANYONE,
    "readyz": ANYONE,
    "metrics": ANYONE,
    "listGames": ANYONE,
    "createGame": ANYONE,
    "createPlayer": ANYONE,
    "getPlayer": ANYONE,
    "getLeaderboard": ANYONE,
    "getRatedResults": ANYONE,  # public results only, as the listing shows them
    "getSpectatorSnapshot": ANYONE,  # public games only: the game decides, not the caller
    "getSpectatorHead": ANYONE,  # public games only, as the snapshot
    "getSpectatorChunk": ANYONE,  # likewise
    "streamSpectatorEvents": ANYONE,
    "getGame": ["bearer_if_sent"],
    "joinGame": ["player_or_guest"],
    "startGame": ["host_or_seat"],  # a host who left strands nobody
    "seatComputerPlayer": ["host_or_seat"],  # as starting: any seated player may fill the table
    "leaveGame": ["seat_actor"],
    "revealSeed": ["seat_actor"],
    "sendCommand": ["seat_actor"],
    "getSeatView": ["seat_holder"],
    "getSeatEvents": ["seat_holder"],
    "streamSeatEvents": ["seat_holder"],
    "seatTranscript": ["seat_holder"],
    "seatTrace": ["seat_holder"],
    "eraseSeat": ["seat_holder"],  # a guest's own words; a conceded seat still holds its token
    "revokePlayerToken": ["player"],
    "refreshPlayerToken": ["player"],
    "listMyGames": ["player"],
    "registerWebhook": ["player"],
    "listWebhooks": ["player"],
    "deleteWebhook": ["player"],
    "myGameTranscript": ["player"],
    "mySeatToken": ["player"],
    "raiseDispute": ["bearer"],  # the seat is checked against the log (a seat it held, too)
    "replyToDispute": ["bearer"],
    "listGameDisputes": ["bearer_if_sent"],
    "listAccessRecords": ["bearer"],  # the seats it speaks for are checked against the log
    **{
        operation: ["moderator"]
        for operation in (
            "disputeQueue",
            "getDispute",
            "claimDispute",
            "releaseDispute",
            "noteDispute",
            "askSeat",
            "resolveDispute",
            "reviewDispute",
            "openIncidents",
            "clearIncident",
        )
    },
    **{
        operation: ["auditor"]
        for operation in (
            "auditGame",
            "auditLog",
            "auditState",
            "auditDiffs",
            "auditTranscript",
            "verifyChain",
            "exportGame",
        )
    },
    # The transparency log is public; a game's proofs are its moderators' and seats' (RULES 3).
    **{op: ANYONE for op in ("logKeys", "logCheckpoint", "logTile", "logConsistency")},
    "gameLogProof": ["log_reader"],
}


def test_every_operation_declares_who_may_call_it() -> None:
    app = create_app(database_url="postgresql://unused/unused")  # routes only: nothing connects
    declared = {
        str(handler.operation_id): [guard.__name__ for guard in handler.resolve_guards()]
        for route in app.routes
        for handler in getattr(route, "route_handlers", ())
        if handler.include_in_schema and handler.operation_id and "OPTIONS" not in handler.http_methods
    }
    assert declared == WHO_MAY_CALL
