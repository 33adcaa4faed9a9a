// A seat's receipts against an export (docs/receipts.md, "Checking receipts"): each receipt's
// signature, game, seat and versions, its head commitment against the file's hashes (with the
// game keys the file's `receipt_keys` line reveals), its command's key, and its events digest
// against the events the seat kept with it. What a seat was shown of the file's events needs the
// rules (which events are hidden from it, how each is redacted), so the digest is checked against
// the kept events only; `playlog verify --receipts` also checks it against the file.
import { createHmac } from "node:crypto";
import { isLosslessNumber, parse } from "lossless-json";
import { canonical, type Json, type JsonObject, sha256 } from "./canonical.js";
import { ED25519, parseNote, signers, type VerifierKey } from "./notes.js";
import { sealedForm } from "./personal.js";
import type { ExportFile } from "./read.js";

export interface Receipt {
  version: number; // 2: the events digest is the canonical text's; 1: msgspec's JSON (not reproduced here)
  game: string;
  seat: number;
  before: number;
  after: number;
  events: Buffer;
  head: Buffer;
  command?: string;
  key?: string;
}

/** A kept receipt, and the events its answer gave, when the seat kept them. */
export interface Kept {
  text: string;
  events?: Json[];
}

const COUNT = /^(0|[1-9][0-9]*)$/;

function digest(text: string | undefined): Buffer {
  const raw = Buffer.from(text ?? "", "base64");
  if (raw.length !== 32 || raw.toString("base64") !== text) throw new Error("a digest is 32 bytes in base64");
  return raw;
}

export function receiptBody(r: Receipt): string {
  const lines = [`playlog/receipt/v${r.version}`, `game ${r.game}`, `seat ${r.seat}`, `versions ${r.before} ${r.after}`];
  lines.push(`events ${r.events.toString("base64")}`, `head ${r.head.toString("base64")}`);
  if (r.command !== undefined) lines.push(`command ${r.command}`);
  if (r.command !== undefined && r.key !== undefined) lines.push(`key ${r.key}`);
  return `${lines.join("\n")}\n`;
}

export function parseReceipt(body: string): Receipt {
  const lines = body.split("\n");
  const version = { "playlog/receipt/v1": 1, "playlog/receipt/v2": 2 }[lines[0] ?? ""];
  if (version === undefined || lines[lines.length - 1] !== "" || lines.length < 7 || lines.length > 9) throw new Error("not a playlog receipt");
  const fields = new Map(lines.slice(1, -1).map((line) => [line.split(" ", 1)[0], line.slice(line.indexOf(" ") + 1)]));
  const [before, after] = (fields.get("versions") ?? "").split(" ");
  const seat = fields.get("seat") ?? "";
  if (!COUNT.test(seat) || !COUNT.test(before ?? "") || !COUNT.test(after ?? "")) throw new Error("a malformed receipt");
  const receipt: Receipt = {
    version,
    game: fields.get("game") ?? "",
    seat: Number(seat),
    before: Number(before),
    after: Number(after),
    events: digest(fields.get("events")),
    head: digest(fields.get("head")),
    command: fields.get("command"),
    key: fields.get("key"),
  };
  if (receiptBody(receipt) !== body || receipt.before > receipt.after) throw new Error("a receipt not in its canonical form");
  return receipt;
}

/** SHA-256 of `[[number, type, data], ...]` in the canonical text (a v2 receipt's `events`), each
 * body in its sealed form (a person's words as the log keeps them: export/personal.ts), so that a
 * receipt verifies the same once a person in it is erased. */
export function eventsDigest(events: Json[]): Buffer {
  const triples: Json[] = events.map((e) => {
    const event = e as JsonObject;
    return [event.seq ?? null, event.type ?? null, sealedForm(event.data ?? null)];
  });
  return Buffer.from(sha256(canonical(triples)), "hex");
}

/** A receipts file: a list, or an object with a `receipts` list; each a receipt, or an object
 * `{"receipt": text, "events": [...]}` with the events its answer gave (as the API wrote them). */
export function readReceipts(text: string): Kept[] {
  let value = parse(text) as Json;
  if (value !== null && typeof value === "object" && !Array.isArray(value) && !isLosslessNumber(value)) value = (value as JsonObject).receipts ?? null;
  const fail = () => {
    throw new Error("a receipts file is a JSON list of receipts, or an object with one in 'receipts'");
  };
  if (!Array.isArray(value)) return fail();
  return value.map((entry) => {
    if (typeof entry === "string") return { text: entry };
    const object = (entry ?? {}) as JsonObject;
    if (typeof object.receipt !== "string" || (object.events !== undefined && !Array.isArray(object.events))) return fail();
    return { text: object.receipt, events: object.events as Json[] | undefined };
  });
}

export interface Receipted {
  checked: number;
  otherGames: number;
  digests: number; // events digests checked against the events kept
  failure?: { at: number; reason: string };
}

/** Each event's command id: its own metadata's, or within a recorded command's group (whose
 * later events carry none) the group's first event's. */
export function commandIds(file: ExportFile): Map<number, Json | undefined> {
  const ids = new Map<number, Json | undefined>();
  let group: Json | undefined;
  let left = 0;
  for (const event of file.events) {
    const metadata = (event.metadata ?? {}) as JsonObject;
    let own = metadata.command_id;
    const record = metadata.command as JsonObject | undefined;
    const count = record && typeof record === "object" ? record.events : undefined;
    if (isLosslessNumber(count)) {
      group = own;
      left = Number(count.value) - 1;
    } else if (left > 0) {
      left -= 1;
      own ??= group;
    }
    ids.set(event.seq, own);
  }
  return ids;
}

export function checkReceipts(file: ExportFile, kept: Kept[], keys: VerifierKey[]): Receipted {
  const gameId = file.header.game_id as string;
  const result: Receipted = { checked: 0, otherGames: 0, digests: 0 };
  const heads = new Map<string, Map<string, number>>(); // key id -> head commitment (base64) -> seq
  for (const [id, gameKey] of Object.entries(file.receiptKeys)) {
    const key = Buffer.from(gameKey, "base64");
    heads.set(id, new Map(file.events.map((e) => [createHmac("sha256", key).update(Buffer.from(e.hash, "hex")).digest("base64"), e.seq])));
  }
  const logKeys = keys.filter((k) => k.kind === ED25519);
  let ids: Map<number, Json | undefined> | undefined;
  for (const [index, { text, events }] of kept.entries()) {
    const n = index + 1;
    const fail = (reason: string): Receipted => ({ ...result, failure: { at: n, reason } });
    let receipt: Receipt;
    let signer: VerifierKey | undefined;
    try {
      const note = parseNote(text);
      receipt = parseReceipt(note.body);
      signer = signers(note, logKeys)[0];
    } catch (error) {
      return fail(`does not verify: ${(error as Error).message}`);
    }
    if (signer === undefined) return fail("does not verify: no signature by a key this verifier trusts");
    if (receipt.game !== gameId) {
      result.otherGames += 1;
      continue;
    }
    result.checked += 1;
    const label = `(seat ${receipt.seat}, versions ${receipt.before}..${receipt.after}${receipt.key ? `, key ${receipt.key}` : ""})`;
    if (events !== undefined && receipt.version >= 2) {
      if (!eventsDigest(events).equals(receipt.events)) return fail(`${label} the events kept with it are not the ones receipted`);
      result.digests += 1;
    }
    const byHead = heads.get(signer.id.toString("hex"));
    if (byHead === undefined) return fail(`${label} the file reveals no head key for key ${signer.id.toString("hex")}: the head is unchecked`);
    const seq = byHead.get(receipt.head.toString("base64"));
    if (seq === undefined) return fail(`${label} no head of the file is the receipted one: the game was rewritten, or cut`);
    // A seat's numbers count only the events it may know of: never more than the log's.
    const joined = file.events.some((e) => e.seq <= seq && e.type === "lobby.joined" && canonical((e.data as JsonObject).seat ?? null) === String(receipt.seat));
    if (!joined || receipt.after > seq) return fail(`${label} the receipted head is at seq ${seq}, where the seat cannot be at version ${receipt.after}`);
    if (receipt.key !== undefined) {
      ids ??= commandIds(file);
      if (ids.get(seq) !== `seat:${receipt.seat}:${receipt.key}`) return fail(`${label} the events at the receipted head are not this command's`);
    }
  }
  return result;
}
