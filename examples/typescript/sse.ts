// A small typed reader of playlog's event streams (Server-Sent Events), for the generated types.
//
// Each message is one `EventMessage` of the document (#/components/schemas/EventMessage): its
// `event` is the event's type, its `id` the event's number for this viewer and its `data` one
// `EventOut` as JSON. A dropped connection is resumed with `Last-Event-ID`: no event is lost or
// read twice.
import type { components } from "./generated/playlog.js";

export type EventOut = components["schemas"]["EventOut"];

export interface EventMessage {
  event: string;
  id: number;
  data: EventOut;
}

/** Opens the stream, after `lastEventId` when given (sent as the Last-Event-ID header). */
export type Open = (lastEventId: string | undefined) => Promise<Response>;

// Reconnections in a row that bring nothing new before the reader gives up.
const RECONNECTS = 5;

function parse(message: string): EventMessage | undefined {
  const fields = new Map<string, string>();
  for (const line of message.split("\n")) {
    if (line.startsWith(":")) continue; // a comment: the keep-alive
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    const before = fields.get(name);
    fields.set(name, name === "data" && before !== undefined ? `${before}\n${value}` : value);
  }
  const data = fields.get("data");
  const id = fields.get("id");
  if (data === undefined || id === undefined) return undefined;
  const event = JSON.parse(data) as EventOut;
  return { event: fields.get("event") ?? event.type, id: Number(id), data: event };
}

/** The stream's events, resumed after a drop; it ends when the server ends the stream. */
export async function* follow(open: Open, lastEventId?: number): AsyncGenerator<EventMessage> {
  let last = lastEventId;
  let quiet = 0;
  for (;;) {
    const response = await open(last === undefined ? undefined : String(last));
    if (!response.ok || response.body === null) throw new Error(`stream refused: ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffered += value.replace(/\r\n?/g, "\n"); // lines may end with CRLF, CR or LF
        let end: number;
        while ((end = buffered.indexOf("\n\n")) >= 0) {
          const message = parse(buffered.slice(0, end));
          buffered = buffered.slice(end + 2);
          if (message === undefined) continue;
          quiet = 0;
          last = message.id;
          yield message;
        }
      }
    } catch (error) {
      if (++quiet > RECONNECTS) throw error;
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }
}
