// An example bot on types generated from playlog's OpenAPI document (openapi-typescript) and
// openapi-fetch. It plays one seat of a running game of either kind: it follows the seat's event
// stream (SSE) and, whenever its view lists legal commands, sends one of them at random.
//
//   npm ci && npm run generate && npm run check     (types into generated/, JavaScript into build/)
//   node build/bot.js http://127.0.0.1:8000 GAME_ID SEAT SEAT_TOKEN
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/playlog.js";

type Command = components["schemas"]["Command"];

// Commands a bot never chooses: leaving only shortens the game.
const AVOIDED = new Set(["Leave", "Concede"]);
// Refusals that only mean the game moved on between the view and the command.
const RACES = new Set(["version_conflict", "window_closed", "stale_nope", "no_pending_decision"]);

const [url, gameId, seatText, token] = process.argv.slice(2);
if (!url || !gameId || !seatText || !token) {
  console.error("usage: node build/bot.js URL GAME_ID SEAT TOKEN");
  process.exit(2);
}
const seat = Number(seatText);
const trace = process.env.BOT_TRACE ? (...args: unknown[]) => console.error(...args) : () => {};
const client = createClient<paths>({ baseUrl: url, headers: { Authorization: `Bearer ${token}` } });
const path = { game_id: gameId, seat };

/** Look at the seat's view and play if it may; true once the game is over. */
async function turn(): Promise<boolean> {
  const { data: view, error } = await client.GET("/games/{game_id}/seats/{seat}/view", {
    params: { path },
  });
  trace("view", error ?? view?.status);
  if (error) throw new Error(`view refused: ${error.code} (${error.detail})`);
  if (view.status === "finished") {
    console.log(`seat ${seat}: game over, winners ${JSON.stringify(view.winners)}`);
    return true;
  }
  // Each variant of the seat view (by `kind`) lists only its own game's commands.
  const legal: Command[] = (view.view?.legal_commands ?? []).filter((c) => !AVOIDED.has(c.type));
  const command = legal[Math.floor(Math.random() * legal.length)];
  if (command === undefined) return false;
  const { error: refused } = await client.POST("/games/{game_id}/seats/{seat}/commands", {
    params: { path, query: { expected_version: view.version } },
    body: command,
  });
  trace("sent", command.type, refused?.code);
  if (refused && !RACES.has(refused.code)) {
    throw new Error(`${command.type} refused: ${refused.code} (${refused.detail})`);
  }
  return false;
}

/** Act on every event of the seat's stream until the game is over. */
async function play(): Promise<void> {
  if (await turn()) return;
  const { response } = await client.GET("/games/{game_id}/seats/{seat}/stream", {
    params: { path },
    parseAs: "stream",
  });
  if (!response.ok || response.body === null) throw new Error(`stream refused: ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the stream ended before the game did");
    trace("chunk", value.length);
    buffered += value.replace(/\r\n?/g, "\n"); // lines may end with CRLF, CR or LF
    // Messages end with a blank line; one with a `data:` line is an event (an EventMessage).
    let end: number;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const message = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (message.split("\n").some((line) => line.startsWith("data:")) && (await turn())) {
        await reader.cancel();
        return;
      }
    }
  }
}

await play();
