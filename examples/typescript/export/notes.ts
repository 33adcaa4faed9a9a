// C2SP signed notes with Ed25519 keys, from node's own crypto (docs/transparency-log.md,
// docs/receipts.md): verifier keys `<name>+<hex key id>+<base64(type || public key)>`, the log's
// signatures (type 0x01) and the witnesses' cosignatures (type 0x04, `cosignature/v1`), and the
// checkpoint's body (origin, size, base64 root hash).
import { createHash, createPublicKey, type KeyObject, verify } from "node:crypto";

export const ED25519 = 0x01;
export const COSIGNATURE_V1 = 0x04;

export interface VerifierKey {
  name: string;
  kind: number;
  id: Buffer; // 4 bytes: SHA-256(name || 0x0A || type || public key)[:4]
  key: KeyObject;
  text: string;
}

/** A verifier key in its text form; throws if malformed or if its id is not its key's. */
export function parseKey(text: string): VerifierKey {
  const trimmed = text.trim();
  const first = trimmed.indexOf("+");
  const second = trimmed.indexOf("+", first + 1); // the base64 may hold "+" too
  const [name, id, encoded] = [trimmed.slice(0, first), trimmed.slice(first + 1, second), trimmed.slice(second + 1)];
  const raw = Buffer.from(encoded, "base64");
  if (first <= 0 || second < 0 || /\s/.test(name) || raw.length !== 33 || raw.toString("base64") !== encoded) {
    throw new Error(`not a verifier key: ${text}`);
  }
  const kind = raw[0] ?? 0;
  if (kind !== ED25519 && kind !== COSIGNATURE_V1) throw new Error(`not an Ed25519 verifier key: ${text}`);
  const computed = createHash("sha256").update(`${name}\n`).update(raw).digest().subarray(0, 4);
  if (computed.toString("hex") !== id) throw new Error(`the key id of ${name} does not match its key`);
  const x = raw.subarray(1).toString("base64url");
  return { name, kind, id: computed, key: createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" }), text: trimmed };
}

export interface Note {
  body: string; // ends with "\n"
  signatures: { name: string; raw: Buffer }[]; // raw: key id || signature (|| a cosignature's time first)
}

export function parseNote(text: string): Note {
  const split = text.indexOf("\n\n");
  if (split < 0 || !text.endsWith("\n")) throw new Error("not a signed note (body, blank line, signature lines)");
  const signatures = text
    .slice(split + 2, -1)
    .split("\n")
    .map((line) => {
      const match = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
      const raw = Buffer.from(match?.[2] ?? "", "base64");
      if (!match || raw.length < 5) throw new Error("not a signature line");
      return { name: match[1] ?? "", raw };
    });
  return { body: text.slice(0, split + 1), signatures };
}

function valid(note: Note, key: VerifierKey, raw: Buffer): boolean {
  if (key.kind === ED25519) return verify(null, Buffer.from(note.body), key.key, raw.subarray(4));
  if (raw.length !== 76) return false;
  const time = raw.readBigUInt64BE(4);
  const message = Buffer.from(`cosignature/v1\ntime ${time}\n${note.body}`);
  return verify(null, message, key.key, raw.subarray(12));
}

/** The keys among `keys` that signed the note, as Go's note.Open reads it: a line by one of them
 * (its name and key id) that does not verify rejects the whole note (throws), even when another
 * line of that key verifies. Lines of unknown keys are ignored. */
export function signers(note: Note, keys: VerifierKey[]): VerifierKey[] {
  return keys.filter((key) => {
    const lines = note.signatures.filter(({ name, raw }) => name === key.name && raw.subarray(0, 4).equals(key.id));
    if (!lines.every(({ raw }) => valid(note, key, raw))) throw new Error(`a signature line of ${key.name} does not verify: the note is rejected`);
    return lines.length > 0;
  });
}

export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
}

export function parseCheckpoint(body: string): Checkpoint {
  const lines = body.split("\n");
  const root = Buffer.from(lines[2] ?? "", "base64");
  if (lines.length < 4 || lines[lines.length - 1] !== "" || !/^(0|[1-9][0-9]*)$/.test(lines[1] ?? "") || root.length !== 32) {
    throw new Error("not a checkpoint body (origin, size, root hash)");
  }
  return { origin: lines[0] ?? "", size: Number(lines[1]), root };
}
