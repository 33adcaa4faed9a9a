"""Re-execution refuses every forgery of the issue, even with every hash and commitment recomputed.

Each test forges a real export as a dishonest operator would (tests/e2e/forgery.py: change the
log, recompute the chain, the commitments and the header) and shows that ``playlog verify``
names the first seq the rules refuse, because the log records every command and the seeds the
draws came from (docs/export-format.md).
"""

from __future__ import annotations

import copy
import itertools
import secrets
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from litestar import Litestar
from litestar.testing import AsyncTestClient

from domain import randomness
from projections.export import verify as export_verify
from service.tools.cli import main
from service.tools.client import PlaylogClient
from tests.e2e.forgery import Forged
from tests.e2e.test_export import _exported


@pytest.fixture
async def kittens(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> list[str]:
    return await _exported(api, http, moderator, "exploding_kittens", {"players": 3, "reaction_window": 0})


@pytest.fixture
async def risk_cat(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> list[str]:
    return await _exported(api, http, moderator, "a_risk_cat", {"players": 3, "mode": "full"})


def _refused(lines: list[str], seq: int, words: str = "") -> export_verify.VerifyReport:
    report = export_verify.verify_lines(lines)
    assert not report.ok
    assert report.first_bad_seq == seq, report.lines()
    assert words in "\n".join(report.lines()), report.lines()
    return report


def _command(event: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = event["metadata"]["command"]["body"]
    return body


def _group(forged: Forged, first: dict[str, Any]) -> list[dict[str, Any]]:
    return forged.events[first["seq"] - 1 : first["seq"] - 1 + first["metadata"]["command"]["events"]]


def _set_command(group: list[dict[str, Any]], body: dict[str, Any]) -> None:
    for event in group:  # the first event records it (events written before 0023: each one)
        if "command" in event["metadata"]:
            event["metadata"]["command"]["body"] = copy.deepcopy(body)


def _is_play(event: dict[str, Any], command: str) -> bool:
    body = event["metadata"].get("command", {}).get("body", {})
    return body.get("type") == "table.play" and body["command"]["type"] == command


def _occupancy(forged: Forged, seat: int) -> str:
    return str(
        forged.first(lambda e: e["type"] == "lobby.joined" and e["data"]["seat"] == seat)["data"]["occupancy"]
    )


async def test_an_honest_game_is_re_executed_command_by_command(
    kittens: list[str], risk_cat: list[str]
) -> None:
    for lines in (kittens, risk_cat):
        report = export_verify.verify_lines(lines)
        assert report.ok, report.lines()
        assert report.level == "re-executed" and report.executed > 0 and report.awaiting == 0
        assert "seeds:       ok" in report.lines()


async def test_a_draw_by_a_seat_not_on_turn_is_refused_with_the_rules_words(kittens: list[str]) -> None:
    forged = Forged(kittens)
    first = forged.opening(lambda e: _is_play(e, "DrawCard") and e["seq"] > 10)
    body = _command(first)
    other = (body["seat"] + 1) % 3
    _set_command(_group(forged, first), {**body, "seat": other, "holder": _occupancy(forged, other)})
    first["data"]["seat"] = other
    _refused(forged.lines(), first["seq"], f"It is seat {body['seat']}'s turn.")


async def test_an_exploding_kitten_played_as_a_card_is_refused(kittens: list[str]) -> None:
    forged = Forged(kittens)
    first = forged.opening(lambda e: _is_play(e, "PlayCard"))
    body = _command(first)
    _set_command(_group(forged, first), {**body, "command": {**body["command"], "card": "Exploding Kitten"}})
    first["data"]["card"] = "Exploding Kitten"
    _refused(forged.lines(), first["seq"])


async def test_a_draw_after_the_game_was_won_is_refused(kittens: list[str]) -> None:
    forged = Forged(kittens)
    draw = forged.opening(lambda e: _is_play(e, "DrawCard"))
    last = forged.events[-1]["seq"]
    forged.insert_after(last, copy.deepcopy(_group(forged, draw)))
    _refused(forged.lines(), last + 1, "seq")


async def test_an_a_risk_cat_token_drawn_after_the_end_is_refused(risk_cat: list[str]) -> None:
    forged = Forged(risk_cat)
    draw = forged.opening(lambda e: _is_play(e, "DrawToken"))
    last = forged.events[-1]["seq"]
    forged.insert_after(last, copy.deepcopy(_group(forged, draw)))
    _refused(forged.lines(), last + 1)


async def test_a_card_replaced_mid_game_differs_from_what_the_rules_produce(kittens: list[str]) -> None:
    forged = Forged(kittens)
    drawn = forged.first(lambda e: e["type"] == "CardDrawn" and e["seq"] > 20)
    drawn["data"]["card"] = "Defuse" if drawn["data"]["card"] != "Defuse" else "Skip"
    _refused(forged.lines(), drawn["seq"], "event differs from what the rules produce")


async def test_a_token_replaced_mid_game_differs_from_what_the_rules_produce(risk_cat: list[str]) -> None:
    forged = Forged(risk_cat)
    drawn = forged.first(lambda e: e["type"] == "TokenDrawn" and e["seq"] > 20)
    drawn["data"]["token"] = "p2-1" if drawn["data"]["token"] != "p2-1" else "p3-1"
    _refused(forged.lines(), drawn["seq"], "event differs from what the rules produce")


async def test_a_swapped_deal_with_its_reveal_and_both_commitments_recomputed_is_refused(
    kittens: list[str],
) -> None:
    forged = Forged(kittens)
    dealt = forged.first(lambda e: e["type"] == "DeckDealt")
    pile = next(s for s in forged.shuffles if s["seq"] == dealt["seq"])["order"]
    other = next(i for i, card in enumerate(pile) if card != pile[0])
    swapped = list(pile)
    swapped[0], swapped[other] = pile[other], pile[0]
    forged.recommit(dealt["seq"], swapped)
    if "draw_pile" in dealt["data"]:
        dealt["data"]["draw_pile"] = swapped
    _refused(forged.lines(), dealt["seq"], "event differs from what the rules produce")


async def test_a_changed_player_count_in_lobby_created_is_refused(kittens: list[str]) -> None:
    forged = Forged(kittens)
    created = forged.event(1)
    created["data"]["options"]["players"] = 4
    created["metadata"]["command"]["body"]["options"]["players"] = 4
    forged.header["options"]["players"] = 4
    start = forged.first(lambda e: e["type"] == "lobby.started")
    _refused(forged.lines(), start["seq"], "seat(s) are still free")


async def test_a_changed_edition_in_lobby_created_is_refused(kittens: list[str]) -> None:
    forged = Forged(kittens)
    created = forged.event(1)
    edition = "classic" if created["data"]["options"]["edition"] != "classic" else "2022"
    created["data"]["options"]["edition"] = edition
    created["metadata"]["command"]["body"]["options"]["edition"] = edition
    forged.header["options"]["edition"] = edition
    dealt = forged.first(lambda e: e["type"] == "DeckDealt")
    _refused(forged.lines(), dealt["seq"])


async def test_a_win_appended_to_a_running_game_is_refused(kittens: list[str]) -> None:
    forged = Forged(kittens)
    won = forged.first(lambda e: e["type"] == "ExplodingKittensWon")
    cut = forged.opening(lambda e: _is_play(e, "DrawCard") and e["seq"] > 30)["seq"] - 1
    forged.truncate_after(cut)
    forged.records = [r for r in forged.records if r["record"] != "access"]
    forged.header.update(status="running", winners=None, scores=None)
    running = export_verify.verify_lines(forged.lines())
    assert running.ok, running.lines()  # an honest running game verifies up to its last event
    assert "seeds:       not disclosed yet" in running.lines()
    # The forger appends the win as what a draw produced.
    draw = forged.opening(lambda e: _is_play(e, "DrawCard"))
    win = copy.deepcopy(won)
    win["metadata"] = copy.deepcopy(draw["metadata"])
    win["metadata"]["command"]["events"] = 1
    win["metadata"]["command"]["body"]["seat"] = won["data"].get("seat", 0)
    forged.insert_after(cut, [win])
    forged.header.update(status="finished", winners=won["data"].get("winners"))
    _refused(forged.lines(), cut + 1)


async def test_every_header_fact_is_checked(kittens: list[str], risk_cat: list[str]) -> None:
    for field, value in (("public", False), ("spectator_delay", 99.0), ("rules_version", 7)):
        forged = Forged(kittens)
        forged.header[field] = value
        _refused(forged.lines(), 1, f"the header's {field} differs from lobby.created")
    forged = Forged(risk_cat)
    assert forged.header["scores"]
    forged.header["scores"] = [score + 1 for score in forged.header["scores"]]
    _refused(forged.lines(), forged.header["events"], "scores")


async def test_a_torn_last_line_and_an_unknown_format_version_name_their_line(kittens: list[str]) -> None:
    torn = [*kittens[:-1], kittens[-1][: len(kittens[-1]) // 2]]
    report = export_verify.verify_lines(torn)
    assert report.first_bad_line == len(kittens) and report.first_bad_seq is None
    assert report.lines()[-1] == f"FAILED: first bad line {len(kittens)}"
    forged = Forged(kittens)
    forged.header["format_version"] = 2
    report = export_verify.verify_lines(forged.lines())
    assert report.first_bad_line == 1 and "format_version 2" in "\n".join(report.lines())


async def test_a_server_seed_changed_after_its_commitment_is_caught(kittens: list[str]) -> None:
    forged = Forged(kittens)
    disclosed = forged.first(lambda e: e["type"] == "lobby.seed_disclosed")
    disclosed["data"]["seed"] = secrets.token_bytes(32).hex()
    report = export_verify.verify_lines(forged.lines())
    assert not report.ok and not report.seeds_ok
    assert any(
        f.check == "seeds" and f.seq == disclosed["seq"] and "does not match its commitment" in f.reason
        for f in report.findings
    ), report.lines()


async def test_the_audit_re_executes_a_running_game_with_the_servers_seed(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    created = await api.create_game(
        "exploding_kittens", {"players": 2, "reaction_window": 0}, spectator_delay=0
    )
    seats = [await api.join(created.game_id, f"p{n}") for n in range(2)]
    await api.start(created.game_id, created.host_token)
    view = await api.view(created.game_id, 0, seats[0].token)
    assert view.view is not None
    active = view.view["public"]["active_seat"]
    await api.send(created.game_id, active, seats[active].token, {"type": "DrawCard"})
    response = await http.get(
        f"/games/{created.game_id}/audit/verify", params={"reason": "incident"}, headers=moderator
    )
    assert response.status_code == 200, response.text
    report = response.json()
    assert report["ok"] and report["level"] == "re-executed" and report["commands"] == 5
    log = (
        await http.get(
            f"/games/{created.game_id}/audit/log", params={"reason": "incident"}, headers=moderator
        )
    ).json()
    committed = log[0]["data"]["seed_commitment"]
    assert randomness.server_commitment(bytes.fromhex(report["server_seed"])) == committed


async def test_seats_commit_and_reveal_their_seeds_over_http_and_the_deal_re_executes(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    created = await api.create_game(
        "exploding_kittens", {"players": 2, "reaction_window": 0}, spectator_delay=0
    )
    mine = [secrets.token_bytes(32) for _ in range(2)]
    tokens = []
    for n, seed in enumerate(mine):
        joined = await http.post(
            f"/games/{created.game_id}/seats",
            json={"name": f"p{n}", "seed_commitment": randomness.seat_commitment(seed)},
        )
        assert joined.status_code == 201, joined.text
        tokens.append({"Authorization": f"Bearer {joined.json()['token']}"})
    path = f"/games/{created.game_id}/seats/0/seed"
    wrong = await http.post(path, json={"seed": mine[1].hex()}, headers=tokens[0])
    assert (wrong.status_code, wrong.json()["code"]) == (422, "seed_mismatch")
    for n, seed in enumerate(mine):
        revealed = await http.post(
            f"/games/{created.game_id}/seats/{n}/seed", json={"seed": seed.hex()}, headers=tokens[n]
        )
        assert revealed.status_code == 200, revealed.text
    left = await http.delete(f"/games/{created.game_id}/seats/1", headers=tokens[1])
    assert (left.status_code, left.json()["code"]) == (409, "seeds_revealed")
    await api.start(created.game_id, created.host_token)
    report = (
        await http.get(
            f"/games/{created.game_id}/audit/verify", params={"reason": "incident"}, headers=moderator
        )
    ).json()
    assert report["ok"] and report["level"] == "re-executed", report
    log = (
        await http.get(
            f"/games/{created.game_id}/audit/log", params={"reason": "incident"}, headers=moderator
        )
    ).json()
    assert [e["data"]["seed"] for e in log if e["type"] == "lobby.seed_revealed"] == [s.hex() for s in mine]


async def test_stripping_the_recorded_commands_does_not_downgrade_the_check(kittens: list[str]) -> None:
    forged = Forged(kittens)
    for event in forged.events:
        event["metadata"].pop("command", None)
    _refused(forged.lines(), 1, "records its commands")


async def test_a_modern_log_stripped_to_the_replayed_level_with_a_forged_draw_is_not_ok(
    kittens: list[str], tmp_path: Path
) -> None:
    """The downgrade: strip the recorded commands, unmake the seed commitment and its disclosure
    (what an unseeded game needs to look older), forge a draw. Replayed, the forgery passes; so
    the verdict says the level, and ``playlog verify`` refuses it unless the level is accepted."""
    forged = Forged(kittens)
    for event in forged.events:
        event["metadata"].pop("command", None)
    forged.event(1)["data"]["seed_commitment"] = None
    disclosed = forged.first(lambda e: e["type"] == "lobby.seed_disclosed")["seq"]
    assert disclosed == forged.events[-1]["seq"]
    forged.truncate_after(disclosed - 1)
    forged.records = [r for r in forged.records if r["record"] != "access"]  # they name the last seq
    drawn = forged.first(lambda e: e["type"] == "CardDrawn" and e["seq"] > 20)
    drawn["data"]["card"] = "Defuse" if drawn["data"]["card"] != "Defuse" else "Skip"
    lines = forged.lines()

    report = export_verify.verify_lines(lines)
    assert not report.ok and not report.findings, report.lines()  # nothing contradicts it ...
    assert "level:       replayed (no recorded commands): NOT ACCEPTED" in report.lines()
    assert report.lines()[-1] == (
        "UNVERIFIED: the level replayed (no recorded commands) is not accepted (--accept-level replayed)"
    )
    # ... which is why only the caller can accept that level: then it passes, forgery and all.
    assert export_verify.verify_lines(lines, accept=("replayed",)).ok

    path = tmp_path / "downgraded.jsonl"
    path.write_text("".join(lines))
    refused = CliRunner().invoke(main, ["verify", str(path)])
    assert refused.exit_code == 3 and refused.output.splitlines()[-1].startswith("UNVERIFIED: "), (
        refused.output
    )
    accepted = CliRunner().invoke(main, ["verify", "--accept-level", "replayed", str(path)])
    assert accepted.exit_code == 0 and accepted.output.splitlines()[-1] == "OK", accepted.output


async def test_groups_written_before_the_record_was_kept_once_still_re_execute(
    kittens: list[str], risk_cat: list[str]
) -> None:
    """Logs written before migration 0023 carry the command's record on every event of its group,
    and before 0024 its id: they re-execute as they did, and a group mixing the forms is still
    one group."""
    for lines, left_out in itertools.product((kittens, risk_cat), ((), ("command",))):
        honest = export_verify.verify_lines(lines)
        assert honest.ok, honest.lines()
        forged = Forged(lines)
        at = 0
        while at < len(forged.events):
            first = forged.events[at]
            count = first["metadata"]["command"]["events"]
            for n, event in enumerate(forged.events[at + 1 : at + count]):
                assert event["metadata"] == {"actor": first["metadata"]["actor"]}  # since 0024
                if n % 2 == 0:  # every other one: a group of mixed forms
                    event["metadata"] = {
                        k: copy.deepcopy(v) for k, v in first["metadata"].items() if k not in left_out
                    }
            at += count
        report = export_verify.verify_lines(forged.lines())
        assert report.ok, report.lines()
        assert report.level == honest.level


async def test_a_group_member_with_another_commands_metadata_is_refused(kittens: list[str]) -> None:
    forged = Forged(kittens)
    first = forged.opening(lambda e: e["metadata"]["command"]["events"] > 1)
    member = forged.events[first["seq"]]
    member["metadata"] = {**member["metadata"], "actor": "seat:9"}
    _refused(forged.lines(), member["seq"], "its metadata is not its group's")
