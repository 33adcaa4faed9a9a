// An independent verifier of a playlog export, written from docs/export-format.md alone: the
// reading rules, the events' hash chain, the shuffle commitments against their reveals, the
// recorded commands' grouping, the seeds, the header's facts and the access records' chain
// (export/: canonical.ts, read.ts, checks.ts). It does not run the rules (`playlog verify` does).
// It prints a report in the shape of `playlog verify`'s and exits 1 on a finding.
//
//   npm ci && npm run check && node build/verify.js FILE[.gz]
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { checkAccess, checkChain, checkCommands, checkHeader, checkSeeds, checkShuffles, type Finding } from "./export/checks.js";
import { type ExportFile, FormatError, read } from "./export/read.js";

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
