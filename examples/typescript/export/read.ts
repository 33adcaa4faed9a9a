// Reading an export's lines as docs/export-format.md ("Reading a line, exactly") says: anything
// malformed is a FormatError naming its line.
import { isLosslessNumber, parse } from "lossless-json";
import type { Json, JsonObject } from "./canonical.js";

class Malformed extends Error {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX = /^[0-9a-f]{64}$/;
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;

export interface EventLine {
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

export interface ShuffleLine {
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

/** What a seal of the log opens to (docs/export-format.md, "Personal lines"): its text and salt,
 * or, its person erased, only what it shows now. */
export interface PersonalLine {
  seal: string;
  subject: string;
  field: string;
  salt: string | null; // hex
  text: string | null;
  shown: string | null;
}

export interface ProofLine {
  index: number;
  seq: number;
  head: string; // hex
  proof: Buffer[];
  tag?: string; // hex: the game's tag of a version-2 leaf
}

export interface CheckpointLine {
  note: string;
  logKeys: string[];
}

export interface ExportFile {
  header: JsonObject;
  events: EventLine[];
  shuffles: ShuffleLine[];
  access: AccessLine[];
  personal: Map<string, PersonalLine>; // by seal
  // The proofs, last (docs/export-format.md, "Proofs"): checked with --trust and --receipts.
  receiptKeys: Record<string, string>; // signing key id (hex) -> base64 game key
  proofs: ProofLine[];
  checkpoint?: CheckpointLine;
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

function optionalString(record: JsonObject, name: string): string | null {
  const value = record[name] ?? null; // absent: null
  if (value !== null && typeof value !== "string") throw new Malformed(`${name} is not a string`);
  return value;
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
export class FormatError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

export function read(text: Buffer): ExportFile {
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
        file = { header: readHeader(object, line), events: [], shuffles: [], access: [], personal: new Map(), receiptKeys: {}, proofs: [] };
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
      else if (kind === "personal") {
        const personal = readPersonal(object);
        file.personal.set(personal.seal, personal);
      } else if (kind === "receipt_keys") file.receiptKeys = readReceiptKeys(object);
      else if (kind === "proof") file.proofs.push(readProof(object));
      else if (kind === "checkpoint") file.checkpoint = readCheckpoint(object);
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
  for (const name of ["dispute_id", "note"]) {
    field(record, name);
    optionalString(record, name);
  }
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

function readPersonal(record: JsonObject): PersonalLine {
  const text = optionalString(record, "text");
  const shown = optionalString(record, "shown");
  const salt = record.salt ?? null;
  if ((salt === null) !== (text === null) || (text === null && shown === null)) {
    throw new Malformed("a text comes with its salt; an erased one with what it shows");
  }
  return {
    seal: string(record, "seal"),
    subject: string(record, "subject"),
    field: string(record, "field"),
    salt: salt === null ? null : hex(record, "salt"),
    text,
    shown,
  };
}

function readReceiptKeys(record: JsonObject): Record<string, string> {
  const keys = field(record, "keys");
  if (keys === null || typeof keys !== "object" || Array.isArray(keys) || isLosslessNumber(keys)) throw new Malformed("keys is not an object");
  const out: Record<string, string> = {};
  for (const [id, key] of Object.entries(keys as JsonObject)) {
    if (typeof key !== "string") throw new Malformed("a key is not a string");
    out[id] = key;
  }
  return out;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function readProof(record: JsonObject): ProofLine {
  const hashes = field(record, "proof");
  if (!Array.isArray(hashes)) throw new Malformed("proof is not an array");
  const proof = hashes.map((h) => {
    if (typeof h !== "string") throw new Malformed("a proof hash is not a string");
    if (!BASE64.test(h)) throw new Malformed("a proof hash is not base64");
    return Buffer.from(h, "base64");
  });
  const tag = "tag" in record ? hex(record, "tag") : undefined;
  return { index: integer(record, "index"), seq: integer(record, "seq"), head: hex(record, "head"), proof, tag };
}

function readCheckpoint(record: JsonObject): CheckpointLine {
  const keys = field(record, "log_keys");
  if (!Array.isArray(keys)) throw new Malformed("log_keys is not an array");
  if (!keys.every((k): k is string => typeof k === "string")) throw new Malformed("a log key is not a string");
  return { note: string(record, "note"), logKeys: keys };
}
