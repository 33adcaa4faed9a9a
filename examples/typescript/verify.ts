// An independent verifier of a playlog export, written from docs/export-format.md alone: the
// reading rules, the events' hash chain, the shuffle commitments against their reveals, the
// recorded commands' grouping, the seeds, the header's facts, the access records' chain and each
// personal text against its seal (export/: canonical.ts, read.ts, checks.ts, personal.ts). With
// `--trust KEYS` (verifier keys, or a C2SP tlog-policy: export/policy.ts) it checks the file's
// inclusion proofs against its checkpoint, signed by a trusted log key and cosigned as the
// quorum asks (export/proofs.ts, merkle.ts, notes.ts); with `--trust` and `--receipts FILE` a
// seat's receipts against the file (export/receipts.ts; without pinned keys they are
// UNVERIFIED); with `--trust` and `--proof P` a C2SP tlog-proof of a head (export/tlogproof.ts). It does not run the rules (`playlog verify` does). It prints a report in the
// shape of `playlog verify`'s and exits 1 unless it is OK.
//
//   npm ci && npm run check && node build/verify.js [--trust KEYS] [--receipts FILE] FILE[.gz] ...
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { checkAccess, checkChain, checkCommands, checkHeader, checkSeeds, checkShuffles, type Finding } from "./export/checks.js";
import { checkPersonal, personalSummary } from "./export/personal.js";
import { parseTrust, type Trust } from "./export/policy.js";
import { checkProofs } from "./export/proofs.js";
import { checkTlogProof } from "./export/tlogproof.js";
import { checkReceipts, type Kept, readReceipts } from "./export/receipts.js";
import { type ExportFile, FormatError, read } from "./export/read.js";

interface Options {
  trust?: Trust;
  proof?: string;
  receipts?: Kept[];
}

const PLACES: Record<Finding["check"], string> = {
  format: "line",
  chain: "seq",
  personal: "seq",
  shuffles: "seq",
  commands: "seq",
  seeds: "seq",
  header: "seq",
  access: "access record",
  log: "seq",
  receipts: "receipt",
  "tlog-proof": "the tlog-proof",
};

const NOT_SEQS = new Set(["access", "receipts", "tlog-proof"]);

function where(f: Finding): string {
  if (f.check === "receipts" && f.at === 0) return "the receipts";
  if (f.check === "tlog-proof") return PLACES[f.check];
  return f.check === "log" && f.at === 0 ? "checkpoint" : `${PLACES[f.check]} ${f.at}`;
}

/** The log and receipts lines, their findings, and what was asked but not checked. */
function trustLines(file: ExportFile, options: Options): [string[], Finding[], string[]] {
  const lines: string[] = [];
  const findings: Finding[] = [];
  const unverified: string[] = [];
  if (options.trust !== undefined) {
    const proven = checkProofs(file, options.trust);
    const cosigned = proven.witnesses.length ? `, cosigned by ${proven.witnesses.join(", ")}` : "";
    lines.push(`log:         ${proven.failure ? "FAILED" : "ok"} (heads at seqs [${proven.seqs.join(", ")}] under the checkpoint of size ${proven.size}${cosigned})`);
    if (proven.failure) findings.push({ check: "log", ...proven.failure });
  }
  if (options.receipts !== undefined && options.trust === undefined) {
    // Keys taken from the file itself would let whoever wrote it sign the receipts.
    lines.push(`receipts:    UNVERIFIED (${options.receipts.length} given, none checked: no pinned log keys)`);
    unverified.push("the receipts need pinned log keys (--trust)");
  } else if (options.receipts !== undefined && options.trust !== undefined) {
    const receipted = checkReceipts(file, options.receipts, options.trust.logKeys);
    const others = receipted.otherGames ? `, ${receipted.otherGames} of other games` : "";
    const digests = `; events digests checked for ${receipted.digests} (against the events kept with them)`;
    const none = !receipted.failure && receipted.checked === 0;
    lines.push(`receipts:    ${receipted.failure || none ? "FAILED" : "ok"} (${receipted.checked} of this game checked against the trusted keys${others}${digests})`);
    if (receipted.failure) findings.push({ check: "receipts", ...receipted.failure });
    if (none) findings.push({ check: "receipts", at: 0, reason: "no receipt of this game among those given" });
  }
  if (options.proof !== undefined && options.trust === undefined) {
    lines.push("tlog-proof:  UNVERIFIED (not checked: no trust policy)");
    unverified.push("the tlog-proof needs a trust policy (--trust)");
  } else if (options.proof !== undefined && options.trust !== undefined) {
    const proved = checkTlogProof(options.proof, file, options.trust);
    lines.push(`tlog-proof:  ${proved.failure ? "FAILED" : "ok"} (${proved.summary})`);
    if (proved.failure) findings.push({ check: "tlog-proof", at: 0, reason: proved.failure });
  }
  return [lines, findings, unverified];
}

function report(text: Buffer, options: Options = {}): string[] {
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
  const texts = checkPersonal(file);
  const shuffles = checkShuffles(file);
  const commands = checkCommands(file);
  const seeds = checkSeeds(file);
  const header = checkHeader(file);
  const access = chain ? undefined : checkAccess(file); // records about a log that holds
  const [extraLines, extra, unverified] = trustLines(file, options);
  const findings = [chain, texts, shuffles, commands, seeds, header, access, ...extra].filter((f): f is Finding => f !== undefined);
  const firstSeq = Math.min(...findings.filter((f) => !NOT_SEQS.has(f.check) && f.at > 0).map((f) => f.at));
  const receipt = extra.find((f) => f.check === "receipts" && f.at > 0);
  const failed = [
    ...(Number.isFinite(firstSeq) ? [`first bad seq ${firstSeq}`] : []),
    ...(access ? [`first bad access record ${access.at}`] : []),
    ...(receipt ? [`first bad receipt ${receipt.at}`] : []),
    ...(!Number.isFinite(firstSeq) && extra.some((f) => f.check === "log") ? ["the checkpoint"] : []),
    ...(extra.some((f) => f.check === "receipts" && f.at === 0) ? ["no receipt of this game"] : []),
    ...(extra.some((f) => f.check === "tlog-proof") ? ["the tlog-proof"] : []),
  ];
  const personal = personalSummary(file);
  const disclosed = file.events.some((e) => e.type === "lobby.seed_disclosed");
  const created = file.events[0]?.data as { seed_commitment?: unknown } | null | undefined;
  const committed = typeof created?.seed_commitment === "string";
  return [
    `game ${String(file.header.game_id)} (${String(file.header.kind)}): ${file.events.length} events, ${file.shuffles.length} shuffles`,
    `hash chain:  ${chain ? "FAILED" : "ok"}`,
    `shuffles:    ${shuffles ? "FAILED" : "ok"}`,
    `replay:      not checked (the rules are not on the page)${commands ? "; commands FAILED" : ""}`,
    `seeds:       ${seeds ? "FAILED" : disclosed ? "ok" : committed ? "not disclosed yet" : "none committed"}`,
    `header:      ${header ? "FAILED" : "ok"} (the outcome not checked)`,
    `access:      ${access ? "FAILED" : "ok"} (${file.access.length} records)`,
    ...(personal === undefined ? [] : [`texts:       ${texts ? "FAILED" : "ok"} (${personal})`]),
    ...extraLines,
    ...findings.sort((a, b) => Number(NOT_SEQS.has(a.check)) - Number(NOT_SEQS.has(b.check)) || a.at - b.at).map((f) => `  ${where(f)} (${f.check}): ${f.reason}`),
    failed.length ? `FAILED: ${failed.join(", ")}` : unverified.length ? `UNVERIFIED: ${unverified.join("; ")}` : "OK",
  ];
}

function main(args: string[]): number {
  const options: Options = {};
  const paths: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--trust" || arg === "--receipts" || arg === "--proof") {
      const value = readFileSync(args[++i] ?? "", "utf8");
      if (arg === "--trust") options.trust = parseTrust(value);
      else if (arg === "--proof") options.proof = value;
      else options.receipts = readReceipts(value);
    } else paths.push(arg);
  }
  if (paths.length === 0) {
    console.error("usage: node build/verify.js [--trust KEYS|POLICY] [--receipts FILE] [--proof TLOG-PROOF] FILE[.gz] ...");
    return 2;
  }
  let status = 0;
  for (const path of paths) {
    const raw = readFileSync(path);
    const lines = report(path.endsWith(".gz") ? gunzipSync(raw) : raw, options);
    if (paths.length > 1) console.log(`== ${path}`);
    console.log(lines.join("\n"));
    if (lines[lines.length - 1] !== "OK") status = 1;
  }
  return status;
}

process.exitCode = main(process.argv.slice(2));
