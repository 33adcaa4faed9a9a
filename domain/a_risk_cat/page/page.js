// A Risk Cat in the browser: its table (paintings by name and value), its commands in words, its
// stop with an order of the player's choosing, its deadline and its options. Registered with the
// pages (service/http/web/static/common.js).
"use strict";

(() => {
const PAINTINGS = {
  1: "Robin Tell", 2: "Banker and Cheater", 3: "Angel", 4: "Swimmer", 5: "Astronaut", 6: "Writer",
  7: "Mason", 8: "Twins", 9: "Fortune Teller", 10: "Firefighter", 11: "Musician Cats",
};
// A token's id is "p<painting>-<k>" (domain/a_risk_cat/tokens.py); p2-1 is the Banker, p2-2 the Cheater.
const paintingOf = (token) => Number(String(token).slice(1).split("-")[0]);
function tokenName(token) {
  if (token === "p2-1") return "Banker (2)";
  if (token === "p2-2") return "Cheater (2)";
  const n = paintingOf(token);
  return PAINTINGS[n] ? `${PAINTINGS[n]} (${n})` : String(token);
}
// What each painting's token does in the full game (RULES 2.5), said where a power is used.
const POWERS = {
  1: "Robin Tell: when drawn, robs the largest stack (not one topped by an Angel) and you deal its tokens, one by one, onto any stacks.",
  2: "Banker: sends the top half of your own stack back into the bag. Cheater: spares the next duplicate you draw this turn.",
  3: "Angel: on top of a stack, protects that whole stack from every power.",
  4: "Swimmer: one of the three ladies (with the Writer and the Fortune Teller): all three in one turn let you take up to 4 top tokens from other stacks.",
  6: "Writer: one of the three ladies (with the Swimmer and the Fortune Teller).",
  8: "Twins: worth 2 points each at the end.",
  9: "Fortune Teller: one of the three ladies (with the Swimmer and the Writer).",
  11: "Musician Cats: take every other stack's top Cats, swap the Cat for another stack's top token, or keep it.",
};
const tokenList = (tokens) => (tokens && tokens.length ? tokens.map(tokenName).join(", ") : "none");

// The final holdings by painting: the game's end event says them (the views never list a stack).
let holdings = null;

// The order the player is putting this turn's tokens in, bottom to top, kept while the page redraws.
let stacking = null;

function tile(token, extra = {}) {
  return PL.el("span", { class: "token", "data-painting": paintingOf(token), ...extra }, tokenName(token));
}

// Stop: this turn's tokens listed bottom to top, reordered with up/down buttons or by dragging.
// Drawing again sits beside it: the turn's two choices in one row.
function stopControl(view, legal, { send, redraw, el }) {
  const stop = legal.find((cmd) => cmd.type === "StopAndStack");
  const draw = legal.find((cmd) => cmd.type === "DrawToken");
  const drawButton = draw ? el("button", { type: "button", "data-type": "DrawToken", onclick: () => send(draw) }, "Draw a token") : null;
  if (!stop) { stacking = null; return drawButton ? [el("div", { class: "command", "data-type": "DrawToken" }, drawButton)] : []; }
  const drawn = [...stop.order];
  if (!stacking || stacking.length !== drawn.length || !drawn.every((t) => stacking.includes(t))) stacking = drawn;
  const move = (from, to) => {
    if (to < 0 || to >= stacking.length) return;
    const order = [...stacking];
    const [token] = order.splice(from, 1);
    order.splice(to, 0, token);
    stacking = order;
    redraw();
  };
  // Shown as a stack is seen: its top first.
  let dragged = null;
  const rows = stacking.map((token, i) => el("li", {
    class: "stacking", draggable: "true",
    ondragstart: () => { dragged = i; },
    ondragover: (e) => e.preventDefault(),
    ondrop: (e) => { e.preventDefault(); if (dragged != null) move(dragged, i); },
  }, tile(token), " ",
  el("button", { type: "button", class: "quiet", "data-type": `up:${token}`, "aria-label": `${tokenName(token)}: up`, disabled: i === stacking.length - 1, onclick: () => move(i, i + 1) }, "up"),
  el("button", { type: "button", class: "quiet", "data-type": `down:${token}`, "aria-label": `${tokenName(token)}: down`, disabled: i === 0, onclick: () => move(i, i - 1) }, "down"))).reverse();
  return [el("form", { class: "command", "data-type": "StopAndStack", onsubmit: (e) => { e.preventDefault(); const order = stacking; stacking = null; send({ type: "StopAndStack", order }); } },
    el("p", { id: "stacking-help" }, "Stop: your tokens go on your stack as listed, the first one on top (the top is what the others can steal). Move them up or down, or drag them."),
    el("ul", { class: "stacking-list", "aria-label": "Your tokens, top of the stack first", "aria-describedby": "stacking-help" }, rows),
    el("div", { class: "command" }, el("button", { type: "submit", "data-type": "StopAndStack" }, `Stop and stack (top: ${tokenName(stacking[stacking.length - 1])})`), drawButton))];
}

// The score at the end: tokens, Twins' extra point, paintings won (RULES 2.4).
function breakdown(view, seats, me) {
  const { el } = PL;
  const won = (seat) => view.paintings_won.map((s, i) => (s === seat ? i + 1 : null)).filter((n) => n != null);
  const name = (s) => PL.seatName(seats, s) + (s === me ? " — you" : "");
  const rows = view.stacks.map(({ seat, size }) => {
    const paintings = won(seat);
    const points = paintings.reduce((a, n) => a + n, 0);
    const twins = view.scores[seat] - size - points;
    const named = paintings.length ? `${paintings.map((n) => `${PAINTINGS[n]} (${n})`).join(", ")} = ${points}` : "none";
    return [name(seat), String(view.scores[seat]), `${size} ${size === 1 ? "token" : "tokens"} + Twins bonus ${twins} + paintings won: ${named}`];
  });
  // Three columns, the breakdown in words: it fits a phone.
  const parts = [el("h3", {}, "Score"), Render.seatsTable(rows, ["Player", "Total", "Made of"])];
  if (holdings) {
    // A row a painting, a column a player: as narrow as the players are few (it fits a phone).
    const shown = Object.keys(PAINTINGS).map(Number).filter((n) => !view.removed_paintings.includes(n));
    parts.push(el("h3", {}, "Tokens held, by painting"), Render.seatsTable(
      shown.map((n) => [`${PAINTINGS[n]} (${n})`, ...holdings.map((counts, seat) => `${counts[n - 1]}${view.paintings_won[n - 1] === seat ? " ★" : ""}`)]),
      ["Painting", ...holdings.map((counts, seat) => (seat === me ? `${seats[seat] ?? `seat ${seat}`} (you)` : seats[seat] ?? `seat ${seat}`))]));
    parts.push(el("p", { class: "muted" }, "★ won the painting: most tokens, or on a tie the black-cat token."));
  }
  return parts;
}

// The newest move in a player's words.
function describe(event, who) {
  const said = sentence(event, who);
  return said && said.startsWith("you") ? `Y${said.slice(1)}` : said;  // a name is as its player typed it
}
function sentence(event, who) {
  const d = event.data || {};
  const runs = (list) => list.map((r) => `${tokenList(r.tokens)} from ${who(r.from_seat)}`).join(" and ");
  switch (event.type) {
    case "ARiskCatGameSetUp": return `The paintings are in the bag: ${d.bag_size} tokens${d.removed_paintings.length ? ` (without ${d.removed_paintings.map((n) => PAINTINGS[n]).join(", ")})` : ""}. ${who(d.first_seat) === "you" ? "You start" : `${who(d.first_seat)} starts`}.`;
    case "ARiskCatTurnStarted": return `Turn ${d.turn_number}: ${who(d.seat) === "you" ? "your turn" : `${who(d.seat)} to play`}`;
    case "TokenDrawn": return `${who(d.seat)} drew ${tokenName(d.token)}${d.spared ? ": a duplicate, spared by the Cheater" : ""}${d.by_server ? " (out of time)" : ""}`;
    case "TurnBusted": return `Bust! ${tokenName(d.token)} was already drawn this turn: ${d.returned.length} tokens go back into the bag`;
    case "RunsStolen": return d.runs.length ? `${who(d.seat)} stole ${runs(d.runs)}` : `${who(d.seat)} stole nothing`;
    case "MusicianCatsTaken": return d.runs.length ? `${who(d.seat)} took the Musician Cats: ${runs(d.runs)}` : `${who(d.seat)} took the Musician Cats (there were none)`;
    case "MusicianCatSwapped": return `${who(d.seat)} swapped a Musician Cat for ${who(d.with_seat) === "you" ? "your" : `${who(d.with_seat)}'s`} ${tokenName(d.token)}`;
    case "MusicianCatKept": return `${who(d.seat)} kept the Musician Cat`;
    case "CheaterArmed": return `${who(d.seat)} drew the Cheater: the next duplicate this turn is spared`;
    case "BankerReturned": return d.blocked ? `${who(d.seat) === "you" ? "Your" : `${who(d.seat)}'s`} Banker is blocked by an Angel` : `The Banker sends ${d.count} of ${who(d.seat) === "you" ? "your" : `${who(d.seat)}'s`} tokens back into the bag`;
    case "RobinTellTriggered": return d.robbed_seat != null ? `Robin Tell robs ${who(d.robbed_seat)}: ${d.count} tokens to deal` : (d.candidates.length ? `Robin Tell: ${who(d.seat)} chooses whom to rob` : "Robin Tell finds nobody to rob");
    case "RobinTellTargetChosen": return `Robin Tell robs ${who(d.robbed_seat)}: ${d.count} tokens to deal`;
    case "RobinTellTokenDealt": return `${tokenName(d.token)} dealt to ${who(d.to_seat)}`;
    case "LadiesAssembled": return `The three ladies are together: ${who(d.seat)} may take up to 4 top tokens`;
    case "LadyTookToken": return `${who(d.seat)} took ${who(d.from_seat) === "you" ? "your" : `${who(d.from_seat)}'s`} ${tokenName(d.token)}`;
    case "LadiesDismissed": return `${who(d.seat)} took ${d.taken} with the ladies`;
    case "TurnStopped": return `${who(d.seat)} stopped and stacked ${d.count} ${d.count === 1 ? "token" : "tokens"}: ${tokenName(d.new_top)} on top`;
    case "SeatConceded": return `${who(d.seat)} conceded`;
    case "ARiskCatGameEnded":
      holdings = d.holdings;
      return `The bag is empty: the game is over. Scores: ${d.scores.map((score, s) => `${who(s)} ${score}`).join(", ")}`;
    default: return undefined;  // not this game's: the shared words say it
  }
}

PL.registerGame("a_risk_cat", {
  players: { min: 3, max: 8 },
  concede: "Concede",
  reactions: [],

  // The public table (a seat's, a spectator's, or a moderator's view with every stack face up).
  table(view, seats, me = null) {
    const { el, words } = PL;
    const { seatsTable } = Render;
    const seatName = (names, s) => PL.seatName(names, s) + (s === me ? " — you" : "");
    const mod = "full_stacks" in view ? view : null;
    const rows = view.stacks.map((stack) => {
      const cells = [seatName(seats, stack.seat), view.phase !== "over" && view.active_seat === stack.seat ? "to play" : (view.conceded.includes(stack.seat) ? "conceded" : "in"), String(stack.size), stack.top ? tokenName(stack.top) : "—"];
      if (mod) cells.push(tokenList(mod.full_stacks[stack.seat]));
      return cells;
    });
    const head = ["Player", "State", "Tokens", "Top of the stack"];
    if (mod) head.push("Stack, bottom to top (face up)");
    const parts = [
      seatsTable(rows, head),
      el("p", {}, `${view.mode === "full" ? "Full game (powers)" : "Base game"}. Turn ${view.turn_number}. Bag: ${view.bag_size} tokens.`),
      el("div", { class: "turn-tokens" }, el("span", {}, "Drawn this turn: "), view.turn_tokens.length ? view.turn_tokens.map((t) => tile(t)) : "none"),
    ];
    if (view.drawn_paintings.length && view.phase !== "over") parts.push(el("p", {}, `A second token of ${view.drawn_paintings.map((n) => PAINTINGS[n]).join(", ")} this turn busts.`));
    if (mod) parts.push(el("p", { class: "face-up" }, `Bag, top first: ${tokenList(mod.bag)}`));
    if (view.robin_tell_pile_size) parts.push(el("p", {}, `Robin Tell's pile: ${view.robin_tell_pile_size} (top: ${view.robin_tell_pile_top ? tokenName(view.robin_tell_pile_top) : "—"})`));
    if (view.pending && view.phase !== "over") parts.push(el("p", {}, `${view.pending.seat === me ? "Your choice" : `Waiting for ${seatName(seats, view.pending.seat)}`}: ${words(view.pending.kind || view.pending.type || "a decision")}.`));
    parts.push(el("details", { class: "legend" }, el("summary", {}, view.mode === "full" ? "The paintings and their powers (a painting is worth its number)" : "The paintings (a painting is worth its number)"),
      el("ul", {}, Object.entries(PAINTINGS).map(([n, name]) => el("li", { class: view.removed_paintings.includes(Number(n)) ? "removed" : null },
        `${n}. ${name} (${n} ${n === "1" ? "token" : "tokens"})${view.removed_paintings.includes(Number(n)) ? ": not in this game" : ""}${view.mode === "full" && POWERS[n] ? `. ${POWERS[n]}` : ""}`)))));
    if (view.scores) parts.push(...breakdown(view, seats, me));
    return parts;
  },

  mine: null,  // nothing is hidden from a seat that the others see: its stack is on the table

  hand: (view, legal, ctx) => stopControl(view, legal, ctx),
  handles: ["StopAndStack", "DrawToken"],
  describe,

  activeSeat: (view) => view.active_seat,

  label(cmd, who) {
    switch (cmd.type) {
      case "Concede": return "Concede and leave the game";
      case "DrawToken": return "Draw a token";
      case "StopAndStack": return `Stop and stack: ${tokenList(cmd.order)} (bottom to top)`;
      case "StealRuns": return cmd.from_seats.length ? `Steal from ${cmd.from_seats.map(who).join(" and ")}` : "Steal nothing";
      case "TakeMusicianCats": return "Take every other stack's top Musician Cats";
      case "SwapMusicianCat": return `Swap the Cat with ${who(cmd.with_seat)}'s top token`;
      case "KeepMusicianCat": return "Keep the Musician Cat";
      case "ChooseRobinTellTarget": return `Rob ${who(cmd.seat)}`;
      case "DealRobinTellToken": return `Deal the token to ${who(cmd.to_seat)}`;
      case "TakeTokenForLadies": return `Take ${who(cmd.from_seat)}'s top token`;
      case "DismissLadies": return "Take no more tokens";
      default: return null;
    }
  },
  groupTitles: {
    StopAndStack: "Stop", StealRuns: "Steal", ChooseRobinTellTarget: "Robin Tell: whom to rob",
    DealRobinTellToken: "Robin Tell: deal the token", TakeTokenForLadies: "The three ladies",
  },
  submitLabels: {},
  // A short help beside each decision a power (or the Cats) asks for.
  help: {
    StealRuns: "Steal: take the whole run of matching tokens from the top of each stack you choose; they join this turn's tokens.",
    TakeMusicianCats: POWERS[11], SwapMusicianCat: POWERS[11], KeepMusicianCat: POWERS[11],
    ChooseRobinTellTarget: POWERS[1], DealRobinTellToken: POWERS[1],
    TakeTokenForLadies: "The three ladies: take up to 4 tokens, one at a time, from the tops of other stacks (not Angel-topped); they join this turn's tokens.",
    DismissLadies: "The three ladies: stop taking tokens.",
  },

  countdown: (view) => ({ deadline: view.deadline, what: "Time to decide" }),

  // The create form's options of this game (options.html, beside this file).
  options: (form) => ({ mode: form.mode.value }),
});
})();
