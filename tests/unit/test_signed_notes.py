"""Signed notes, checkpoints, cosignatures and the log's keys (service/transparency)."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest

from projections.notes import (
    COSIGNATURE_V1,
    ED25519,
    Checkpoint,
    Note,
    NoteError,
    Signer,
    Verifier,
    cosign,
    sign,
)
from service.transparency import identity
from service.transparency.log import parse_tile_path, tile_path


def test_a_key_id_is_the_signed_note_one() -> None:
    signer = Signer.generate("example.com/log")
    public = signer.verifier.public
    expected = hashlib.sha256(b"example.com/log\n\x01" + public).digest()[:4]
    assert signer.verifier.id == expected
    assert Verifier.parse(signer.verifier.text) == signer.verifier
    assert Signer.parse(signer.text).verifier == signer.verifier
    cosigner = Signer.generate("w1", COSIGNATURE_V1)
    assert cosigner.verifier.id == hashlib.sha256(b"w1\n\x04" + cosigner.verifier.public).digest()[:4]


def test_a_checkpoint_is_signed_as_a_note_and_verifies_only_as_signed() -> None:
    signer = Signer.generate("example.com/log")
    body = Checkpoint("example.com/log", 12, bytes(range(32))).body
    assert body == f"example.com/log\n12\n{base64.b64encode(bytes(range(32))).decode()}\n"
    text = sign(body, signer)
    assert text.startswith(body + "\n\u2014 example.com/log ")
    note = Note.parse(text)
    assert note.body == body and note.text == text
    assert note.signed_by(signer.verifier)
    assert not note.signed_by(Signer.generate("example.com/log").verifier)
    assert not Note.parse(text.replace("\n12\n", "\n13\n")).signed_by(signer.verifier)
    assert Checkpoint.parse_body(note.body) == Checkpoint("example.com/log", 12, bytes(range(32)))


def test_a_cosignature_signs_the_body_with_its_time() -> None:
    log_key, witness = Signer.generate("log"), Signer.generate("w1", COSIGNATURE_V1)
    body = Checkpoint("log", 3, b"\x01" * 32).body
    text = sign(body, log_key) + cosign(body, witness, 1_700_000_000)
    note = Note.parse(text)
    assert note.signed_by(log_key.verifier) and note.signed_by(witness.verifier)
    raw = dict(note.signatures)["w1"]
    assert raw[4:12] == (1_700_000_000).to_bytes(8, "big") and len(raw) == 76
    other = Checkpoint("log", 3, b"\x02" * 32).body
    assert not Note.parse(sign(other, log_key) + cosign(body, witness, 1)).signed_by(witness.verifier)


@pytest.mark.parametrize("text", ["", "body\n", "body\n\nno dash here\n", "a\n\n\u2014 name !!!\n"])
def test_malformed_notes_are_refused(text: str) -> None:
    with pytest.raises(NoteError):
        Note.parse(text)


def test_the_log_keys_are_made_once_and_rotation_keeps_the_old_ones(tmp_path: Path) -> None:
    first = identity.load("", tmp_path, "example.com/log")
    assert identity.load("", tmp_path, "ignored").verifiers == first.verifiers
    assert first.signer.kind == ED25519 and first.origin == "example.com/log"
    rotated = identity.rotate(tmp_path, "ignored")
    assert rotated.verifiers[1:] == first.verifiers and rotated.verifiers[0] != first.verifiers[0]
    assert rotated.signer.name == "example.com/log"
    configured = identity.load(",".join(k.text for k in rotated.keys), tmp_path / "other", "x")
    assert configured.verifiers == rotated.verifiers
    with pytest.raises(NoteError):
        identity.load(Signer.generate("w", COSIGNATURE_V1).text, tmp_path, "x")


def test_tile_paths_are_the_tlog_tiles_ones() -> None:
    assert tile_path(0, 0) == "0/000"
    assert tile_path(1, 1234067) == "1/x001/x234/067"
    assert tile_path(0, 5, 17) == "0/005.p/17"
    for level, index, width in [(0, 0, 256), (2, 1234067, 256), (0, 999, 3), (1, 1000, 255)]:
        assert parse_tile_path(tile_path(level, index, width)) == (level, index, width)
    for bad in ["0/1", "0/x001", "0/001.p/0", "0/001.p/256", "entries/000", "0/x1/000", "0/001.p/07"]:
        assert parse_tile_path(bad) is None


def test_playlog_log_keys_prints_the_keys_the_same_each_time(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from service.tools.cli import main

    env = {
        "PLAYLOG_DATA_DIR": str(tmp_path),
        "PLAYLOG_LOG_ORIGIN": "example.com/log",
        "PLAYLOG_LOG_SIGNING_KEY": "",
    }
    runner = CliRunner()
    first = runner.invoke(main, ["log-keys"], env=env)
    assert first.exit_code == 0, first.output
    (key,) = first.output.split()
    assert Verifier.parse(key).name == "example.com/log"
    assert runner.invoke(main, ["log-keys"], env=env).output == first.output
