"""What ``--trust`` reads (projections/export/proofs.py): C2SP tlog-policy files and their quorums,
the flat key list, and a note read as Go's ``note.Open`` reads it (projections/notes.py)."""

from __future__ import annotations

import base64

import pytest

from projections.export.proofs import Trust
from projections.notes import COSIGNATURE_V1, DASH, Checkpoint, Note, NoteError, Signer, cosign, sign

LOG = Signer.generate("example.com/log")
W = [Signer.generate(f"w{n}.example", COSIGNATURE_V1) for n in range(1, 5)]
BODY = Checkpoint("example.com/log", 7, bytes(32)).body


def note(*cosigners: Signer) -> Note:
    return Note.parse(sign(BODY, LOG) + "".join(cosign(BODY, w, 1_700_000_000) for w in cosigners))


def policy(*lines: str) -> Trust:
    witnesses = [f"witness x{n} {w.verifier.text}" for n, w in enumerate(W, start=1)]
    return Trust.parse([f"log {LOG.verifier.text} https://log.example", *witnesses, *lines])


def trusted(trust: Trust, shown: Note) -> bool:
    return trust.cosigners(shown)[1] is None


def test_a_nested_quorum_is_met_only_by_enough_of_each_group() -> None:
    trust = policy("group a 2 x1 x2 x3", "group both all a x4", "# a comment", "quorum both")
    assert trusted(trust, note(W[0], W[1], W[3]))
    assert not trusted(trust, note(W[0], W[3]))  # one of a
    assert not trusted(trust, note(W[0], W[1], W[2]))  # no x4
    _, why = trust.cosigners(note(W[0], W[3]))
    assert why == "is cosigned by w1.example, w4.example: short of the quorum both"


def test_any_all_a_single_witness_and_none() -> None:
    assert trusted(policy("group g any x1 x2", "quorum g"), note(W[1]))
    assert not trusted(policy("group g all x1 x2", "quorum g"), note(W[1]))
    assert not trusted(policy("quorum x3"), note(W[0], W[1]))
    assert trusted(policy("quorum none"), note())


def test_a_flat_key_list_requires_every_witness_listed() -> None:
    trust = Trust.parse([LOG.verifier.text, W[0].verifier.text, W[1].verifier.text])
    assert trusted(trust, note(W[0], W[1]))
    assert trust.cosigners(note(W[0]))[1] == "is not cosigned by w2.example"
    assert trusted(Trust.parse([LOG.verifier.text]), note())


def test_no_signature_of_a_listed_log_is_no_trust() -> None:
    other = Signer.generate("example.com/log")
    shown = Note.parse(sign(BODY, other) + cosign(BODY, W[0], 1))
    assert policy("quorum x1").cosigners(shown)[1] == "bears no signature of a trusted log key"


@pytest.mark.parametrize(
    "lines",
    [
        ["group g 3 x1 x2", "quorum g"],  # k above n
        ["group g 0 x1", "quorum g"],  # k below 1
        ["group g 01 x1", "quorum g"],  # not plain decimal
        ["group g any x1 x1", "quorum g"],  # a member twice
        ["group g any x9", "quorum g"],  # undefined
        ["group g any none", "quorum g"],  # none is no member
        ["quorum g", "group g any x1"],  # defined after use
        [],  # no quorum
        ["quorum x1", "quorum x2"],  # two
        [f"witness x1 {W[0].verifier.text}", "quorum x1"],  # a name defined twice
        [f"witness y {W[0].verifier.text}", "quorum y"],  # a key listed twice
        [f"witness y {LOG.verifier.text}", "quorum y"],  # a log key as a witness
        ["quorum x1", "frobnicate"],
    ],
)
def test_a_malformed_policy_is_refused(lines: list[str]) -> None:
    with pytest.raises(NoteError):
        policy(*lines)


def test_a_bad_line_of_a_known_key_rejects_the_whole_note() -> None:
    """C2SP signed-note, Go's note.Open: a second, invalid line of a key whose other line verifies."""
    forged = f"{DASH} {W[0].name} {base64.b64encode(W[0].verifier.id + bytes(72)).decode()}\n"
    shown = Note.parse(note(W[0]).text + forged)
    with pytest.raises(NoteError, match="does not verify: the note is rejected"):
        shown.signers([LOG.verifier, W[0].verifier])
    assert not shown.signed_by(W[0].verifier)
    assert shown.signed_by(LOG.verifier)  # that key's lines are all good
    assert policy("quorum none").cosigners(shown)[1] == (
        "a signature line of w1.example does not verify: the note is rejected"
    )
    # A line of a key the verifier does not know is ignored, as note.Open ignores it.
    stranger = Signer.generate("w9.example", COSIGNATURE_V1)
    assert Note.parse(note(W[0]).text + cosign(BODY, stranger, 1)).signers([W[0].verifier]) == [W[0].verifier]
