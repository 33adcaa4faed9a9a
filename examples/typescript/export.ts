// A finished game's export (JSON Lines), each line typed as the document's `ExportLine` (a union
// on `record`, named by the media type's `x-playlog-item-schema`). One line out per record
// (`record` and, for an event, its seq and type):
//
//   node build/export.js http://127.0.0.1:8000 GAME_ID TOKEN [--drop 0.25]
import createClient from "openapi-fetch";
import { droppingFetch, flag, retried } from "./drops.js";
import type { components, paths } from "./generated/playlog.js";

type ExportLine = components["schemas"]["ExportLine"];

const [url, gameId, token] = process.argv.slice(2);
if (!url || !gameId || !token) {
  console.error("usage: node build/export.js URL GAME_ID TOKEN [--drop RATE]");
  process.exit(2);
}
const client = createClient<paths>({
  baseUrl: url,
  headers: { Authorization: `Bearer ${token}` },
  fetch: droppingFetch(Number(flag("drop") ?? 0)),
});

const { data, error } = await retried(
  () => client.GET("/games/{game_id}/export", { params: { path: { game_id: gameId } }, parseAs: "text" }),
  "export",
);
if (error) throw new Error(`export refused: ${error.code} (${error.detail})`);
for (const text of data.split("\n").filter((line) => line !== "")) {
  const line = JSON.parse(text) as ExportLine;
  // Narrowed by `record`: each line's own fields.
  if (line.record === "header") console.log("header", line.events, line.status);
  else if (line.record === "event") console.log("event", line.seq, line.type);
  else if (line.record === "shuffle") console.log("shuffle", line.seq);
  else if (line.record === "access") console.log("access", line.n);
  else if (line.record === "personal") console.log("personal", line.field); // a seal's text, or what it shows once erased
  else if (line.record === "proof") console.log("proof", line.seq);
  else console.log(line.record, "-"); // the proofs' keys and checkpoint
}
