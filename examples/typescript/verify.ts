// An independent verifier of a playlog export, written from docs/export-format.md alone: the
// events' hash chain, the shuffle commitments against their reveals, and the access records'
// chain. It does not replay the rules (that needs the rules themselves, as `playlog verify` has).
// It prints a report in the shape of `playlog verify`'s and exits 1 on the first finding.
//
//   npm ci && npm run check && node build/verify.js FILE[.gz]
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { isLosslessNumber, LosslessNumber, parse } from "lossless-json";

type Json = null | boolean | string | LosslessNumber | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** A finding: what failed, where (a seq, an access record's n or a line number), and why. */
interface Finding {
  check: "format" | "chain" | "shuffles" | "commands" | "seeds" | "header" | "access";
  at: number;
  reason: string;
}

class Malformed extends Error {}

const GENESIS = "0".repeat(64);
const SEED = /^[0-9a-f]{64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SERVER_SEED = Buffer.from("playlog/server-seed/v1\0");
const SEAT_SEED = Buffer.from("playlog/seat-seed/v1\0");
const HEX = /^[0-9a-f]{64}$/;
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;
const REASONS = new Set(["dispute", "cheating_report", "incident", "legal_request", "player_request", "after_end"]);
// The event field holding the committed order, where the event holds it whole (a KittenDefused
// commits to the pile after its placement, which only a replay knows).
const ORDER_FIELD: Record<string, string> = {
  DeckDealt: "draw_pile",
  DeckShuffled: "order",
  ARiskCatGameSetUp: "bag",
  TurnBusted: "bag",
  BankerReturned: "bag",
};

// -- the canonical text (PostgreSQL jsonb's text form) ---------------------------------------

/** A JSON number literal in plain notation with its own digits after the point, as
 * PostgreSQL's numeric prints it (an exponent folded in, no negative zero). */
function plainNumber(literal: string): string {
  const match = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(literal);
  if (!match) throw new Malformed(`not a number: ${literal}`);
  const [, sign, whole = "", fraction = "", exponent = "0"] = match;
  const scale = Number(exponent) - fraction.length; // value = digits * 10^scale
  let digits = (whole + fraction).replace(/^0+(?=.)/, "");
  let text: string;
  if (scale >= 0) {
    text = /^0+$/.test(digits) ? "0" : digits + "0".repeat(scale);
  } else {
    digits = digits.padStart(-scale + 1, "0");
    text = `${digits.slice(0, scale)}.${digits.slice(scale)}`;
  }
  return /[1-9]/.test(text) ? sign + text : text;
}

function canonicalString(value: string): string {
  const escapes: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
  const escaped = value.replace(/["\\\u0000-\u001f]/g, (c) => escapes[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return `"${escaped}"`;
}

function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** Keys by the length of their UTF-8 bytes, then bytewise. */
function jsonbOrder(a: string, b: string): number {
  return utf8Length(a) - utf8Length(b) || Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function canonical(value: Json): string {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "string") return canonicalString(value);
  if (isLosslessNumber(value)) return plainNumber(value.value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(", ")}]`;
  const object = value as JsonObject;
  const keys = Object.keys(object).sort(jsonbOrder);
  return `{${keys.map((k) => `${canonicalString(k)}: ${canonical(object[k] ?? null)}`).join(", ")}}`;
}

/** The compact JSON a commitment hashes: no spaces, non-ASCII characters as they are. */
function compact(value: Json): string {
  if (value === null || typeof value === "boolean") return String(value);
  if (typeof value === "string") return canonicalString(value);
  if (isLosslessNumber(value)) return value.value;
  if (Array.isArray(value)) return `[${value.map(compact).join(",")}]`;
  const object = value as JsonObject;
  return `{${Object.keys(object)
    .sort()
    .map((k) => `${canonicalString(k)}:${compact(object[k] ?? null)}`)
    .join(",")}}`;
}

function sha256(...parts: (Buffer | string)[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
}

/** A number (as its literal) for hashing a decimal string such as `recorded_at`. */
function number(text: string): Json {
  return new LosslessNumber(text);
}

// -- reading ----------------------------------------------------------------------------------

interface EventLine {
  line: number;
  seq: number;
  type: string;
  schemaVersion: number;
  recordedAt: string;
  prevHash: string;
  hash: string;
  data: Json;
  metadata: Json;
}

interface ShuffleLine {
  seq: number;
  type: string;
  commitment: string;
  salt: string;
  order: Json[];
}

interface AccessLine {
  fields: JsonObject;
  n: number;
  at: string;
  reason: string;
  seqFrom: number;
  seqTo: number;
  prevHash: string;
  hash: string;
}

interface ExportFile {
  header: JsonObject;
  events: EventLine[];
  shuffles: ShuffleLine[];
  access: AccessLine[];
}

function field(record: JsonObject, name: string): Json {
  if (!(name in record)) throw new Malformed(`no '${name}'`);
  return record[name] ?? null;
}

function integer(record: JsonObject, name: string): number {
  const value = field(record, name);
  if (!isLosslessNumber(value) || !/^-?[0-9]+$/.test(value.value)) throw new Malformed(`${name} is not an integer`);
  return Number(value.value);
}

function string(record: JsonObject, name: string): string {
  const value = field(record, name);
  if (typeof value !== "string") throw new Malformed(`${name} is not a string`);
  return value;
}

function optionalString(record: JsonObject, name: string): void {
  const value = field(record, name);
  if (value !== null && typeof value !== "string") throw new Malformed(`${name} is not a string`);
}

function hex(record: JsonObject, name: string): string {
  const value = field(record, name);
  if (typeof value !== "string" || !HEX.test(value)) throw new Malformed(`${name} is not 64 lower-case hex digits`);
  return value;
}

function decimal(record: JsonObject, name: string): string {
  const value = field(record, name);
  if (typeof value !== "string" || !DECIMAL.test(value)) throw new Malformed(`${name} is not a decimal number in a string`);
  return value;
}

function readHeader(record: JsonObject, line: number): JsonObject {
  if (record.record !== "header" || record.format !== "playlog-export") {
    throw new FormatError(line, `line ${line} is not a playlog export header`);
  }
  const version = record.format_version;
  if (!isLosslessNumber(version) || version.value !== "1") {
    throw new FormatError(line, `line ${line}: unknown format_version ${isLosslessNumber(version) ? version.value : String(version)}`);
  }
  for (const name of ["game_id", "kind", "last_hash", "status"]) string(record, name);
  if (!UUID.test(record.game_id as string)) throw new Malformed("game_id is not a lower-case UUID");
  for (const name of ["events", "rules_version"]) integer(record, name);
  for (const name of ["options", "schema_versions"]) {
    const value = field(record, name);
    if (value === null || typeof value !== "object" || Array.isArray(value) || isLosslessNumber(value)) {
      throw new Malformed(`${name} is not an object`);
    }
  }
  if (typeof field(record, "public") !== "boolean") throw new Malformed("public is not a boolean");
  for (const name of ["spectator_delay", "exported_at"]) {
    if (!isLosslessNumber(field(record, name))) throw new Malformed(`${name} is not a number`);
  }
  for (const name of ["winners", "scores"]) {
    const value = field(record, name);
    if (value !== null && !Array.isArray(value)) throw new Malformed(`${name} is not an array`);
  }
  return record;
}

/** A format finding thrown while reading: the line it names. */
class FormatError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

function read(text: Buffer): ExportFile {
  const lines = text.toString("latin1").split("\n"); // bytes; each line decoded on its own
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let file: ExportFile | undefined;
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    if (/^[ \t\r\n\v\f]*$/.test(raw)) continue;
    let record: Json;
    try {
      record = parse(decoder.decode(Buffer.from(raw, "latin1"))) as Json;
    } catch {
      throw new FormatError(line, `line ${line} is not JSON`);
    }
    if (record === null || typeof record !== "object" || Array.isArray(record) || isLosslessNumber(record)) {
      throw new FormatError(line, `line ${line} is not a JSON object`);
    }
    const object = record as JsonObject;
    if (file === undefined) {
      try {
        file = { header: readHeader(object, line), events: [], shuffles: [], access: [] };
      } catch (error) {
        if (error instanceof Malformed) throw new FormatError(line, `line ${line}: malformed header: ${error.message}`);
        throw error;
      }
      continue;
    }
    const kind = object.record;
    try {
      if (kind === "event") file.events.push(readEvent(object, line));
      else if (kind === "shuffle") file.shuffles.push(readShuffle(object));
      else if (kind === "access") file.access.push(readAccess(object));
      else throw new FormatError(line, `line ${line}: unknown record ${JSON.stringify(kind ?? null)}`);
    } catch (error) {
      if (error instanceof Malformed) throw new FormatError(line, `line ${line}: malformed ${String(kind)} record: ${error.message}`);
      throw error;
    }
  }
  if (file === undefined) throw new FormatError(1, "the file is empty");
  return file;
}

function readEvent(record: JsonObject, line: number): EventLine {
  return {
    line,
    seq: integer(record, "seq"),
    type: string(record, "type"),
    schemaVersion: integer(record, "schema_version"),
    recordedAt: decimal(record, "recorded_at"),
    prevHash: hex(record, "prev_hash"),
    hash: hex(record, "hash"),
    data: field(record, "data"),
    metadata: field(record, "metadata"),
  };
}

function readShuffle(record: JsonObject): ShuffleLine {
  const order = field(record, "order");
  if (!Array.isArray(order)) throw new Malformed("order is not an array");
  return {
    seq: integer(record, "seq"),
    type: string(record, "type"),
    commitment: string(record, "commitment"),
    salt: string(record, "salt"),
    order,
  };
}

function readAccess(record: JsonObject): AccessLine {
  for (const name of ["moderator", "operation"]) string(record, name);
  for (const name of ["dispute_id", "note"]) optionalString(record, name);
  return {
    fields: record,
    n: integer(record, "n"),
    at: decimal(record, "at"),
    reason: string(record, "reason"),
    seqFrom: integer(record, "seq_from"),
    seqTo: integer(record, "seq_to"),
    prevHash: hex(record, "prev_hash"),
    hash: hex(record, "hash"),
  };
}

// -- the checks -------------------------------------------------------------------------------

function checkChain(file: ExportFile): Finding | undefined {
  const gameId = file.header.game_id as string;
  let running = GENESIS;
  for (const [index, event] of file.events.entries()) {
    const expected = index + 1;
    let reason: string | undefined;
    if (event.seq !== expected) reason = `seq ${expected} is missing (found seq ${event.seq})`;
    else if (event.prevHash !== running) reason = "prev_hash does not match the previous event's hash";
    else {
      const body: JsonObject = {
        game_id: gameId,
        seq: number(String(event.seq)),
        type: event.type,
        schema_version: number(String(event.schemaVersion)),
        data: event.data,
        metadata: event.metadata,
        recorded_at: number(event.recordedAt),
      };
      if (sha256(Buffer.from(running, "hex"), canonical(body)) !== event.hash) reason = "content does not match its hash";
    }
    if (reason) return { check: "chain", at: expected, reason };
    running = event.hash;
  }
  const count = file.events.length;
  const claimed = (file.header.events as { value: string }).value;
  if (claimed !== String(count) || file.header.last_hash !== running) {
    return { check: "chain", at: count + 1, reason: `the header has ${claimed} events; the file ${count}` };
  }
  return undefined;
}

function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  return a !== undefined && b !== undefined && canonical(a) === canonical(b);
}

function checkShuffles(file: ExportFile): Finding | undefined {
  const findings: Finding[] = [];
  const revealed = new Map<number, ShuffleLine>();
  for (const shuffle of file.shuffles) {
    if (revealed.has(shuffle.seq)) findings.push({ check: "shuffles", at: shuffle.seq, reason: "a second reveal of one commitment" });
    else revealed.set(shuffle.seq, shuffle);
  }
  const committing = new Map<number, EventLine>();
  for (const event of file.events) {
    const data = event.data as JsonObject | null;
    const commitment = data !== null && typeof data === "object" ? data.commitment : undefined;
    if (typeof commitment === "string" && commitment !== "") committing.set(event.seq, event); // "": none
  }
  const finding = (at: number, reason: string) => findings.push({ check: "shuffles", at, reason });
  for (const [seq, event] of committing) {
    const data = event.data as JsonObject;
    const shuffle = revealed.get(seq);
    const orderField = ORDER_FIELD[event.type];
    if (shuffle === undefined) finding(seq, "a commitment without its reveal");
    else if (shuffle.type !== event.type || shuffle.commitment !== data.commitment || shuffle.salt !== data.salt) {
      finding(seq, "the reveal's type, commitment or salt differs from the event's");
    } else if (sha256(shuffle.salt, compact(shuffle.order)) !== shuffle.commitment) {
      finding(seq, "the revealed order does not match its commitment");
    } else if (orderField !== undefined && !sameJson(shuffle.order, data[orderField])) {
      finding(seq, "the revealed order is not the replayed one");
    }
  }
  for (const seq of revealed.keys()) {
    if (!committing.has(seq)) finding(seq, "a reveal without a commitment");
  }
  return findings.sort((a, b) => a.at - b.at)[0];
}

function checkAccess(file: ExportFile): Finding | undefined {
  const gameId = file.header.game_id as string;
  let running = GENESIS;
  for (const [index, record] of file.access.entries()) {
    const expected = index + 1;
    const f = record.fields;
    const body: JsonObject = {
      game_id: gameId,
      n: number(String(record.n)),
      at: number(record.at),
      moderator: f.moderator ?? null,
      operation: f.operation ?? null,
      seq_from: number(String(record.seqFrom)),
      seq_to: number(String(record.seqTo)),
      reason: record.reason,
      dispute_id: f.dispute_id ?? null,
      note: f.note ?? null,
    };
    const logged = file.events.filter((e) => compareDecimal(e.recordedAt, record.at) <= 0).length;
    let reason: string | undefined;
    if (record.n !== expected) reason = `access record ${expected} is missing (found ${record.n})`;
    else if (record.prevHash !== running) reason = "prev_hash does not match the previous record's hash";
    else if (sha256(Buffer.from(running, "hex"), canonical(body)) !== record.hash) reason = "content does not match its hash";
    else if (!REASONS.has(record.reason)) reason = `unknown reason '${record.reason}'`;
    else if (!(1 <= record.seqFrom && record.seqFrom <= record.seqTo && record.seqTo <= logged)) {
      reason = `seqs ${record.seqFrom}-${record.seqTo} were not all logged by its time (${logged} were)`;
    }
    if (reason) return { check: "access", at: expected, reason };
    running = record.hash;
  }
  return undefined;
}

/** A number's value as text: plain notation, no trailing zeros after the point. */
function numeric(literal: string): string {
  const plain = plainNumber(literal);
  return plain.includes(".") ? plain.replace(/0+$/, "").replace(/\.$/, "") : plain;
}

function sameValue(a: Json | undefined, b: Json | undefined): boolean {
  if (isLosslessNumber(a) || isLosslessNumber(b)) {
    return isLosslessNumber(a) && isLosslessNumber(b) && numeric(a.value) === numeric(b.value);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
    const [x, y] = [a as JsonObject, b as JsonObject];
    const keys = Object.keys(x);
    return keys.length === Object.keys(y).length && keys.every((k) => k in y && sameValue(x[k], y[k]));
  }
  return a === b;
}

/** The header's facts that lobby.created states (the outcome needs the rules). */
function checkHeader(file: ExportFile): Finding | undefined {
  const first = file.events[0];
  const created = (first?.type === "lobby.created" ? first.data : {}) as JsonObject;
  const facts: [string, Json | undefined][] = [
    ["kind", created.kind],
    ["options", created.options],
    ["public", created.public],
    ["spectator_delay", created.spectator_delay],
    ["rules_version", created.rules_version ?? new LosslessNumber("1")], // games before it was recorded: 1
  ];
  for (const [name, value] of facts) {
    if (!sameValue(file.header[name], value)) return { check: "header", at: 1, reason: `the header's ${name} differs from lobby.created` };
  }
  return undefined;
}

/** The seeds: the disclosed server seed, and each seat's revealed seed, against their
 * commitments (docs/export-format.md, "Randomness"). */
function checkSeeds(file: ExportFile): Finding | undefined {
  const committed = new Map<number, Json>(); // seat -> its seed commitment, as joined
  let server: Json = null;
  for (const event of file.events) {
    const data = (event.data ?? {}) as JsonObject;
    const seed = typeof data.seed === "string" && SEED.test(data.seed) ? Buffer.from(data.seed, "hex") : undefined;
    if (event.type === "lobby.created") server = data.seed_commitment ?? null;
    else if (event.type === "lobby.joined" && isLosslessNumber(data.seat)) committed.set(Number(data.seat.value), data.seed_commitment ?? null);
    else if (event.type === "lobby.seed_disclosed") {
      if (seed === undefined || typeof server !== "string" || sha256(SERVER_SEED, seed) !== server) {
        return { check: "seeds", at: event.seq, reason: "the disclosed server seed does not match its commitment" };
      }
    } else if (event.type === "lobby.seed_revealed") {
      const seat = isLosslessNumber(data.seat) ? committed.get(Number(data.seat.value)) : undefined;
      if (seed === undefined || typeof seat !== "string" || sha256(SEAT_SEED, seed) !== seat) {
        return { check: "seeds", at: event.seq, reason: "the revealed seat seed does not match its commitment" };
      }
    }
  }
  return undefined;
}

/** In a game with recorded commands, the events come in groups: each opened by an event whose
 * metadata holds a `command`, made of `command.events` events with that same metadata. */
function checkCommands(file: ExportFile): Finding | undefined {
  const recorded = (event: EventLine) => ((event.metadata ?? {}) as JsonObject).command;
  const first = file.events[0];
  if (first === undefined || recorded(first) === undefined) return undefined; // recorded before commands were
  let left = 0;
  let metadata = "";
  for (const event of file.events) {
    if (left > 0) {
      if (canonical(event.metadata) !== metadata) return { check: "commands", at: event.seq, reason: "an event outside its command's group" };
      left -= 1;
      continue;
    }
    const command = recorded(event) as JsonObject | undefined;
    const count = command && typeof command === "object" ? command.events : undefined;
    if (!isLosslessNumber(count) || !/^[1-9][0-9]*$/.test(count.value)) {
      return { check: "commands", at: event.seq, reason: "an event no recorded command produced" };
    }
    left = Number(count.value) - 1;
    metadata = canonical(event.metadata);
  }
  const last = file.events[file.events.length - 1];
  return left > 0 && last ? { check: "commands", at: last.seq + 1, reason: "a command's group is cut short" } : undefined;
}

/** Compares two non-negative decimal literals (epoch seconds) exactly. */
function compareDecimal(a: string, b: string): number {
  const [aWhole = "", aFraction = ""] = plainNumber(a).split(".");
  const [bWhole = "", bFraction = ""] = plainNumber(b).split(".");
  const width = Math.max(aFraction.length, bFraction.length);
  const x = BigInt(aWhole + aFraction.padEnd(width, "0"));
  const y = BigInt(bWhole + bFraction.padEnd(width, "0"));
  return x < y ? -1 : x > y ? 1 : 0;
}

// -- the report -------------------------------------------------------------------------------

const PLACES: Record<Finding["check"], string> = {
  format: "line",
  chain: "seq",
  shuffles: "seq",
  commands: "seq",
  seeds: "seq",
  header: "seq",
  access: "access record",
};

function report(text: Buffer): string[] {
  let file: ExportFile;
  try {
    file = read(text);
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    return [
      "game ? (?): 0 events, 0 shuffles",
      "hash chain:  FAILED",
      "shuffles:    FAILED",
      "replay:      not checked (the rules are not on the page)",
      "access:      ok (0 records)",
      `  line ${error.line} (format): ${error.message}`,
      `FAILED: first bad line ${error.line}`,
    ];
  }
  const chain = checkChain(file);
  const shuffles = checkShuffles(file);
  const commands = checkCommands(file);
  const seeds = checkSeeds(file);
  const header = checkHeader(file);
  const access = chain ? undefined : checkAccess(file); // records about a log that holds
  const findings = [chain, shuffles, commands, seeds, header, access].filter((f): f is Finding => f !== undefined);
  const firstSeq = Math.min(...findings.filter((f) => f.check !== "access").map((f) => f.at));
  const failed = [
    ...(Number.isFinite(firstSeq) ? [`first bad seq ${firstSeq}`] : []),
    ...(access ? [`first bad access record ${access.at}`] : []),
  ];
  const disclosed = file.events.some((e) => e.type === "lobby.seed_disclosed");
  return [
    `game ${String(file.header.game_id)} (${String(file.header.kind)}): ${file.events.length} events, ${file.shuffles.length} shuffles`,
    `hash chain:  ${chain ? "FAILED" : "ok"}`,
    `shuffles:    ${shuffles ? "FAILED" : "ok"}`,
    `replay:      not checked (the rules are not on the page)${commands ? "; commands FAILED" : ""}`,
    `seeds:       ${seeds ? "FAILED" : disclosed ? "ok" : "not disclosed yet"}`,
    `header:      ${header ? "FAILED" : "ok"} (the outcome not checked)`,
    `access:      ${access ? "FAILED" : "ok"} (${file.access.length} records)`,
    ...findings.sort((a, b) => Number(a.check === "access") - Number(b.check === "access") || a.at - b.at).map((f) => `  ${PLACES[f.check]} ${f.at} (${f.check}): ${f.reason}`),
    failed.length ? `FAILED: ${failed.join(", ")}` : "OK",
  ];
}

function main(paths: string[]): number {
  if (paths.length === 0) {
    console.error("usage: node build/verify.js FILE[.gz] ...");
    return 2;
  }
  let status = 0;
  for (const path of paths) {
    const raw = readFileSync(path);
    const lines = report(path.endsWith(".gz") ? gunzipSync(raw) : raw);
    if (paths.length > 1) console.log(`== ${path}`);
    console.log(lines.join("\n"));
    if (lines[lines.length - 1] !== "OK") status = 1;
  }
  return status;
}

process.exitCode = main(process.argv.slice(2));
