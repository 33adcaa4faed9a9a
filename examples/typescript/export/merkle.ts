// RFC 9162 Merkle hashing and proof verification (sections 2.1.3.2 and 2.1.4.2), and playlog's
// leaf: `"playlog/head/v2" || tag (32 bytes) || seq (8 bytes big-endian) || head`, or, logged before the
// tags, `"playlog/head/v1" || game id (16 bytes) || seq || head`
// (docs/export-format.md, "Proofs").
import { createHash } from "node:crypto";

const sha256 = (...parts: Buffer[]): Buffer => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest();
};

export const leafHash = (data: Buffer): Buffer => sha256(Buffer.from([0]), data);
const nodeHash = (left: Buffer, right: Buffer): Buffer => sha256(Buffer.from([1]), left, right);

// A version-2 leaf (with the game's tag): `"playlog/head/v2" || tag (32 bytes) || seq || head`.
export function leafData(gameId: string, seq: number, head: Buffer, tag?: Buffer): Buffer {
  const seqBytes = Buffer.alloc(8);
  seqBytes.writeBigUInt64BE(BigInt(seq));
  if (tag) return Buffer.concat([Buffer.from("playlog/head/v2"), tag, seqBytes, head]);
  return Buffer.concat([Buffer.from("playlog/head/v1"), Buffer.from(gameId.replaceAll("-", ""), "hex"), seqBytes, head]);
}

// Sizes and indexes as BigInt: the RFC's shifts must not go through 32-bit numbers.
export function verifyInclusion(leaf: Buffer, index: number, size: number, proof: Buffer[], root: Buffer): boolean {
  if (!(0 <= index && index < size)) return false;
  let [fn, sn, r] = [BigInt(index), BigInt(size - 1), leaf];
  for (const p of proof) {
    if (sn === 0n) return false;
    if (fn & 1n || fn === sn) {
      r = nodeHash(p, r);
      if (!(fn & 1n)) while (fn && !(fn & 1n)) [fn, sn] = [fn >> 1n, sn >> 1n];
    } else {
      r = nodeHash(r, p);
    }
    [fn, sn] = [fn >> 1n, sn >> 1n];
  }
  return sn === 0n && r.equals(root);
}
