// A small verifier of playlog's signed receipts (docs/receipts.md), with node's own crypto:
// a receipt is a C2SP signed note by the log's Ed25519 key (GET /log/keys). It checks the
// signature, that the receipt is this answer's (its game, seat and version) and that its events
// digest is that of the events the answer gave. That digest is over the canonical text of
// docs/receipts.md, written from the answer's numbers as they were written: so the events are
// read from the answer's raw text with lossless-json (JSON.parse, which openapi-fetch uses,
// loses number literals) and hashed by export/receipts.ts's `eventsDigest`.
import { createHash, createPublicKey, verify, type KeyObject } from "node:crypto";
import { isLosslessNumber, parse } from "lossless-json";
import type { Json, JsonObject } from "./export/canonical.js";
import { eventsDigest } from "./export/receipts.js";

export interface Receipt {
  version: number; // 2: `events` hashes the canonical text (checked here); 1: msgspec's JSON
  game: string;
  seat: number;
  before: number;
  after: number;
  events: string; // base64 digest of the seat's events before+1..after
  head: string; // base64 commitment to the game's head
  command?: string; // the request's fingerprint (a command's receipt)
  key?: string; // its Idempotency-Key
}

interface LogKey {
  name: string;
  id: string; // 4 bytes, hex
  key: KeyObject;
}

/** A signed-note verifier key `<name>+<hex key id>+<base64(0x01 || public key)>`. */
export function parseLogKey(text: string): LogKey {
  // The key's base64 may hold "+" too: only the first two separate fields.
  const [name, id, ...rest] = text.trim().split("+");
  const encoded = rest.join("+");
  const raw = Buffer.from(encoded, "base64");
  if (!name || !id || raw.length !== 33 || raw[0] !== 0x01) throw new Error(`not a log key: ${text}`);
  const computed = createHash("sha256")
    .update(Buffer.concat([Buffer.from(`${name}\n`), raw]))
    .digest()
    .subarray(0, 4)
    .toString("hex");
  if (computed !== id) throw new Error(`the key id of ${name} does not match its key`);
  const x = raw.subarray(1).toString("base64url");
  return { name, id, key: createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" }) };
}

/** The receipt in `text` if one of `keys` signed it; throws otherwise. */
export function verifyReceipt(text: string, keys: LogKey[]): Receipt {
  const split = text.indexOf("\n\n");
  if (split < 0 || !text.endsWith("\n")) throw new Error("not a signed note");
  const body = text.slice(0, split + 1);
  const signed = text
    .slice(split + 2, -1)
    .split("\n")
    .some((line) => {
      const [dash, name, encoded] = line.split(" ");
      const raw = Buffer.from(encoded ?? "", "base64");
      const key = keys.find((k) => k.name === name && k.id === raw.subarray(0, 4).toString("hex"));
      return dash === "\u2014" && key !== undefined && verify(null, Buffer.from(body), key.key, raw.subarray(4));
    });
  if (!signed) throw new Error("the receipt bears no signature of the log's keys");
  const lines = body.slice(0, -1).split("\n");
  const version = { "playlog/receipt/v1": 1, "playlog/receipt/v2": 2 }[lines[0] ?? ""];
  if (version === undefined) throw new Error("not a playlog receipt");
  const fields = new Map(lines.slice(1).map((line) => [line.split(" ", 1)[0], line.slice(line.indexOf(" ") + 1)]));
  const [before, after] = (fields.get("versions") ?? "").split(" ").map(Number);
  const receipt: Receipt = {
    version,
    game: fields.get("game") ?? "",
    seat: Number(fields.get("seat")),
    before: before ?? NaN,
    after: after ?? NaN,
    events: fields.get("events") ?? "",
    head: fields.get("head") ?? "",
    command: fields.get("command"),
    key: fields.get("key"),
  };
  if (!receipt.game || !Number.isInteger(receipt.seat) || !(receipt.before <= receipt.after)) {
    throw new Error("a malformed receipt");
  }
  return receipt;
}

/** Check `text` is the signed receipt of an answer to `seat` of `game` at `version`. */
export function checkReceipt(text: string, keys: LogKey[], game: string, seat: number, version: number): Receipt {
  const receipt = verifyReceipt(text, keys);
  if (receipt.game !== game || receipt.seat !== seat || receipt.after !== version) {
    throw new Error("the receipt is not this answer's (game, seat or version)");
  }
  return receipt;
}

/** The events of a JSON answer's raw `text` (a list of events, or an object with `events`), each
 * number as its literal. */
export function answerEvents(text: string): Json[] {
  const value = parse(text) as Json;
  const events = Array.isArray(value) || value === null || typeof value !== "object" || isLosslessNumber(value) ? value : (value as JsonObject).events;
  if (!Array.isArray(events)) throw new Error("the answer carries no list of events");
  return events;
}

/** Check `receipt` vouches for exactly `events` (read by `answerEvents`): a v2 receipt's digest.
 * The service signs v2 receipts; a v1 receipt's digest is not reproduced here, so it fails. */
export function checkEvents(receipt: Receipt, events: Json[]): void {
  const where = `versions ${receipt.before}..${receipt.after}`;
  if (receipt.version < 2) throw new Error(`a v${receipt.version} receipt (${where}): its events digest cannot be checked`);
  if (!eventsDigest(events).equals(Buffer.from(receipt.events, "base64"))) {
    throw new Error(`the receipt's events digest (${where}) is not that of the ${events.length} events given`);
  }
}

/** The log's keys, as the service publishes them. */
export async function logKeys(url: string): Promise<LogKey[]> {
  const response = await fetch(`${url}/log/keys`);
  const body = (await response.json()) as { log_keys: string[] };
  return body.log_keys.map(parseLogKey);
}
