// The canonical text an export's hashes cover (PostgreSQL jsonb's text form) and the compact
// JSON its commitments cover, with every number kept as its literal (docs/export-format.md).
import { createHash } from "node:crypto";
import { isLosslessNumber, LosslessNumber } from "lossless-json";

export type Json = null | boolean | string | LosslessNumber | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A JSON number literal in plain notation with its own digits after the point, as
 * PostgreSQL's numeric prints it (an exponent folded in, no negative zero). */
function plainNumber(literal: string): string {
  const match = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(literal);
  if (!match) throw new Error(`not a number: ${literal}`);
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

export function canonical(value: Json): string {
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
export function compact(value: Json): string {
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

export function sha256(...parts: (Buffer | string)[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
}

/** A number (as its literal) for hashing a decimal string such as `recorded_at`. */
export function number(text: string): Json {
  return new LosslessNumber(text);
}

/** A number's value as text: plain notation, no trailing zeros after the point. */
function numeric(literal: string): string {
  const plain = plainNumber(literal);
  return plain.includes(".") ? plain.replace(/0+$/, "").replace(/\.$/, "") : plain;
}

export function sameValue(a: Json | undefined, b: Json | undefined): boolean {
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


/** Compares two non-negative decimal literals (epoch seconds) exactly. */
export function compareDecimal(a: string, b: string): number {
  const [aWhole = "", aFraction = ""] = plainNumber(a).split(".");
  const [bWhole = "", bFraction = ""] = plainNumber(b).split(".");
  const width = Math.max(aFraction.length, bFraction.length);
  const x = BigInt(aWhole + aFraction.padEnd(width, "0"));
  const y = BigInt(bWhole + bFraction.padEnd(width, "0"));
  return x < y ? -1 : x > y ? 1 : 0;
}
