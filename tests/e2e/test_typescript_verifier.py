"""The second-language verifier (examples/typescript/verify.ts, written from docs/export-format.md
alone) agrees with ``playlog verify`` on every file of the mutation corpus it can judge: the
chain, the commitments, the seeds, the structure; not the rules, which are not on the page.

Agreement: both refuse or both accept; a chain or format finding names the same place in both;
and where ``playlog verify`` finds nothing only the rules can (a move; that the game ended
without disclosing its server seed), both name the same first seq (or
line), and an access record verify.ts refuses is the one ``playlog verify`` refuses (whose checks
of the records go further: the game's end, its disputes).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from projections import receipts as receipting
from projections.export import verify as export_verify
from projections.export.receipted import read_receipts
from service.config import Settings
from service.tools.client import PlaylogClient
from tests.e2e import test_dishonest_operator as dishonest
from tests.e2e.conftest import Game, started_game
from tests.e2e.test_clients import typescript_build  # noqa: F401  (the fixture: npm ci, tsc)
from tests.e2e.test_disputes import moderator_headers
from tests.e2e.witnesses import InProcessWitness
from tests.mutations import corpus
from tests.mutations.files import Base, Mutant

FINDING = re.compile(r"^  (line|seq|access record) (\d+) \((\w+)\): ")


def _findings(lines: list[str]) -> dict[str, str]:
    """Each check's first finding's place, from a report's lines."""
    out: dict[str, str] = {}
    for line in lines:
        if match := FINDING.match(line):
            out.setdefault(match[3], f"{match[1]} {match[2]}")
    return out


def _disagreement(mutant: Mutant, python: export_verify.VerifyReport, typescript: list[str]) -> str | None:
    ours, theirs = python.lines(), typescript
    if (ours[-1] == "OK") != (theirs[-1] == "OK"):
        return f"{mutant.name}: playlog verify says {ours[-1]!r}, verify.ts {theirs[-1]!r}"
    found, found_ts = _findings(ours), _findings(theirs)
    for check in ("chain", "format"):
        if found.get(check) != found_ts.get(check):
            ours_at, theirs_at = found.get(check), found_ts.get(check)
            return f"{mutant.name}: {check} at {ours_at} in playlog verify, {theirs_at} in verify.ts"
    if "replay" in found or found.get("seeds") != found_ts.get("seeds"):
        return None  # the rules found something (a move, the game's end): not on the page
    if _first(ours) != _first(theirs):
        return f"{mutant.name}: {ours[-1]!r} against {theirs[-1]!r}"
    access, access_ts = found.get("access"), found_ts.get("access")
    if access_ts is not None and access_ts != access:  # the page's own checks of the records
        return f"{mutant.name}: access at {access} in playlog verify, {access_ts} in verify.ts"
    return None


def _first(report: list[str]) -> str:
    """The first bad seq or line of a report's last line (its access records aside)."""
    return report[-1].split(", first bad access record")[0]


def _run(node: str, script: Path, files: list[Path]) -> dict[str, list[str]]:
    """verify.ts over ``files`` in one process: each file's report after a ``== PATH`` line."""
    done = subprocess.run(
        [node, str(script), *map(str, files)], capture_output=True, text=True, timeout=600, check=False
    )
    assert not done.stderr, done.stderr
    reports: dict[str, list[str]] = {}
    for block in done.stdout.split("== ")[1:]:
        path, *lines = block.rstrip("\n").split("\n")
        reports[path] = lines
    return reports


async def test_the_typescript_verifier_agrees_with_playlog_verify_on_the_corpus(
    typescript_build: Path,  # noqa: F811
    api: PlaylogClient,
    http: AsyncTestClient[Litestar],
    settings: Settings,
    database_url: str,
    tmp_path: Path,
) -> None:
    node = shutil.which("node")
    assert node is not None
    bases: list[Base] = await corpus.bases(api, http, moderator_headers(settings), database_url)
    sound = [Mutant("sound", base.name, base.raw, frozenset()) for base in bases]
    judged = sound + [m for m in corpus.mutants(bases) if not m.rules]
    files = []
    for n, mutant in enumerate(judged):
        files.append(tmp_path / f"{n}.jsonl")
        files[-1].write_bytes(b"".join(mutant.lines))
    reports = _run(node, typescript_build / "verify.js", files)
    assert all(reports[str(f)][-1] == "OK" for f in files[: len(sound)])  # real exports verify
    disagreements = [
        problem
        for mutant, file in zip(judged, files, strict=True)
        if (problem := _disagreement(mutant, corpus.verified(mutant), reports[str(file)]))
    ]
    assert not disagreements, disagreements[:10]
    assert len(judged) >= 1000


def test_the_typescript_verifier_reads_a_gzipped_export_and_names_a_torn_line(
    typescript_build: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    node = shutil.which("node")
    assert node is not None
    golden = corpus.GOLDEN / "ek-2022-combos-3p-1.jsonl.gz"
    whole = subprocess.run(
        [node, str(typescript_build / "verify.js"), str(golden)], capture_output=True, text=True, check=False
    )
    assert whole.returncode == 0 and whole.stdout.splitlines()[-1] == "OK", whole.stdout
    torn = tmp_path / "torn.jsonl"
    lines = corpus.golden("ek-2022-combos-3p-1").raw
    torn.write_bytes(b"".join(lines[:40]) + lines[40][:25])
    cut = subprocess.run(
        [node, str(typescript_build / "verify.js"), str(torn)], capture_output=True, text=True, check=False
    )
    assert cut.returncode == 1
    assert (
        cut.stdout.splitlines()[-1]
        == "FAILED: first bad line 41"
        == export_verify.verify_lines([*lines[:40], lines[40][:25]]).lines()[-1]
    )


class TestProofsAndReceipts:
    """verify.ts --trust KEYS --receipts FILE on a real export: the inclusion proofs against the
    cosigned checkpoint, a seat's receipts against the file and the events it kept; a tampered
    proof, a tampered receipt, altered kept events and a rewritten game are each named, where
    ``playlog verify`` names them."""

    @pytest.fixture
    def settings(self, settings: Settings) -> Settings:
        return dataclasses.replace(
            settings,
            log_interval=3600.0,
            log_origin="playlog.test/log",
            witness_keys=dishonest.WITNESS.verifier.text,
        )

    @pytest.fixture
    async def http(self, http: AsyncTestClient[Litestar]) -> AsyncTestClient[Litestar]:
        await http.app.state.sequencer.stop()  # the log's rounds are the test's
        return http

    async def test_proofs_and_receipts_are_checked_and_a_tampered_one_is_named(
        self,
        typescript_build: Path,  # noqa: F811
        api: PlaylogClient,
        http: AsyncTestClient[Litestar],
        settings: Settings,
        database_url: str,
        tmp_path: Path,
    ) -> None:
        node = shutil.which("node")
        assert node is not None
        game = await started_game(api, seed=11, reaction_window=0)
        for turn in range(4):
            seat = await game.active()
            await game.send(seat, {"type": "DrawCard"}, idempotency_key=f"draw-{turn}")
        # Seat 0's event list: its receipt and the events it gave, as the API wrote them.
        listed = await http.get(
            f"/games/{game.id}/seats/0/events", headers={"Authorization": f"Bearer {game.seats[0].token}"}
        )
        listing = base64.b64decode(listed.headers["playlog-receipt"]).decode()
        await api.leave(game.id, 0, game.seats[0].token)
        await started_game(api, seed=12)  # another leaf in the round: the proof is not empty
        assert await dishonest.sequence(database_url, settings) is not None
        log_keys = settings.log_identity().verifiers
        witness = InProcessWitness(dishonest.WITNESS, tmp_path / "witness", log_keys, database_url)
        assert await witness.round() == "cosigned"
        moderator = moderator_headers(settings)
        export = (await http.get(f"/games/{game.id}/export", headers=moderator)).text.splitlines(
            keepends=True
        )
        trust = await dishonest.trusted(http, tmp_path / "trusted.keys")
        receipts = [*api.receipts, listing]
        kept = tmp_path / "receipts.json"
        entries = ",".join(
            [*map(json.dumps, api.receipts), f'{{"receipt": {json.dumps(listing)}, "events": {listed.text}}}']
        )
        kept.write_text(f'{{"game_id": "{game.id}", "receipts": [{entries}]}}')

        def both(name: str, lines: list[str], receipts_file: Path = kept) -> tuple[list[str], list[str]]:
            path = tmp_path / f"{name}.jsonl"
            path.write_text("".join(lines))
            args = ["--trust", str(tmp_path / "trusted.keys"), "--receipts", str(receipts_file)]
            done = subprocess.run(
                [node, str(typescript_build / "verify.js"), *args, str(path)],
                capture_output=True,
                text=True,
                check=False,
            )
            assert not done.stderr, done.stderr
            texts = read_receipts(receipts_file.read_text())
            return done.stdout.splitlines(), export_verify.verify_lines(
                lines, trust=trust, receipts=texts
            ).lines()

        ts, py = both("sound", export)
        assert ts[-1] == py[-1] == "OK", ts
        assert any(
            line.startswith("log:         ok (heads at seqs [") and "cosigned by witness.test/w1" in line
            for line in ts
        )
        assert (
            f"receipts:    ok ({len(receipts)} of this game checked against the trusted keys;"
            " events digests checked for 1" in "\n".join(ts)
        )

        # A proof line altered: the leaf is no longer under the checkpoint.
        at = next(i for i, line in enumerate(export) if json.loads(line)["record"] == "proof")
        proof = json.loads(export[at])
        proof["proof"][0] = base64.b64encode(bytes(32)).decode()
        ts, py = both("proof", [*export[:at], json.dumps(proof) + "\n", *export[at + 1 :]])
        assert ts[-1] == py[-1] == f"FAILED: first bad seq {proof['seq']}", (ts, py)
        assert f"  seq {proof['seq']} (log): the inclusion proof of leaf {proof['index']} fails" in "\n".join(
            ts
        )

        # A receipt altered (the seat it names): its signature no longer holds.
        tampered = tmp_path / "tampered.json"
        tampered.write_text(
            json.dumps([api.receipts[0], api.receipts[1].replace("\nversions ", "\nversions 0", 1)])
        )
        ts, py = both("receipt", export, tampered)
        assert ts[-1] == py[-1] == "FAILED: first bad receipt 2", (ts, py)
        assert "  receipt 2 (receipts): does not verify" in "\n".join(ts)

        # The events kept with a receipt altered: its digest names them (the canonical text).
        altered = tmp_path / "altered.json"
        events = json.loads(listed.text)
        events[0]["data"]["name"] = "someone else"
        altered.write_text(json.dumps({"receipts": [{"receipt": listing, "events": events}]}))
        ts, _ = both("kept", export, altered)
        assert ts[-1] == "FAILED: first bad receipt 1"
        assert "the events kept with it are not the ones receipted" in "\n".join(ts)

        # The operator rewrites the game from the second receipted command: that receipt's head
        # is in the file no more.
        second = receipting.verify(api.receipts[1], trust.log_keys).receipt
        await dishonest.rewrite_from(
            database_url,
            game.id,
            await dishonest.first_seq_of(database_url, game.id, f"seat:{second.seat}:{second.key}"),
        )
        rewritten = await dishonest.cli_export(game.id, database_url, settings, tmp_path / "rewritten.out")
        ts, py = both(
            "rewritten",
            [
                *dishonest.own_lines(rewritten),
                *dishonest.lines_of(rewritten, "receipt_keys"),
                *dishonest.lines_of(export, "proof", "checkpoint"),
            ],
        )
        assert "  receipt 2 (receipts): (seat" in "\n".join(
            ts
        ) and "no head of the file is the receipted one" in "\n".join(ts)
        assert ts[-1] == py[-1] and ts[-1].endswith("first bad receipt 2"), (ts, py)

    async def test_personal_texts_are_checked_and_receipts_outlive_an_erasure(
        self,
        typescript_build: Path,  # noqa: F811
        api: PlaylogClient,
        http: AsyncTestClient[Litestar],
        settings: Settings,
        database_url: str,
        tmp_path: Path,
    ) -> None:
        """An export's personal lines: each text is checked against its seal by both verifiers, a
        tampered one named by both; a player erased after their receipts were kept, the receipts
        and the events kept with them still verify against the export made after the erasure."""
        node = shutil.which("node")
        assert node is not None
        player = await api.create_player("Ada Lovelace")
        created = await api.create_game("exploding_kittens", {"players": 2, "seed": 11, "reaction_window": 0})
        seats = [
            await api.join(created.game_id, player_token=player.token),
            await api.join(created.game_id, "Grace"),
        ]
        await api.start(created.game_id, created.host_token)
        game = Game(api, created, seats)
        for turn in range(4):
            seat = await game.active()
            await game.send(seat, {"type": "DrawCard"}, idempotency_key=f"draw-{turn}")
        headers = {"Authorization": f"Bearer {seats[0].token}"}
        listed = await http.get(f"/games/{game.id}/seats/0/events", headers=headers)
        assert "Ada Lovelace" in listed.text and '"sealed":' in listed.text
        listing = base64.b64decode(listed.headers["playlog-receipt"]).decode()
        await api.leave(game.id, 1, seats[1].token)  # the game ends: its export needs no reason
        moderator = moderator_headers(settings)
        export = (await http.get(f"/games/{game.id}/export", headers=moderator)).text.splitlines(
            keepends=True
        )

        def run(name: str, lines: list[str], *args: str) -> list[str]:
            path = tmp_path / f"{name}.jsonl"
            path.write_text("".join(lines))
            done = subprocess.run(
                [node, str(typescript_build / "verify.js"), *args, str(path)],
                capture_output=True,
                text=True,
                check=False,
            )
            assert not done.stderr, done.stderr
            return done.stdout.splitlines()

        ts, py = run("opened", export), export_verify.verify_lines(export).lines()
        assert ts[-1] == py[-1] == "OK", (ts, py)
        assert (
            "texts:       ok (2 open their seals, 0 erased)" in ts
            and "texts:       ok (2 open" in "\n".join(py)
        )

        # A personal line's text altered: it no longer opens its seal, at the seat's join.
        at = next(i for i, line in enumerate(export) if json.loads(line).get("text") == "Grace")
        personal = {**json.loads(export[at]), "text": "Mallory"}
        joined = next(
            json.loads(line)["seq"]
            for line in export
            if json.loads(line).get("data", {}).get("name") == personal["seal"]
        )
        tampered = [*export[:at], json.dumps(personal) + "\n", *export[at + 1 :]]
        ts, py = run("tampered", tampered), export_verify.verify_lines(tampered).lines()
        assert ts[-1] == py[-1] == f"FAILED: first bad seq {joined}", (ts, py)
        finding = f"  seq {joined} (personal): a personal text does not open its seal"
        assert finding in ts and finding in py

        # The player is erased; the log is sequenced and cosigned after the tombstone.
        erased = await http.delete(
            "/players/me", params={"erase": "true"}, headers={"Authorization": f"Bearer {player.token}"}
        )
        assert erased.status_code == 200, erased.text
        relisted = await http.get(f"/games/{game.id}/seats/0/events", headers=headers)
        assert "Ada Lovelace" not in relisted.text and "Player " in relisted.text
        # The same events as the seat kept them, now with the pseudonym (and later ones left out).
        again = json.dumps(json.loads(relisted.text)[: len(json.loads(listed.text))])
        assert await dishonest.sequence(database_url, settings) is not None
        log_keys = settings.log_identity().verifiers
        witness = InProcessWitness(dishonest.WITNESS, tmp_path / "witness", log_keys, database_url)
        assert await witness.round() == "cosigned"
        after = (await http.get(f"/games/{game.id}/export", headers=moderator)).text.splitlines(keepends=True)
        assert "Ada Lovelace" not in "".join(after)
        trust = await dishonest.trusted(http, tmp_path / "trusted.keys")
        # The events kept before the erasure (the name), and as listed after it (the pseudonym):
        # one receipt vouches for both.
        kept = [f'{{"receipt": {json.dumps(listing)}, "events": {text}}}' for text in (listed.text, again)]
        receipts = tmp_path / "receipts.json"
        receipts.write_text(f'{{"receipts": [{",".join([*map(json.dumps, api.receipts), *kept])}]}}')
        ts = run("erased", after, "--trust", str(tmp_path / "trusted.keys"), "--receipts", str(receipts))
        py = export_verify.verify_lines(
            after, trust=trust, receipts=read_receipts(receipts.read_text())
        ).lines()
        assert ts[-1] == py[-1] == "OK", (ts, py)
        assert "texts:       ok (1 open their seals, 1 erased)" in ts
        assert "events digests checked for 2" in "\n".join(ts)
