// Follow a game as a spectator, on types generated from playlog's OpenAPI document: one line per
// event of the delayed public stream (`seq type`), from the first or after a Last-Event-ID, until
// the game is over.
//
//   node build/spectate.js http://127.0.0.1:8000 GAME_ID [--last-event-id 5]
import createClient from "openapi-fetch";
import type { paths } from "./generated/playlog.js";
import { follow } from "./sse.js";

const [url, gameId, flag, after] = process.argv.slice(2);
if (!url || !gameId || (flag !== undefined && (flag !== "--last-event-id" || after === undefined))) {
  console.error("usage: node build/spectate.js URL GAME_ID [--last-event-id N]");
  process.exit(2);
}
const client = createClient<paths>({ baseUrl: url });
const path = { game_id: gameId };

/** Whether `seq` is a spectator's last event of a game that is over (the snapshot's `version`
 * counts a spectator's events the way its stream numbers them). */
async function finished(seq: number): Promise<boolean> {
  const { data, error } = await client.GET("/games/{game_id}/spectate", { params: { path } });
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
