// An example bot on types generated from playlog's OpenAPI document (openapi-typescript) and
// openapi-fetch. It plays one seat of a running game of either kind: it follows the seat's event
// stream (SSE, read by sse.ts, which resumes a dropped connection) and, whenever its view lists
// legal commands, sends one of them at random. Refusals that only mean the game moved on are read
// from the document (`x-playlog-races`). It checks and keeps the signed receipt of every command
// it sends (receipts.ts).
//
//   npm ci && npm run generate && npm run check     (types into generated/, JavaScript into build/)
//   node build/bot.js http://127.0.0.1:8000 GAME_ID SEAT SEAT_TOKEN
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/playlog.js";
import { checkReceipt, logKeys } from "./receipts.js";
import { follow } from "./sse.js";

type Command = components["schemas"]["Command"];

// Commands a bot never chooses: leaving only shortens the game.
const AVOIDED = new Set(["Leave", "Concede"]);

const [url, gameId, seatText, token] = process.argv.slice(2);
if (!url || !gameId || !seatText || !token) {
  console.error("usage: node build/bot.js URL GAME_ID SEAT TOKEN");
  process.exit(2);
}
const seat = Number(seatText);
const trace = process.env.BOT_TRACE ? (...args: unknown[]) => console.error(...args) : () => {};
const client = createClient<paths>({ baseUrl: url, headers: { Authorization: `Bearer ${token}` } });
const path = { game_id: gameId, seat };

/** The refusals of a command that only mean the game moved on (the document's
 * `x-playlog-races`): read the view again and decide again. */
async function races(): Promise<Set<string>> {
  type Response = { "x-playlog-races"?: string[] };
  const document = (await (await fetch(`${url}/schema/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  };
  const responses = document.paths["/games/{game_id}/seats/{seat}/commands"]?.post?.responses ?? {};
  return new Set(Object.values(responses).flatMap((response) => response["x-playlog-races"] ?? []));
}
const RACES = await races();
const KEYS = await logKeys(url);
const receipts: string[] = []; // the service's signed word for every command it took

/** Look at the seat's view and play if it may; true once the game is over. */
async function turn(): Promise<boolean> {
  const { data: view, error } = await client.GET("/games/{game_id}/seats/{seat}/view", {
    params: { path },
  });
  trace("view", error ?? view?.status);
  if (error) throw new Error(`view refused: ${error.code} (${error.detail})`);
  if (view.status === "finished") {
    console.log(`seat ${seat}: game over, winners ${JSON.stringify(view.winners)}, ${receipts.length} receipts`);
    return true;
  }
  // Each variant of the seat view (by `kind`) lists only its own game's commands.
  const legal: Command[] = (view.view?.legal_commands ?? []).filter((c) => !AVOIDED.has(c.type));
  const command = legal[Math.floor(Math.random() * legal.length)];
  if (command === undefined) return false;
  const { data: taken, error: refused } = await client.POST("/games/{game_id}/seats/{seat}/commands", {
    params: { path, query: { expected_version: view.version } },
    body: command,
  });
  trace("sent", command.type, refused?.code);
  if (taken?.receipt) {
    checkReceipt(taken.receipt, KEYS, path.game_id, seat, taken.version);
    receipts.push(taken.receipt);
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
