// Lost answers, on purpose: a fetch that drops some answers after the server acted.
//
// A real network loses answers: the request reached the server and was applied, the answer never
// came back. `droppingFetch` does that to a share of the requests that are safe to send again
// (reads, and writes carrying an `Idempotency-Key`): it lets the request through, reads the answer
// and throws it away, failing as a lost connection fails (a TypeError, as fetch does). It also
// cuts a share of the streams after a few chunks (sse.ts resumes them with Last-Event-ID).
// `retried` sends the very same request again (same key, same body, same headers) until an answer
// arrives: playlog answers a key it has seen with the first answer, so nothing is done twice.

// How many times one request is sent before giving up (0.25 ** 12: never, in practice).
const ATTEMPTS = 12;

/** The value after `--name` on the command line, if any. */
export function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? undefined : process.argv[at + 1];
}

function cut(body: ReadableStream<Uint8Array>, after: number): ReadableStream<Uint8Array> {
  let chunks = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (chunks++ === after) {
          console.error("stream cut");
          controller.error(new TypeError("the stream was cut (on purpose)"));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

/** A fetch (for openapi-fetch's `fetch` option) losing `rate` of the answers it may lose. */
export function droppingFetch(rate: number): (request: Request) => Promise<Response> {
  return async (request: Request) => {
    const response = await fetch(request);
    if (new URL(request.url).pathname.endsWith("/stream")) {
      if (response.body === null || Math.random() >= rate) return response;
      const after = 1 + Math.floor(Math.random() * 20);
      return new Response(cut(response.body, after), { status: response.status, headers: response.headers });
    }
    const safe = request.method === "GET" || request.headers.has("Idempotency-Key");
    if (safe && Math.random() < rate) {
      await response.arrayBuffer(); // the server has answered: it acted
      console.error(`dropped ${request.method} ${new URL(request.url).pathname}`);
      throw new TypeError("the answer was lost (dropped on purpose)");
    }
    return response;
  };
}

/** `call()`, sent again while its answer is lost; `call` must send the same request each time
 * (build its key and body once, outside it). */
export async function retried<T>(call: () => Promise<T>, what: string): Promise<T> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      console.error(`retry ${what} (${attempt})`);
    }
  }
  throw new Error(`${what}: no answer after ${ATTEMPTS} attempts`);
}
