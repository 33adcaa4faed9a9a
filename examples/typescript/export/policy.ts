// What a verifier trusts (`--trust FILE`): a C2SP tlog-policy (c2sp.org/tlog-policy: `log`,
// `witness`, `group` and `quorum` lines) or verifier keys one a line (log keys of type 0x01,
// witness keys of type 0x04, every witness required); and whether a checkpoint meets it.
import { COSIGNATURE_V1, ED25519, type Note, parseKey, signers, type VerifierKey } from "./notes.js";

export interface Group {
  name: string;
  k: number;
  members: (VerifierKey | Group)[];
}

export interface Trust {
  logKeys: VerifierKey[];
  witnessKeys: VerifierKey[];
  quorum: Group;
}

const NONE: Group = { name: "none", k: 0, members: [] };
const POLICY_WORDS = new Set(["log", "witness", "group", "quorum"]);

const isKey = (member: VerifierKey | Group): member is VerifierKey => "kind" in member;

function met(group: Group, cosigned: VerifierKey[]): boolean {
  const count = group.members.filter((m) => (isKey(m) ? cosigned.includes(m) : met(m, cosigned))).length;
  return count >= group.k;
}

function typed(text: string, kind: number): VerifierKey {
  const key = parseKey(text);
  if (key.kind !== kind) throw new Error(`the key of ${key.name} is not of the type a ${kind === ED25519 ? "log" : "witness"} signs with`);
  return key;
}

function policy(lines: string[][]): Trust {
  const logs: VerifierKey[] = [];
  const names = new Map<string, VerifierKey | Group>([["none", NONE]]);
  let quorum: Group | undefined;
  for (const [word, ...rest] of lines) {
    const [first = "", second = ""] = rest;
    if (word === "log" && (rest.length === 1 || rest.length === 2)) logs.push(typed(first, ED25519));
    else if (word === "witness" && (rest.length === 2 || rest.length === 3) && !names.has(first)) names.set(first, typed(second, COSIGNATURE_V1));
    else if (word === "group" && rest.length >= 3 && !names.has(first)) {
      const members = rest.slice(2);
      if (new Set(members).size !== members.length || !members.every((m) => names.has(m) && m !== "none")) throw new Error(`a policy group names an undefined member, none, or one twice: ${rest.join(" ")}`);
      const k = second === "all" ? members.length : second === "any" ? 1 : /^[1-9][0-9]*$/.test(second) ? Number(second) : 0;
      if (k < 1 || k > members.length) throw new Error(`a group's threshold is all, any or 1..${members.length}: ${second}`);
      names.set(first, { name: first, k, members: members.map((m) => names.get(m) as VerifierKey | Group) });
    } else if (word === "quorum" && rest.length === 1 && names.has(first) && quorum === undefined) {
      const found = names.get(first) as VerifierKey | Group;
      quorum = isKey(found) ? { name: first, k: 1, members: [found] } : found;
    } else throw new Error(`not a policy line (or a name defined twice, or a second quorum): ${[word, ...rest].join(" ")}`);
  }
  if (quorum === undefined) throw new Error("a policy needs one quorum line");
  const witnessKeys = [...names.values()].filter(isKey);
  const distinct = (keys: VerifierKey[]) => new Set(keys.map((k) => k.key.export({ format: "jwk" }).x)).size === keys.length;
  if (!distinct(logs) || !distinct(witnessKeys)) throw new Error("a policy lists one key twice");
  return { logKeys: logs, witnessKeys, quorum };
}

/** The `--trust` file: a tlog-policy, or verifier keys one a line; `#` starts a comment. */
export function parseTrust(text: string): Trust {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const words = lines.map((line) => line.split(/[ \t]+/));
  if (words.some(([word]) => POLICY_WORDS.has(word ?? ""))) return policy(words);
  const keys = lines.map(parseKey);
  const witnessKeys = keys.filter((k) => k.kind === COSIGNATURE_V1);
  const quorum = witnessKeys.length ? { name: "every listed witness", k: witnessKeys.length, members: witnessKeys } : NONE;
  return { logKeys: keys.filter((k) => k.kind === ED25519), witnessKeys, quorum };
}

/** The known witnesses that cosigned `note`, and why it is not trusted (undefined: it is). */
export function cosigners(trust: Trust, note: Note): { cosigned: VerifierKey[]; untrusted?: string } {
  let signed: VerifierKey[];
  try {
    signed = signers(note, [...trust.logKeys, ...trust.witnessKeys]);
  } catch (error) {
    return { cosigned: [], untrusted: (error as Error).message };
  }
  const cosigned = trust.witnessKeys.filter((w) => signed.includes(w));
  if (!trust.logKeys.some((k) => signed.includes(k))) return { cosigned, untrusted: "bears no signature of a trusted log key" };
  if (met(trust.quorum, cosigned)) return { cosigned };
  const q = trust.quorum;
  if (q.k === q.members.length && q.members.every(isKey)) {
    return { cosigned, untrusted: `is not cosigned by ${q.members.filter((m) => !cosigned.includes(m as VerifierKey)).map((m) => m.name).join(", ")}` };
  }
  return { cosigned, untrusted: `is cosigned by ${cosigned.map((w) => w.name).join(", ") || "none"}: short of the quorum ${q.name}` };
}
