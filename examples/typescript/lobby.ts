// The lobby on types generated from playlog's OpenAPI document and openapi-fetch: create, join,
// start. It creates a game of KIND (options as JSON), a player for each seat, joins each of them
// and starts the game, every write with its own Idempotency-Key and sent again, unchanged, while
// its answer is lost (`--drop`: a share of the answers dropped on purpose, drops.ts). Then it
// finds the game in the public listing, read page by page as every list is (each page's `next`).
// It prints the game, each seat's token and how many public games of its kind it read, as one
// line of JSON, for bot.js:
//
//   node build/lobby.js http://127.0.0.1:8000 exploding_kittens '{"players": 2}' [--drop 0.25]
import { randomUUID } from "node:crypto";
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/playlog.js";
import { droppingFetch, flag, retried } from "./drops.js";

type Schemas = components["schemas"];

const [url, kind, options] = process.argv.slice(2);
if (!url || (kind !== "exploding_kittens" && kind !== "a_risk_cat") || !options) {
  console.error("usage: node build/lobby.js URL KIND OPTIONS_JSON [--drop RATE]");
  process.exit(2);
}
const client = createClient<paths>({ baseUrl: url, fetch: droppingFetch(Number(flag("drop") ?? 0)) });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function create(): Promise<Schemas["GameCreatedOut"]> {
  // The body's type is the union on `kind`: these options are read as that kind's.
  const body = { kind, options: JSON.parse(options as string), spectator_delay: 0 } as Schemas["CreateGame"];
  const header = { "Idempotency-Key": randomUUID() };
  const { data, error } = await retried(() => client.POST("/games", { params: { header }, body }), "create");
  if (error) throw new Error(`create refused: ${error.code} (${error.detail})`);
  return data;
}

/** A new player takes a free seat (a player, not a guest: its key is the player's own). */
async function join(gameId: string, name: string): Promise<Schemas["SeatOut"]> {
  const player = await client.POST("/players", { body: { name } }); // no key: never dropped
  if (player.error) throw new Error(`player refused: ${player.error.code} (${player.error.detail})`);
  const params = { path: { game_id: gameId }, header: { "Idempotency-Key": randomUUID() } };
  const headers = bearer(player.data.token);
  const { data, error } = await retried(
    () => client.POST("/games/{game_id}/seats", { params, headers, body: {} }),
    "join",
  );
  if (error) throw new Error(`join refused: ${error.code} (${error.detail})`);
  return data;
}

/** Every public game of KIND, newest first, page by page: a page's `next` is the URL of the next
 * (null: the last), whose `cursor` the call takes. Paging is by key, so a game created meanwhile
 * shifts no page: none is read twice. */
async function everyGame(gameKind: Schemas["GameKind"]): Promise<string[]> {
  const games: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const query = { kind: gameKind, limit: 2, ...(cursor ? { cursor } : {}) };
    const { data, error } = await retried(() => client.GET("/games", { params: { query } }), "list");
    if (error) throw new Error(`listing refused: ${error.code} (${error.detail})`);
    games.push(...data.games.map((game) => game.game_id));
    if (data.next === null) return games;
    cursor = new URL(data.next, url).searchParams.get("cursor") ?? undefined;
  }
}

/** How many public games of KIND there are once `gameId` is among them (the listing is a read
 * model, a moment behind the lobby). */
async function listed(gameKind: Schemas["GameKind"], gameId: string): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const games = await everyGame(gameKind);
    if (new Set(games).size !== games.length) throw new Error("a game listed twice");
    if (games.includes(gameId)) return games.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`game ${gameId} never showed in the public listing`);
}

const created = await create();
const seats: Schemas["SeatOut"][] = [];
for (let n = 0; n < created.seats; n++) seats.push(await join(created.game_id, `bot-${n}`));
const params = { path: { game_id: created.game_id }, header: { "Idempotency-Key": randomUUID() } };
const started = await retried(
  () => client.POST("/games/{game_id}/start", { params, headers: bearer(created.host_token) }),
  "start",
);
if (started.error) throw new Error(`start refused: ${started.error.code} (${started.error.detail})`);
console.log(JSON.stringify({ game_id: created.game_id, seats, listed: await listed(kind, created.game_id) }));
