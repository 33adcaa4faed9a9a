// Follow a game as a spectator, on types generated from playlog's OpenAPI document: one line per
// event of the delayed public stream (`seq type`), from the first or after a Last-Event-ID, until
// the game is over.
//
//   node build/spectate.js http://127.0.0.1:8000 GAME_ID [--last-event-id 5] [--drop 0.25]
//
// With `--drop` answers are lost and the stream cut on purpose (drops.ts); it resumes where cut.
import createClient from "openapi-fetch";
import { droppingFetch, flag, retried } from "./drops.js";
import type { paths } from "./generated/playlog.js";
import { follow } from "./sse.js";

const [url, gameId] = process.argv.slice(2);
const after = flag("last-event-id");
if (!url || !gameId) {
  console.error("usage: node build/spectate.js URL GAME_ID [--last-event-id N] [--drop RATE]");
  process.exit(2);
}
const client = createClient<paths>({ baseUrl: url, fetch: droppingFetch(Number(flag("drop") ?? 0)) });
const path = { game_id: gameId };

/** Whether `seq` is a spectator's last event of a game that is over (the snapshot's `version`
 * counts a spectator's events the way its stream numbers them). */
async function finished(seq: number): Promise<boolean> {
  const { data, error } = await retried(
    () => client.GET("/games/{game_id}/spectate", { params: { path } }),
    "snapshot",
  );
  if (error) throw new Error(`snapshot refused: ${error.code} (${error.detail})`);
  return data.status === "finished" && seq >= data.version;
}

const open = async (lastEventId: string | undefined) => {
  const { response } = await client.GET("/games/{game_id}/spectate/stream", {
    params: { path, header: lastEventId === undefined ? {} : { "Last-Event-ID": lastEventId } },
    parseAs: "stream",
  });
  return response;
};

for await (const message of follow(open, after === undefined ? undefined : Number(after))) {
  // The data is typed by its `type`: the event's own fields, of its own game.
  console.log(message.id, message.data.type, message.data.data.type);
  if (await finished(message.id)) process.exit(0);
}
throw new Error("the stream ended before the game did");
