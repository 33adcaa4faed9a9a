"""Forgeries with every hash recomputed, as an operator with the database could write them:
illegal moves, replaced cards and tokens, swapped deals with recomputed commitments, changed
options, invented wins, changed rulings (issue 35). Only re-executing the recorded commands can
refuse them; each names the seq the forger changed (or, for options, the first that cannot follow
from them)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from copy import deepcopy
from dataclasses import replace
from decimal import Decimal
from typing import Any

from domain import commitment
from projections.export import format as export_format
from tests.mutations.files import Base, Mutant

DRAWS = {"exploding_kittens": "CardDrawn", "a_risk_cat": "TokenDrawn"}
DEALS = {"exploding_kittens": "DeckDealt", "a_risk_cat": "ARiskCatGameSetUp"}
DEAL_ORDER = {"DeckDealt": "draw_pile", "ARiskCatGameSetUp": "bag"}


def rechain(game_id: str, events: list[dict[str, Any]]) -> bytes:
    """Each event's ``prev_hash`` and ``hash`` recomputed in place, as a forger with the database
    would; returns the last hash."""
    running = export_format.GENESIS_HASH
    for event in events:
        event["prev_hash"] = running.hex()
        running = export_format.event_digest(
            running,
            game_id,
            event["seq"],
            event["type"],
            event["schema_version"],
            event["data"],
            event["metadata"],
            Decimal(event["recorded_at"]),
        )
        event["hash"] = running.hex()
    return running


class Forged:
    """An export's records, editable, written back with the chain recomputed."""

    def __init__(self, base: Base) -> None:
        self.base = base
        self.header: dict[str, Any] = json.loads(base.raw[0])
        self.events = [export_format.parse(line.raw) for line in base.of("event")]
        self.shuffles = [json.loads(line.raw) for line in base.of("shuffle")]
        self.access = [line.raw for line in base.of("access")]

    @property
    def kind(self) -> str:
        return str(self.header["kind"])

    def of(self, event_type: str, **where: Any) -> list[dict[str, Any]]:
        return [
            e
            for e in self.events
            if e["type"] == event_type and all(e["data"].get(k) == v for k, v in where.items())
        ]

    def command(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """The recorded command's body that produced ``event`` (None in an older game)."""
        recorded = event["metadata"].get("command") if isinstance(event["metadata"], dict) else None
        return recorded.get("body") if isinstance(recorded, dict) else None

    def set_command(self, event: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> None:
        """Change the recorded command of ``event``'s group, in every event of the group."""
        old = event["metadata"]
        if self.command(event) is None:
            return
        new = deepcopy(old)
        change(new["command"]["body"])
        for other in self.events:
            if other["metadata"] == old:
                other["metadata"] = new

    def append(self, event_type: str, schema_version: int, data: dict[str, Any], actor: str) -> int:
        last = self.events[-1]
        seq = int(last["seq"]) + 1
        self.events.append(
            {
                "record": "event",
                "seq": seq,
                "type": event_type,
                "schema_version": schema_version,
                "recorded_at": str(Decimal(last["recorded_at"]) + Decimal("0.250000")),
                "prev_hash": "",
                "hash": "",
                "metadata": {"actor": actor, "command_id": None, "correlation_id": None},
                "data": data,
            }
        )
        return seq

    def lines(self) -> list[bytes]:
        running = rechain(self.header["game_id"], self.events)
        out = []
        for event in self.events:
            head = {
                k: event[k]
                for k in ("record", "seq", "type", "schema_version", "recorded_at", "prev_hash", "hash")
            }
            envelope = json.dumps(head, separators=(",", ":"))[:-1]
            metadata, data = (
                export_format.canonical(event["metadata"]),
                export_format.canonical(event["data"]),
            )
            out.append(f'{envelope},"metadata":{metadata},"data":{data}}}\n'.encode())
        self.header["events"] = len(self.events)
        self.header["last_hash"] = running.hex()
        header = json.dumps(self.header, separators=(",", ":"), ensure_ascii=False) + "\n"
        shuffles = [
            json.dumps(s, separators=(",", ":"), ensure_ascii=False).encode() + b"\n" for s in self.shuffles
        ]
        return [header.encode(), *out, *shuffles, *self.access]

    def mutant(self, kind: str, what: str, *seqs: int) -> Mutant:
        where = frozenset(f"seq {seq}" for seq in seqs)
        return Mutant(f"forged: {kind}", f"{self.base.name}: {what}", self.lines(), where, rules=True)


def _players(forged: Forged) -> int:
    return int(forged.header["options"]["players"])


def seat_not_on_turn(base: Base, rng: random.Random) -> Mutant | None:
    """A draw by another seat than the one that drew (the command rewritten to match)."""
    forged = Forged(base)
    draws = forged.of(DRAWS[forged.kind], by_server=False)
    if not draws:
        return None
    event = rng.choice(draws)
    seat = rng.choice([s for s in range(_players(forged)) if s != event["data"]["seat"]])
    forged.set_command(event, lambda body: body.update(seat=seat))
    event["data"]["seat"] = seat
    return forged.mutant("seat not on turn", f"seq {event['seq']} drawn by seat {seat}", event["seq"])


def kitten_played(base: Base, rng: random.Random) -> Mutant | None:
    """An Exploding Kitten played as an action card."""
    forged = Forged(base)
    played = forged.of("CardPlayed")
    if not played:
        return None
    event = rng.choice(played)
    forged.set_command(event, lambda body: body["command"].update(card="Exploding Kitten"))
    event["data"]["card"] = "Exploding Kitten"
    return forged.mutant("kitten played", f"seq {event['seq']}", event["seq"])


def drawn_after_the_end(base: Base, rng: random.Random) -> Mutant | None:
    """A card (a token) drawn after the game was won, appended to a finished game."""
    forged = Forged(base)
    draws = forged.of(DRAWS[forged.kind])
    if forged.header["status"] != "finished" or not draws:
        return None
    model = rng.choice(draws)
    seat = rng.choice(forged.header["winners"])
    seq = forged.append(
        model["type"], model["schema_version"], {**deepcopy(model["data"]), "seat": seat}, f"seat:{seat}"
    )
    return forged.mutant("drawn after the end", f"{model['type']} appended", seq)


def replaced(base: Base, rng: random.Random) -> Mutant | None:
    """A drawn card (token) replaced by another one of the game mid-game."""
    forged = Forged(base)
    field = "card" if forged.kind == "exploding_kittens" else "token"
    draws = [e for e in forged.of(DRAWS[forged.kind]) if e["data"].get(field)]
    if not draws:
        return None
    event = rng.choice(draws)
    others = sorted({e["data"][field] for e in draws} - {event["data"][field]})
    if not others:
        return None
    event["data"][field] = rng.choice(others)
    return forged.mutant("replaced mid-game", f"seq {event['seq']} {field}", event["seq"])


def swapped_deal(base: Base, rng: random.Random) -> Mutant | None:
    """Two different cards (tokens) of the dealt order swapped, in the event and its reveal, with
    the commitment recomputed in both."""
    forged = Forged(base)
    deals = forged.of(DEALS[forged.kind])
    if not deals:
        return None
    event = deals[0]
    order = event["data"][DEAL_ORDER[event["type"]]]
    pairs = [(i, j) for i in range(len(order)) for j in range(i + 1, len(order)) if order[i] != order[j]]
    i, j = rng.choice(pairs)
    order[i], order[j] = order[j], order[i]
    event["data"]["commitment"] = commitment.commit(order, event["data"]["salt"])
    for reveal in forged.shuffles:
        if reveal["seq"] == event["seq"]:
            reveal["order"], reveal["commitment"] = list(order), event["data"]["commitment"]
    return forged.mutant("swapped deal", f"seq {event['seq']} positions {i}, {j}", event["seq"])


def changed_options(base: Base, rng: random.Random) -> Mutant | None:
    """``players`` one more (or ``edition``/``mode`` switched) in lobby.created, its command and
    the header: the first seq that cannot follow from the new options lies up to the deal."""
    forged = Forged(base)
    created = forged.events[0]
    options = deepcopy(created["data"]["options"])
    switch = {"edition": {"2022": "classic", "classic": "2022"}, "mode": {"base": "full", "full": "base"}}
    # The editions deal the same deck but for 3 players (RULES 1.2): elsewhere, nothing to catch.
    names = [k for k in switch if k in options and (k != "edition" or options["players"] == 3)]
    name = rng.choice(["players", *names])
    most = 5 if forged.kind == "exploding_kittens" else 8
    if name == "players":
        options[name] += 1 if options[name] < most else -1
    else:
        options[name] = switch[name][options[name]]
    created["data"]["options"] = options
    forged.set_command(created, lambda body: body.update(options=options))
    forged.header["options"] = json.loads(json.dumps(options, default=float))
    deal = forged.of(DEALS[forged.kind])
    last = int(deal[0]["seq"]) if deal else len(forged.events) + 1
    return forged.mutant("changed options", f"{name} -> {options[name]}", *range(1, last + 1))


def invented_win(base: Base, rng: random.Random) -> Mutant | None:
    """A win appended to a running game, the header saying finished."""
    forged = Forged(base)
    if forged.header["status"] != "running":
        return None
    players = _players(forged)
    winner = rng.randrange(players)
    if forged.kind == "exploding_kittens":
        version = int(forged.header["schema_versions"].get("ExplodingKittensWon", 1))
        data: dict[str, Any] = {"type": "ExplodingKittensWon", ("winner" if version >= 2 else "seat"): winner}
        seq = forged.append("ExplodingKittensWon", version, data, "server")
    else:
        scores = [0] * players
        scores[winner] = 10
        data = {
            "type": "ARiskCatGameEnded",
            "scores": scores,
            "winners": [winner],
            "awaiting": None,
            "deadline": None,
            "holdings": [[0] * 11 for _ in range(players)],
            "paintings_won": [-1] * 11,
        }
        seq = forged.append("ARiskCatGameEnded", 1, data, "server")
        forged.header["scores"] = scores
    forged.header["status"], forged.header["winners"] = "finished", [winner]
    return forged.mutant("invented win", f"seat {winner} wins at seq {seq}", seq)


def changed_ruling(base: Base, rng: random.Random) -> Mutant | None:
    """A dispute's verdict turned the other way (the moderator's recorded command left as it was)."""
    forged = Forged(base)
    rulings = forged.of("dispute.resolved")
    if not rulings:
        return None
    event = rng.choice(rulings)
    event["data"]["verdict"] = {"dismissed": "upheld", "upheld": "dismissed"}[event["data"]["verdict"]]
    return forged.mutant("changed ruling", f"seq {event['seq']}", event["seq"])


def server_seed_changed(base: Base, rng: random.Random) -> Mutant | None:
    """Another server seed disclosed than the one committed (the server changed its mind): named
    at the commitment (lobby.created), at the disclosure, or where the draws re-executed with it
    first differ (the deal)."""
    forged = Forged(base)
    disclosed = forged.of("lobby.seed_disclosed")
    deals = forged.of(DEALS[forged.kind])
    if not disclosed or not deals:
        return None
    event = disclosed[0]
    event["data"]["seed"] = f"{rng.getrandbits(256):064x}"
    deal = int(deals[0]["seq"])
    mutant = forged.mutant("server seed changed", f"seq {event['seq']}", 1, event["seq"], deal)
    return replace(mutant, rules=False)  # the seeds are on the page


def seat_seed_changed(base: Base, rng: random.Random) -> Mutant | None:
    """A seat's revealed seed replaced (in the event and its command): it no longer matches the
    commitment the seat made on joining."""
    forged = Forged(base)
    reveals = forged.of("lobby.seed_revealed")
    if not reveals:
        return None
    event = rng.choice(reveals)
    seed = f"{rng.getrandbits(256):064x}"
    forged.set_command(event, lambda body: body.update(seed=seed))
    event["data"]["seed"] = seed
    mutant = forged.mutant("seat seed changed", f"seq {event['seq']}", event["seq"])
    return replace(mutant, rules=False)  # the seeds are on the page


FORGERIES: list[Callable[[Base, random.Random], Mutant | None]] = [
    seat_not_on_turn,
    kitten_played,
    drawn_after_the_end,
    replaced,
    swapped_deal,
    changed_options,
    invented_win,
    changed_ruling,
    server_seed_changed,
    seat_seed_changed,
]


def forgeries(base: Base, seed: int, each: int = 3) -> list[Mutant]:
    rng = random.Random(seed)
    made = (forge(base, rng) for forge in FORGERIES for _ in range(each))
    return [m for m in made if m is not None]
