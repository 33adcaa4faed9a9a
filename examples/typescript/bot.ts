// An example bot on types generated from playlog's OpenAPI document (openapi-typescript) and
// openapi-fetch. It plays one seat of a running game of either kind: it follows the seat's event
// stream (SSE, read by sse.ts, which resumes a dropped connection) and, whenever its view lists
// moves of its own (`moves`: the legal commands but leaving), sends one of them at random.
// Refusals that only mean the game moved on are read from the document (`x-playlog-races`). It
// checks and keeps the signed receipt of every command it sends (receipts.ts), the receipt's
// digest against the events of the answer as written (so a command's answer is read as text).
//
//   npm ci && npm run generate && npm run check     (types into generated/, JavaScript into build/)
//   node build/bot.js http://127.0.0.1:8000 GAME_ID SEAT SEAT_TOKEN [--drop 0.25]
//
// With `--drop` a share of its answers are lost on purpose and asked for again (drops.ts).
import { randomUUID } from "node:crypto";
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/playlog.js";
import { droppingFetch, flag, retried } from "./drops.js";
import { answerEvents, checkEvents, checkReceipt, logKeys } from "./receipts.js";
import { follow } from "./sse.js";

type Command = components["schemas"]["Command"];
type CommandResult = components["schemas"]["CommandResult"];

const [url, gameId, seatText, token] = process.argv.slice(2);
if (!url || !gameId || !seatText || !token) {
  console.error("usage: node build/bot.js URL GAME_ID SEAT TOKEN");
  process.exit(2);
}
const seat = Number(seatText);
const trace = process.env.BOT_TRACE ? (...args: unknown[]) => console.error(...args) : () => {};
const client = createClient<paths>({
  baseUrl: url,
  headers: { Authorization: `Bearer ${token}` },
  fetch: droppingFetch(Number(flag("drop") ?? 0)),
});
const path = { game_id: gameId, seat };

/** The refusals of a command that only mean the game moved on (the document's
 * `x-playlog-races`): read the view again and decide again. */
async function races(): Promise<Set<string>> {
  type Response = { "x-playlog-races"?: string[] };
  const document = (await (await retried(() => fetch(`${url}/schema/openapi.json`), "document")).json()) as {
    paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  };
  const responses = document.paths["/games/{game_id}/seats/{seat}/commands"]?.post?.responses ?? {};
  return new Set(Object.values(responses).flatMap((response) => response["x-playlog-races"] ?? []));
}
const RACES = await races();
const KEYS = await logKeys(url);
const receipts: string[] = []; // the service's signed word for every command it took
let digests = 0; // of those, the receipts whose events digest matched the answer's events

/** Look at the seat's view and play if it may; true once the game is over. */
async function turn(): Promise<boolean> {
  const { data: view, error } = await retried(
    () => client.GET("/games/{game_id}/seats/{seat}/view", { params: { path } }),
    "view",
  );
  trace("view", error ?? view?.status);
  if (error) throw new Error(`view refused: ${error.code} (${error.detail})`);
  if (view.status === "finished") {
    const kept = `${receipts.length} receipts, ${digests} with their events digest checked`;
    console.log(`seat ${seat}: game over, winners ${JSON.stringify(view.winners)}, ${kept}`);
    return true;
  }
  // The seat's own moves (its legal commands but leaving); each variant of the seat view (by
  // `kind`) lists only its own game's commands. Empty while the game waits for another seat.
  const moves: Command[] = view.moves;
  const command = moves[Math.floor(Math.random() * moves.length)];
  if (command === undefined) return false;
  // One key per decision: a lost answer is asked for again with the same key, body and
  // expected_version, and the server answers as it did the first time (never acting twice).
  const key = randomUUID();
  console.log(`decided ${key} ${command.type}`);
  const params = { path, query: { expected_version: view.version }, header: { "Idempotency-Key": key } };
  // The answer as text: its receipt's digest covers the events' numbers as they were written.
  const { data: answer, error: refused } = await retried(
    () => client.POST("/games/{game_id}/seats/{seat}/commands", { params, body: command, parseAs: "text" }),
    `command ${key}`,
  );
  trace("sent", command.type, refused?.code);
  if (!refused) console.log(`applied ${key}`);
  const taken = answer === undefined ? undefined : (JSON.parse(answer) as CommandResult);
  if (answer !== undefined && taken?.receipt) {
    const receipt = checkReceipt(taken.receipt, KEYS, path.game_id, seat, taken.version);
    checkEvents(receipt, answerEvents(answer));
    receipts.push(taken.receipt);
    digests += 1;
  }
  if (refused && !RACES.has(refused.code)) {
    throw new Error(`${command.type} refused: ${refused.code} (${refused.detail})`);
  }
  return false;
}

/** Act on every event of the seat's stream until the game is over. */
async function play(): Promise<void> {
  if (await turn()) return;
  const open = async (lastEventId: string | undefined) => {
    const { response } = await client.GET("/games/{game_id}/seats/{seat}/stream", {
      params: { path, header: lastEventId === undefined ? {} : { "Last-Event-ID": lastEventId } },
      parseAs: "stream",
    });
    return response;
  };
  for await (const message of follow(open)) {
    trace("event", message.id, message.data.type);
    // The view says what may be done now; the event only says it may have changed.
    if (await turn()) return;
  }
  throw new Error("the stream ended before the game did");
}

await play();
