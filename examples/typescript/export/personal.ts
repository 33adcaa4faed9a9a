// Personal texts (docs/export-format.md, "Personal lines"): a display name or what a seat wrote
// is kept in the log as a seal, `"sealed:" || hex(sha256("playlog/personal/v1\n" || salt ||
// text))`; an export's `personal` lines give each seal's text and salt (or, its person erased,
// what it shows now). A body read back from the service carries the text and the seals by field
// (its `sealed` member); receipts hash it in its sealed form, as the log keeps it.
import { isLosslessNumber } from "lossless-json";
import { type Json, type JsonObject, sha256 } from "./canonical.js";
import type { Finding } from "./checks.js";
import type { ExportFile } from "./read.js";

const LABEL = Buffer.from("playlog/personal/v1\n");
const PREFIX = "sealed:";
// The personal fields of the events and of the recorded commands' bodies, by type.
const EVENT_FIELDS: Record<string, string[]> = {
  "lobby.joined": ["name"],
  "dispute.raised": ["reason"],
  "dispute.answered": ["text"],
};
const COMMAND_FIELDS: Record<string, string[]> = {
  "table.join": ["name"],
  "dispute.raise": ["reason"],
  "dispute.reply": ["text"],
};

function isObject(value: Json | undefined): value is JsonObject {
  return value !== null && value !== undefined && typeof value === "object" && !Array.isArray(value) && !isLosslessNumber(value);
}

/** An opened body back as the log keeps it: each field its `sealed` member names replaced by
 * that seal, the member dropped; any other value as it is. */
export function sealedForm(data: Json): Json {
  if (!isObject(data) || !isObject(data.sealed)) return data;
  const seals = data.sealed;
  const body: JsonObject = {};
  for (const [key, value] of Object.entries(data)) if (key !== "sealed") body[key] = value;
  for (const [key, seal] of Object.entries(seals)) if (key in body) body[key] = seal;
  return body;
}

function seals(body: Json, fields: string[] | undefined): string[] {
  if (!isObject(body) || fields === undefined) return [];
  return fields.map((name) => body[name]).filter((v): v is string => typeof v === "string" && v.startsWith(PREFIX) && [...v].length === PREFIX.length + 64);
}

/** The first event with a seal (in its data, or its recorded command's body) that its personal
 * line's text and salt do not open; an erased one has nothing to check. */
export function checkPersonal(file: ExportFile): Finding | undefined {
  for (const event of file.events) {
    const command = isObject(event.metadata) ? event.metadata.command : undefined;
    const body = isObject(command) ? command.body : undefined;
    const type = isObject(body) && typeof body.type === "string" ? body.type : "";
    for (const seal of [...seals(event.data, EVENT_FIELDS[event.type]), ...seals(body ?? null, COMMAND_FIELDS[type])]) {
      const line = file.personal.get(seal);
      if (line?.salt == null || line.text === null) continue; // not in the file, or erased
      if (`${PREFIX}${sha256(LABEL, Buffer.from(line.salt, "hex"), line.text)}` !== seal) {
        return { check: "personal", at: event.seq, reason: "a personal text does not open its seal" };
      }
    }
  }
  return undefined;
}

/** The report's count: texts that open their seals, and erased ones. */
export function personalSummary(file: ExportFile): string | undefined {
  if (file.personal.size === 0) return undefined;
  const erased = [...file.personal.values()].filter((p) => p.text === null).length;
  return `${file.personal.size - erased} open their seals, ${erased} erased`;
}
