// The checks of a read export that the page alone allows: each returns its first finding.
import { isLosslessNumber, LosslessNumber } from "lossless-json";
import { canonical, compact, compareDecimal, type Json, type JsonObject, number, sameValue, sha256 } from "./canonical.js";
import type { EventLine, ExportFile, ShuffleLine } from "./read.js";

/** A finding: what failed, where (a seq, an access record's n or a line number), and why. */
export interface Finding {
  check: "format" | "chain" | "personal" | "shuffles" | "commands" | "seeds" | "header" | "access" | "log" | "receipts" | "tlog-proof";
  at: number;
  reason: string;
}

const GENESIS = "0".repeat(64);
const SEED = /^[0-9a-f]{64}$/;
const SERVER_SEED = Buffer.from("playlog/server-seed/v1\0");
const SEAT_SEED = Buffer.from("playlog/seat-seed/v1\0");
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

export function checkChain(file: ExportFile): Finding | undefined {
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

export function checkShuffles(file: ExportFile): Finding | undefined {
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

export function checkAccess(file: ExportFile): Finding | undefined {
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

/** The header's facts that lobby.created states (the outcome needs the rules). */
export function checkHeader(file: ExportFile): Finding | undefined {
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
export function checkSeeds(file: ExportFile): Finding | undefined {
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
 * metadata holds a `command`, made of `command.events` events with that same metadata less its
 * `command` and `command_id` (in logs written before: less its `command` alone, or whole). */
export function checkCommands(file: ExportFile): Finding | undefined {
  const recorded = (event: EventLine) => ((event.metadata ?? {}) as JsonObject).command;
  const first = file.events[0];
  if (first === undefined || recorded(first) === undefined) return undefined; // recorded before commands were
  let left = 0;
  let forms: string[] = [];
  for (const event of file.events) {
    if (left > 0) {
      if (!forms.includes(canonical(event.metadata))) return { check: "commands", at: event.seq, reason: "an event outside its command's group" };
      left -= 1;
      continue;
    }
    const command = recorded(event) as JsonObject | undefined;
    const count = command && typeof command === "object" ? command.events : undefined;
    if (!isLosslessNumber(count) || !/^[1-9][0-9]*$/.test(count.value)) {
      return { check: "commands", at: event.seq, reason: "an event no recorded command produced" };
    }
    left = Number(count.value) - 1;
    const lessCommand: JsonObject = { ...(event.metadata as JsonObject) };
    delete lessCommand.command;
    const lessId: JsonObject = { ...lessCommand };
    delete lessId.command_id;
    forms = [canonical(event.metadata), canonical(lessCommand), canonical(lessId)];
  }
  const last = file.events[file.events.length - 1];
  return left > 0 && last ? { check: "commands", at: last.seq + 1, reason: "a command's group is cut short" } : undefined;
}

