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
// A proof's hashes (and a leaf hash) are SHA-256 in length: an empty leaf would match an empty root.
const hashes = (...values: Buffer[]): boolean => values.every((h) => h.length === 32);

export function verifyInclusion(leaf: Buffer, index: number, size: number, proof: Buffer[], root: Buffer): boolean {
  if (!(0 <= index && index < size) || !hashes(leaf, ...proof)) return false;
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

/** Is the tree of `newSize` leaves under `newRoot` an extension of the one of `oldSize` under `oldRoot`? */
export function verifyConsistency(oldSize: number, newSize: number, oldRoot: Buffer, newRoot: Buffer, proof: Buffer[]): boolean {
  if (!(0 < oldSize && oldSize <= newSize) || !hashes(...proof)) return false;
  if (oldSize === newSize) return proof.length === 0 && oldRoot.equals(newRoot);
  let [fn, sn] = [BigInt(oldSize - 1), BigInt(newSize - 1)];
  const path = (fn + 1n) & fn ? [...proof] : [oldRoot, ...proof]; // a power of two: the old root first
  if (path.length === 0) return false;
  while (fn & 1n) [fn, sn] = [fn >> 1n, sn >> 1n];
  let fr = path[0] as Buffer;
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0n) return false;
    if (fn & 1n || fn === sn) {
      [fr, sr] = [nodeHash(c, fr), nodeHash(c, sr)];
      if (!(fn & 1n)) while (fn && !(fn & 1n)) [fn, sn] = [fn >> 1n, sn >> 1n];
    } else {
      sr = nodeHash(sr, c);
    }
    [fn, sn] = [fn >> 1n, sn >> 1n];
  }
  return sn === 0n && fr.equals(oldRoot) && sr.equals(newRoot);
}
