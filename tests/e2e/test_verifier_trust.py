"""What a verifier trusts, and the files doctored to make it trust more (issue 55).

Both verifiers, ``playlog verify`` and the TypeScript one (examples/typescript/verify.ts), on a
real export whose checkpoint two of three witnesses cosigned:
- ``--trust`` takes a C2SP tlog-policy: 2 of the 3 witnesses suffice; a quorum naming the one
  that did not cosign fails; ``playlog proof`` writes the C2SP tlog-proof of the game's last head,
  which both read;
- a note (checkpoint or receipt) with a line of a trusted key that does not verify is refused
  whole, even though another line of that key verifies (C2SP signed-note, Go's ``note.Open``);
- a seat's receipts of another game only are no check of this one: refused;
- without pinned keys, receipts are UNVERIFIED, never a contradiction, even when the file names
  the keys a doctored receipt was signed with;
- an extension of the log is never said to hold for a checkpoint the verifier does not trust.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from litestar import Litestar
from litestar.testing import AsyncTestClient

from projections.export import format as export_format
from projections.export import verify as export_verify
from projections.export.extend import Later
from projections.export.proofs import Trust
from projections.notes import COSIGNATURE_V1, DASH, Note, Signer, Verifier, sign
from service.config import Settings
from service.tools.cli import main
from service.tools.client import PlaylogClient
from service.transparency.witness import Witness
from tests.e2e.conftest import started_game
from tests.e2e.test_clients import typescript_build  # noqa: F401  (the fixture: npm ci, tsc)
from tests.e2e.test_dishonest_operator import sequence
from tests.e2e.test_disputes import moderator_headers

WITNESSES = [Signer.generate(f"witness.test/w{n}", COSIGNATURE_V1) for n in (1, 2, 3)]


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return dataclasses.replace(
        settings,
        log_interval=3600.0,
        log_origin="playlog.test/log",
        witness_keys=",".join(w.verifier.text for w in WITNESSES),
    )


@pytest.fixture
async def http(http: AsyncTestClient[Litestar]) -> AsyncTestClient[Litestar]:
    await http.app.state.sequencer.stop()  # the log's rounds are the test's
    return http


@dataclass
class Scene:
    export: list[str]  # the game's export, its checkpoint cosigned by w1 and w2
    receipts: list[str]  # the seats' receipts of the game
    others: list[str]  # receipts of another game
    log_keys: list[str]
    dir: Path

    def write(self, name: str, text: str) -> Path:
        path = self.dir / name
        path.write_text(text)
        return path

    def policy(self, quorum: str) -> Path:
        lines = [f"log {k}" for k in self.log_keys]
        lines += [f"witness w{n} {w.verifier.text}" for n, w in enumerate(WITNESSES, start=1)]
        lines += ["group two-of-three 2 w1 w2 w3", f"quorum {quorum}"]
        return self.write(f"policy-{quorum}.txt", "# a C2SP tlog-policy\n" + "\n".join(lines) + "\n")

    def flat(self) -> Path:
        keys = [*self.log_keys, *(w.verifier.text for w in WITNESSES[:2])]
        return self.write("trusted.keys", "\n".join(keys) + "\n")

    def with_checkpoint(self, note: str, log_keys: list[str] | None = None) -> list[str]:
        record = json.loads(self.export[-1])
        assert record["record"] == "checkpoint"
        record = {**record, "note": note, "log_keys": log_keys or record["log_keys"]}
        return [*self.export[:-1], json.dumps(record) + "\n"]

    @property
    def note(self) -> str:
        return str(json.loads(self.export[-1])["note"])


@pytest.fixture
async def scene(
    api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings, database_url: str, tmp_path: Path
) -> Scene:
    game = await started_game(api, seed=11, reaction_window=0)
    for turn in range(4):
        seat = await game.active()
        await game.send(seat, {"type": "DrawCard"}, idempotency_key=f"draw-{turn}")
    receipts = list(api.receipts)
    await api.leave(game.id, 0, game.seats[0].token)
    kept = len(api.receipts)
    other = await started_game(api, seed=12, reaction_window=0)
    await other.send(await other.active(), {"type": "DrawCard"}, idempotency_key="other")
    others = api.receipts[kept:]
    assert others and all(r not in receipts for r in others)
    assert await sequence(database_url, settings) is not None
    for n, signer in enumerate(WITNESSES[:2]):
        assert await Witness(str(http.base_url), signer, tmp_path / f"w{n}").round(http) == "cosigned"
    export = (await http.get(f"/games/{game.id}/export", headers=moderator_headers(settings))).text
    log_keys = (await http.get("/log/keys")).json()["log_keys"]
    return Scene(export.splitlines(keepends=True), receipts, others, log_keys, tmp_path)


def python(scene: Scene, name: str, lines: list[str], *args: str) -> tuple[int, list[str]]:
    """``playlog verify`` on ``lines``: its exit code and report."""
    done = CliRunner().invoke(main, ["verify", *args, str(scene.write(f"{name}.jsonl", "".join(lines)))])
    return done.exit_code, done.output.splitlines()


def typescript(build: Path, scene: Scene, name: str, lines: list[str], *args: str) -> tuple[int, list[str]]:
    node = shutil.which("node")
    assert node is not None
    path = scene.write(f"{name}.ts.jsonl", "".join(lines))
    done = subprocess.run(
        [node, str(build / "verify.js"), *args, str(path)], capture_output=True, text=True, check=False
    )
    assert not done.stderr, done.stderr
    return done.returncode, done.stdout.splitlines()


def receipts_file(scene: Scene, name: str, receipts: list[str]) -> str:
    return str(scene.write(f"{name}.json", json.dumps(receipts)))


async def test_an_export_verifies_under_a_two_of_three_policy_and_its_tlog_proof_too(
    scene: Scene,
    typescript_build: Path,  # noqa: F811
) -> None:
    two = str(scene.policy("two-of-three"))
    for run in (python, lambda *a: typescript(typescript_build, *a)):
        code, report = run(scene, "policy", scene.export, "--trust", two)
        assert code == 0 and report[-1] == "OK", report
        assert any("cosigned by witness.test/w1, witness.test/w2" in line for line in report), report

    # A policy whose quorum is the witness that did not cosign: the checkpoint is not trusted.
    third = str(scene.policy("w3"))
    for run in (python, lambda *a: typescript(typescript_build, *a)):
        code, report = run(scene, "w3", scene.export, "--trust", third)
        assert code == 1 and report[-1] == "FAILED: the checkpoint", report
        assert "  checkpoint (log): the checkpoint is not cosigned by witness.test/w3" in report, report

    # The C2SP tlog-proof of the game's last head, from the export.
    exported = scene.write("game.jsonl", "".join(scene.export))
    made = CliRunner().invoke(main, ["proof", str(exported)])
    assert made.exit_code == 0, made.output
    text = made.output
    assert text.startswith("c2sp.org/tlog-proof@v1\nextra ") and "\nindex " in text
    assert text.split("\n\n", 1)[1] == scene.note
    proof = str(scene.write("game.tlog-proof", text))
    for run in (python, lambda *a: typescript(typescript_build, *a)):
        code, report = run(scene, "proved", scene.export, "--trust", two, "--proof", proof)
        assert code == 0 and report[-1] == "OK", report
        assert any(line.startswith("tlog-proof:  ok (the head at seq ") for line in report), report
        code, report = run(scene, "proved-w3", scene.export, "--trust", third, "--proof", proof)
        assert code == 1 and "the tlog-proof's checkpoint is not cosigned by witness.test/w3" in "\n".join(
            report
        )

    # The proof moved to another leaf: its inclusion fails, in both.
    index = int(text.split("\nindex ", 1)[1].split("\n", 1)[0])
    moved = str(scene.write("moved.tlog-proof", text.replace(f"\nindex {index}\n", f"\nindex {index + 1}\n")))
    for run in (python, lambda *a: typescript(typescript_build, *a)):
        code, report = run(scene, "moved", scene.export, "--trust", two, "--proof", moved)
        assert code == 1 and report[-1] == "FAILED: the tlog-proof", report
        assert f"the inclusion proof of leaf {index + 1} fails" in "\n".join(report)


async def test_a_note_with_a_bad_line_of_a_trusted_key_is_refused_whole(
    scene: Scene,
    typescript_build: Path,  # noqa: F811
) -> None:
    """Defect 1: a second line of w1 (its key id, a forged cosignature) beside w1's good one; a
    second line of the log's key beside its good one; the same on a receipt."""
    flat = str(scene.flat())
    w1 = WITNESSES[0].verifier
    forged_cosignature = f"{DASH} {w1.name} {base64.b64encode(w1.id + bytes(8 + 64)).decode()}\n"
    log_key = Verifier.parse(scene.log_keys[0])
    forged_signature = f"{DASH} {log_key.name} {base64.b64encode(log_key.id + bytes(64)).decode()}\n"
    assert Note.parse(scene.note).signed_by(w1) and Note.parse(scene.note).signed_by(log_key)
    for name, line in (("cosignature", forged_cosignature), ("signature", forged_signature)):
        doctored = scene.with_checkpoint(scene.note + line)
        for run in (python, lambda *a: typescript(typescript_build, *a)):
            code, report = run(scene, name, doctored, "--trust", flat)
            assert code == 1 and report[-1] == "FAILED: the checkpoint", report
            assert "does not verify: the note is rejected" in "\n".join(report), report

    receipts = receipts_file(scene, "doctored-receipts", [scene.receipts[0] + forged_signature])
    for run in (python, lambda *a: typescript(typescript_build, *a)):
        code, report = run(scene, "receipt", scene.export, "--trust", flat, "--receipts", receipts)
        assert code == 1 and report[-1] == "FAILED: first bad receipt 1", report
        assert "  receipt 1 (receipts): does not verify: a signature line of" in "\n".join(report), report


async def test_receipts_of_another_game_only_are_no_check_of_this_one(
    scene: Scene,
    typescript_build: Path,  # noqa: F811
) -> None:
    """Defect 2."""
    flat, receipts = str(scene.flat()), receipts_file(scene, "others", scene.others)
    for run in (python, lambda *a: typescript(typescript_build, *a)):
        code, report = run(scene, "others", scene.export, "--trust", flat, "--receipts", receipts)
        assert code == 1 and report[-1] == "FAILED: no receipt of this game", report
        assert (
            f"0 of this game checked against the trusted keys, {len(scene.others)} of other games"
            in "\n".join(report)
        )
    mine = receipts_file(scene, "mine", [*scene.others, *scene.receipts])
    code, report = python(scene, "mine", scene.export, "--trust", flat, "--receipts", mine)
    assert code == 0 and report[-1] == "OK", report


async def test_receipts_are_checked_only_against_pinned_keys(
    scene: Scene,
    typescript_build: Path,  # noqa: F811
) -> None:
    """Defect 3: a seat doctors the export so that its ``log_keys`` name a key of its own, and
    signs with it a receipt of events the file does not hold. Without ``--trust`` the receipts are
    UNVERIFIED (no accusation); with the pinned keys the doctored receipt is not the service's."""
    own = Signer.generate(Verifier.parse(scene.log_keys[0]).name)
    body = Note.parse(scene.receipts[-1]).body
    before, after = next(line for line in body.splitlines() if line.startswith("versions ")).split()[1:]
    claimed = sign(
        body.replace(f"versions {before} {after}\n", f"versions {before} {int(after) + 40}\n"), own
    )
    doctored = scene.with_checkpoint(scene.note, [own.verifier.text])
    receipts = receipts_file(scene, "claimed", [claimed])
    for run in (python, lambda *a: typescript(typescript_build, *a)):
        code, report = run(scene, "unpinned", doctored, "--receipts", receipts)
        assert code != 0 and report[-1] == "UNVERIFIED: the receipts need pinned log keys (--trust)", report
        assert "receipts:    UNVERIFIED (1 given, none checked: no pinned log keys)" in report
        assert "missing" not in "\n".join(report) and "FAILED" not in "\n".join(report)
    code, _ = python(scene, "unpinned", doctored, "--receipts", receipts)
    assert code == 3  # UNVERIFIED, not FAILED (1)
    flat = str(scene.flat())
    code, report = python(scene, "pinned", doctored, "--trust", flat, "--receipts", receipts)
    assert code == 1 and report[-1] == "FAILED: first bad receipt 1", report
    assert "  receipt 1 (receipts): does not verify: no signature by a key this verifier trusts" in report


async def test_an_untrusted_checkpoint_is_never_said_to_extend(
    scene: Scene, http: AsyncTestClient[Litestar]
) -> None:
    """Defect 4: the file's checkpoint re-signed by a stranger under the log's name; the log's
    checkpoint now is the same tree, trusted: the extension is not checked, and not said ok."""
    stranger = Signer.generate(Verifier.parse(scene.log_keys[0]).name)
    doctored = scene.with_checkpoint(sign(Note.parse(scene.note).body, stranger))
    trust = Trust.parse(scene.flat().read_text().splitlines())
    now = (await http.get("/log/checkpoint", params={"cosigned": "true"})).text
    assert Note.parse(now).body == Note.parse(scene.note).body
    later = Later(now, [])
    honest = export_verify.verify(export_format.read(scene.export), trust=trust, later=later)
    assert honest.ok and any(line.startswith("extended:    ok (") for line in honest.lines())
    report = export_verify.verify(export_format.read(doctored), trust=trust, later=later)
    lines = report.lines()
    assert not any(line.startswith("extended:    ok") for line in lines), lines
    assert (
        "extended:    UNVERIFIED (not checked: the file's checkpoint is not one the verifier trusts)" in lines
    )
    assert lines[-1] == "FAILED: the checkpoint", lines
