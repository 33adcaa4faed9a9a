// A C2SP tlog-proof (c2sp.org/tlog-proof) of one of the file's heads, as `playlog proof` writes
// it: its checkpoint trusted (export/policy.ts), its leaf, whose data the `extra` line carries
// (`"playlog/head/v1" || game id || seq || head`), under the checkpoint's root, and that leaf
// this file's own head at its seq.
import { leafHash, verifyInclusion } from "./merkle.js";
import { parseCheckpoint, parseNote } from "./notes.js";
import { cosigners, type Trust } from "./policy.js";
import type { ExportFile } from "./read.js";

const HEADER = "c2sp.org/tlog-proof@v1";
const PREFIX = Buffer.from("playlog/head/v1");
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function checkTlogProof(text: string, file: ExportFile, trust: Trust): { summary: string; failure?: string } {
  const split = text.indexOf("\n\n");
  const lines = text.slice(0, split).split("\n");
  let at = 1;
  const extra = lines[at]?.startsWith("extra ") ? Buffer.from((lines[at++] ?? "").slice(6), "base64") : undefined;
  const index = (lines[at] ?? "").slice(6);
  const hashes = lines.slice(at + 1);
  if (split < 0 || lines[0] !== HEADER || !lines[at]?.startsWith("index ") || !/^(0|[1-9][0-9]*)$/.test(index) || !hashes.every((h) => BASE64.test(h))) {
    return { summary: "not checked", failure: "the tlog-proof cannot be read: not a tlog-proof" };
  }
  let note;
  let checkpoint;
  try {
    note = parseNote(text.slice(split + 2));
    checkpoint = parseCheckpoint(note.body);
  } catch (error) {
    return { summary: "not checked", failure: `the tlog-proof cannot be read: ${(error as Error).message}` };
  }
  const { cosigned, untrusted } = cosigners(trust, note);
  if (untrusted !== undefined) return { summary: "not checked", failure: `the tlog-proof's checkpoint ${untrusted}` };
  if (extra === undefined || extra.length !== PREFIX.length + 56 || !extra.subarray(0, PREFIX.length).equals(PREFIX)) {
    return { summary: "not checked", failure: "the tlog-proof's extra data is not a playlog leaf" };
  }
  const gameHex = extra.subarray(PREFIX.length, PREFIX.length + 16).toString("hex");
  const gameId = `${gameHex.slice(0, 8)}-${gameHex.slice(8, 12)}-${gameHex.slice(12, 16)}-${gameHex.slice(16, 20)}-${gameHex.slice(20)}`;
  const seq = Number(extra.readBigUInt64BE(PREFIX.length + 16));
  const head = extra.subarray(PREFIX.length + 24).toString("hex");
  if (!verifyInclusion(leafHash(extra), Number(index), checkpoint.size, hashes.map((h) => Buffer.from(h, "base64")), checkpoint.root)) {
    return { summary: "not checked", failure: `the inclusion proof of leaf ${index} fails against its checkpoint` };
  }
  if (gameId !== file.header.game_id || file.events.find((e) => e.seq === seq)?.hash !== head) {
    return { summary: "not checked", failure: `the proven leaf is not this file's head at seq ${seq}` };
  }
  const witnessed = cosigned.length ? `, cosigned by ${cosigned.map((w) => w.name).join(", ")}` : "";
  return { summary: `the head at seq ${seq} is leaf ${index} of the checkpoint of size ${checkpoint.size}${witnessed}` };
}
