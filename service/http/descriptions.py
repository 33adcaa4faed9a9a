"""What each operation does, for the OpenAPI document: who may call it, what it answers, what to
know before relying on it. An operation whose decorator says it (``description=``) is not here;
tests/e2e/test_openapi_contract.py fails on an operation with neither."""

from __future__ import annotations

_KEY = (
    " Send an `Idempotency-Key`: a retry with it gets the first answer, status and body, whatever"
    " happened since."
)
# The pagination rules (docs/api.md, "Pages"): a list that can grow is read in pages.
_PAGES = (
    " In pages of `limit` (1 to 200, default 50): the answer's `next` is the URL of the next page"
    ' (null on the last), also sent as `Link: <URL>; rel="next"` (RFC 8288); follow it as'
    " given, its `cursor` is opaque. Pages are cut at the last row's key, not at a count: a row"
    " added while a client pages never shifts the pages it has not read, so none is skipped or"
    " read twice (a newer row shows on a new first page). A made-up, cut or other list's"
    " cursor: 400 invalid_cursor; a `limit` out of bounds: 400 invalid_limit."
)
_OFFSET = (
    " `offset` (deprecated, for clients of v0.1) still skips that many games, without `cursor`"
    " (both: 400 invalid_offset); its `next` continues by cursor."
)
# Event lists: `after` is their key, in the reader's own numbering.
_EVENT_PAGES = (
    " In pages: the events after `after`, `limit` at most (1 to 1000; absent, every event after"
    " `after`). The answer is the events themselves (a JSON array); while more may follow, a"
    ' `Link: <URL>; rel="next"` header (RFC 8288) names the next page: the same query with'
    " `after` set to the page's last number. New events only ever come after the last: reading"
    " on from it never skips or repeats one."
)
_AUDIT = (
    " A moderator's token with a `reason` (its read goes on the game's access record), or none once"
    " a public game is over."
)

DESCRIPTIONS: dict[str, str] = {
    "listGames": (
        "The public games, newest first, filtered by `status` and `kind`: each as its spectators"
        " see it (a result is shown a spectator delay after it happened)." + _PAGES + _OFFSET
    ),
    "createGame": (
        "Creates a game of one `kind` with that game's options and answers its host token (the"
        " only way to start the game) and its number of seats; `Location` is the game's summary."
        + _KEY
        + " Without a token the key is the only proof of being the same caller: use a random UUID."
    ),
    "auditGame": "The whole audit at once: the hash chain checked and every shuffle's commitment opened."
    + _AUDIT,
    "auditDiffs": (
        "For each event of the log, the paths of the state it changed, before and after."
        + _EVENT_PAGES
        + " (Here `after` is the log's seq.)"
        + _AUDIT
    ),
    "auditLog": (
        "Every event of the log in order, hidden information included, with its metadata (the"
        " command it came from) and its place in the hash chain."
        + _EVENT_PAGES
        + " (Here `after` is the log's seq.)"
        + _AUDIT
    ),
    "auditState": "The complete state (every hand, the deck's order) right after event `at`." + _AUDIT,
    "auditTranscript": "A hand history in words, one line per event, every card face up." + _AUDIT,
    "verifyChain": (
        "Recomputes the game's hash chain from its first event and says where it breaks, if it does." + _AUDIT
    ),
    "listGameDisputes": (
        "The disputes of the game, each as the caller may read it: the fields it may not see (a"
        " reason, a note) are absent. Every viewer may know that a dispute exists."
    ),
    "raiseDispute": (
        "A seat of a finished game disputes some of its events (`seqs`, in the seat's numbering)"
        " with a category and a reason; a moderator takes it from the queue." + _KEY
    ),
    "replyToDispute": "The seat a moderator asked a question answers it, once per question." + _KEY,
    "gameLogProof": (
        "The heads of this game in the transparency log, each with its inclusion proof against"
        " the checkpoint of tree `size` (the newest without it): a seat (once the game is over,"
        " if nothing in it is hidden from anyone) or a spectator checks that the game it saw is the"
        " one the log keeps."
    ),
    "joinGame": (
        "Takes the first free seat and answers its seat token. With a player token the seat is"
        " that player's (and its name); without one, a guest joins under `name`. `Location` is the"
        " seat's view." + _KEY + " A lost answer is recovered this way: the same seat, the same token."
    ),
    "revealSeed": (
        "Reveals the 32 bytes a seat committed to when it joined (`seed_commitment`), once every"
        " seat is taken and before the start; they are mixed into the game's randomness"
        ' (docs/export-format.md, "Randomness"). 422 `seed_mismatch` if they do not match the'
        " commitment. Answers the game's summary."
    ),
    "eraseSeat": (
        "A guest erases themself, with the token of the seat they joined: their name and their"
        " disputes' texts in this game are destroyed (docs/erasure.md), the game shows them by a"
        " pseudonym and a `lobby.erased` event; it cannot be undone. Possible while the seat token is"
        " valid, so also a while after the game ends (the dispute window). A player's seat is refused"
        " (409 `erase_as_player`): a player is erased in every game at once, with"
        " `DELETE /players/me?erase=true`. Answers what was erased; erasing again changes nothing."
    ),
    "leaveGame": (
        "Before the start the seat is freed; once the game runs the seat concedes (it is out of"
        " the game, by the game's rules). Answers the game's summary."
    ),
    "sendCommand": (
        "One command of the seat's game (its tagged union, field `type`), as listed in the seat's"
        " view (`legal_commands`). Answers the seat's new version and its events; with"
        " `view=true`, its view too. `expected_version` refuses the command if the game has moved"
        " (409 version_conflict): decide again on a fresh view. Refusals listed in"
        " `x-playlog-races` only mean the game moved on meanwhile." + _KEY + " Checked before"
        " anything else, `expected_version` included: a retry never answers 409 for a command"
        " that was applied."
    ),
    "getSeatEvents": (
        "The events this seat may see after version `after`, in order, numbered for this seat"
        " (never the log's own numbers: a seat cannot count what it does not see)."
        + _EVENT_PAGES
        + " A full page (`limit` events) links to the next, which may be empty: the seat is never"
        " told whether events it may not see follow."
    ),
    "streamSeatEvents": (
        "The seat's events as they happen, as Server-Sent Events, each numbered for this seat;"
        " resume after a drop with `Last-Event-ID` (or `after`). The stream ends when the seat"
        " changes hands. After each batch of events, a `receipt` message without an `id` carries"
        ' the service\'s signed receipt of them (`{"receipt": note}`, docs/receipts.md).'
    ),
    "listAccessRecords": (
        "Moderators read every record with the log's seqs and the records' hash chain. A seat"
        " (its seat token, or the player token of the player who held it, also after the seat"
        " token lapsed) reads them once the game has ended, and at any time those of a dispute"
        " it raised: each range in the seat's own numbering, no chain. Spectators never."
        " Oldest first." + _PAGES + " The cursor holds the last record's `at` and how many of this"
        " reader's records share it, values the reader's page shows: never the records' `n`, so"
        " a seat's cursor counts no read it may not see."
    ),
    "seatTranscript": (
        "The finished game in words as this seat saw it: its own cards face up, the others' hidden."
    ),
    "getSeatView": (
        "What this seat knows now: the public table, its own hand and knowledge, its version and"
        " the commands it may send now (`legal_commands`, its own moves first; `moves` lists them"
        " without leaving or conceding)."
    ),
    "getSpectatorSnapshot": (
        "The public table as it was a spectator delay ago, with its version in the spectators'"
        " numbering: the place to start the spectator stream from."
    ),
    "streamSpectatorEvents": (
        "The public events, each a spectator delay after it happened, as Server-Sent Events"
        " numbered for spectators; resume with `Last-Event-ID`. It ends after the game's last"
        " event."
    ),
    "startGame": "The host starts the game once every seat is taken; answers the game's summary." + _KEY,
    "healthz": "Always 200 while the process runs (a liveness probe: it does not ask the database).",
    "logCheckpoint": (
        "The transparency log's newest checkpoint as a C2SP signed note; with `cosigned`, the"
        " newest one the witnesses have cosigned, their cosignatures appended."
    ),
    "logConsistency": "The proof that the log of size `from` is a prefix of the log of size `to`.",
    "logKeys": "The log's public keys (retired ones stay, to check old checkpoints) and the witnesses' keys.",
    "logTile": (
        "One tile of the log's Merkle tree hashes, or (`entries/<N>`) one bundle of its entries"
        " (C2SP tlog-tiles); keep it as `Cache-Control` says."
    ),
    "metrics": "The process's metrics in Prometheus' text format (commands by outcome among them).",
    "disputeQueue": (
        "The disputes moderators have to take, oldest first, filtered by status, kind and category." + _PAGES
    ),
    "claimDispute": "The moderator takes the dispute; nobody else can act on it until released or resolved."
    + _KEY,
    "noteDispute": "A note on the dispute only moderators read; `Location` is the dispute's detail." + _KEY,
    "askSeat": (
        "The moderator asks one seat of the game a question; the seat reads it on its stream and"
        " replies. `Location` is the dispute's detail." + _KEY
    ),
    "releaseDispute": "The claiming moderator gives the dispute back to the queue." + _KEY,
    "resolveDispute": (
        "The ruling: dismissed, or upheld with an action (none, void the game, award it, penalize"
        " a seat); a ruling that changes the outcome is public a spectator delay later." + _KEY
    ),
    "reviewDispute": (
        "Opens a review of a resolved dispute: a new dispute citing it, in the queue;"
        " `Location` is its detail." + _KEY
    ),
    "openIncidents": (
        "Games the service stopped because their log lacks moves it had acknowledged (a failover"
        " lost them), oldest first: each waits for a moderator."
    ),
    "clearIncident": (
        "After inspection, the game goes on from its log as it stands; the moderator's `note` (what"
        " was found and decided) is kept with the incident."
    ),
    "createPlayer": (
        "A player under a display name, with its player token: it joins games as itself and finds"
        " its seats again. `Location` is the player's public page."
    ),
    "revokePlayerToken": (
        "Every token of the player is refused from now on (answer 204, no body). With"
        " `erase=true` the player is also erased (docs/erasure.md), which cannot be undone: their"
        " name in every game they sat in, and their disputes' reasons and replies, are destroyed;"
        " every game shows them by a pseudonym (`Player` and four hex digits) and their texts as"
        " `(erased)`, each game gets a `lobby.erased` event, and their statistics stay with the"
        " pseudonym. Answers 200 with what was erased; erasing again changes nothing. Games played"
        " before erasure existed keep the name (`kept`)."
    ),
    "listMyGames": ("The games the caller holds a seat in, newest first, with each seat." + _PAGES + _OFFSET),
    "refreshPlayerToken": (
        "A new player token for the caller, signed with the newest key: rotate keys without"
        " asking players to start again."
    ),
    "readyz": (
        "200 while the database answers, 503 while it does not (take the instance out of the balancer)."
    ),
}
