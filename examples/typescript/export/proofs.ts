// An export's proofs against the keys the verifier trusts (docs/export-format.md, "Proofs"): the
// checkpoint signed by a trusted log key and cosigned as the trust's quorum asks (export/policy.ts), every proof line's
// leaf under its root (RFC 9162), every proven head the file's own hash at its seq.
import { leafData, leafHash, verifyInclusion } from "./merkle.js";
import { type Note, parseCheckpoint, parseNote } from "./notes.js";
import { cosigners, type Trust } from "./policy.js";
import type { ExportFile } from "./read.js";

/** What the proofs showed; `failure.at` 0 is the checkpoint itself, else a seq. */
export interface Proven {
  size: number;
  seqs: number[];
  witnesses: string[];
  failure?: { at: number; reason: string };
}

export function checkProofs(file: ExportFile, trust: Trust): Proven {
  if (file.checkpoint === undefined) return { size: 0, seqs: [], witnesses: [], failure: { at: 0, reason: "the file carries no checkpoint" } };
  let note: Note;
  let checkpoint: ReturnType<typeof parseCheckpoint>;
  try {
    note = parseNote(file.checkpoint.note);
    checkpoint = parseCheckpoint(note.body);
  } catch (error) {
    return { size: 0, seqs: [], witnesses: [], failure: { at: 0, reason: `the checkpoint is not a signed checkpoint: ${(error as Error).message}` } };
  }
  const size = checkpoint.size;
  const { cosigned, untrusted } = cosigners(trust, note);
  if (untrusted !== undefined) return { size, seqs: [], witnesses: [], failure: { at: 0, reason: `the checkpoint ${untrusted}` } };
  const witnesses = cosigned.map((w) => w.name);
  const gameId = file.header.game_id as string;
  const hashes = new Map(file.events.map((e) => [e.seq, e.hash]));
  const seqs: number[] = [];
  for (const proof of [...file.proofs].sort((a, b) => a.seq - b.seq || a.index - b.index)) {
    const leaf = leafHash(leafData(gameId, proof.seq, Buffer.from(proof.head, "hex"), proof.tag ? Buffer.from(proof.tag, "hex") : undefined));
    if (!verifyInclusion(leaf, proof.index, size, proof.proof, checkpoint.root)) {
      return { size, seqs, witnesses, failure: { at: proof.seq, reason: `the inclusion proof of leaf ${proof.index} fails against the checkpoint` } };
    }
    if (hashes.get(proof.seq) !== proof.head) {
      const reason = "the log holds another head for this seq: the game was rewritten after it was logged";
      return { size, seqs, witnesses, failure: { at: proof.seq, reason } };
    }
    seqs.push(proof.seq);
  }
  if (seqs.length === 0) return { size, seqs, witnesses, failure: { at: 0, reason: "no head of this game is under the checkpoint" } };
  return { size, seqs, witnesses };
}
