// What the generated types refuse: checked by `tsc --strict` (tests/e2e/test_clients.py). Each
// `@ts-expect-error` marks a line that must NOT type-check: tsc fails if one ever does.
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/playlog.js";

type Schemas = components["schemas"];

export function commandsOfTheSeatsGame(view: Schemas["SeatViewOut"]): void {
  if (view.kind === "exploding_kittens" && view.view) {
    view.view.legal_commands.push({ type: "DrawCard" });
    // @ts-expect-error A Risk Cat's command where Exploding Kittens' are expected
    view.view.legal_commands.push({ type: "DrawToken" });
  }
  if (view.kind === "a_risk_cat" && view.view) {
    view.view.legal_commands.push({ type: "DrawToken" });
    // @ts-expect-error Exploding Kittens' command where A Risk Cat's are expected
    view.view.legal_commands.push({ type: "DrawCard" });
  }
}

export const games: Schemas["CreateGame"][] = [
  { kind: "exploding_kittens", options: { players: 2 } }, // defaults are not required
  { kind: "a_risk_cat", options: { players: 3, mode: "full" } },
  // @ts-expect-error A Risk Cat's option `mode` under Exploding Kittens
  { kind: "exploding_kittens", options: { players: 2, mode: "full" } },
  // @ts-expect-error not a game kind
  { kind: "chess" },
];

export async function everyRefusalHasItsCode(): Promise<string | undefined> {
  const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8000" });
  const { error } = await client.POST("/games/{game_id}/seats/{seat}/commands", {
    params: { path: { game_id: "00000000-0000-0000-0000-000000000000", seat: 0 } },
    body: { type: "DrawCard" },
  });
  if (error === undefined) return undefined;
  // @ts-expect-error Litestar's shape, which the server never sends
  void error.status_code;
  return error.code;
}

// A refused command's code is one of the codes its response lists, every game's rule codes included.
type CommandRefusal =
  paths["/games/{game_id}/seats/{seat}/commands"]["post"]["responses"][422]["content"]["application/problem+json"];
export const listed: CommandRefusal["code"] = "window_closed";
// @ts-expect-error not a code a refused command carries
export const unlisted: CommandRefusal["code"] = "no_such_code";

// An event's data is typed by the event's `type`, across every game.
export function eventData(event: Schemas["EventOut"]): number | undefined {
  if (event.data.type === "CardDrawn") return event.data.seat;
  // @ts-expect-error a CardDrawn has no token
  if (event.data.type === "CardDrawn") return event.data.token;
  return undefined;
}
