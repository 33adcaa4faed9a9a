// Rendering of game views, shared by the play, watch and replay pages (text only, never HTML).
"use strict";

const Render = (() => {
  const { el, seatName, words } = PL;
  const list = (items) => (items && items.length ? items.join(", ") : "none");

  function seatsTable(rows, headings) {
    return el("table", { class: "seats-table" },
      el("thead", {}, el("tr", {}, headings.map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c, i) => (i === 0 ? el("th", { scope: "row" }, c) : el("td", {}, c)))))));
  }

  function ekTable(pub, seats, mod = null) {
    const rows = pub.hand_sizes.map((size, seat) => {
      const cells = [seatName(seats, seat), pub.alive[seat] ? (pub.winner == null && pub.active_seat === seat ? "to play" : "in") : "exploded", String(size)];
      if (mod) cells.push(list(mod.hands[seat]));
      return cells;
    });
    const head = ["Player", "State", "Cards"];
    if (mod) head.push("Hand (face up)");
    const parts = [
      seatsTable(rows, head),
      el("p", {}, `Draw pile: ${pub.draw_pile_size} cards. Turns owed by the player to play: ${pub.turns_owed}${pub.under_attack ? " (attacked)" : ""}.`),
      el("p", {}, `Discard (newest last): ${list(pub.discard)}`),
    ];
    if (mod) parts.push(el("p", { class: "face-up" }, `Draw pile, top first: ${list(mod.draw_pile)}`));
    if (pub.window) {
      const w = pub.window;
      parts.push(el("p", { class: "window" }, `Open to a Nope: ${seatName(seats, w.actor)} played ${list(w.cards)}${w.target != null ? ` on ${seatName(seats, w.target)}` : ""}; Nopes so far: ${w.chain_length}.`));
    }
    if (pub.kitten_being_placed_by != null) parts.push(el("p", {}, `${seatName(seats, pub.kitten_being_placed_by)} is putting an Exploding Kitten back.`));
    if (pub.pending) parts.push(el("p", {}, `Waiting for ${seatName(seats, pub.pending.seat)}: ${words(pub.pending.kind)}.`));
    if (pub.winner != null) parts.push(el("p", { class: "result" }, `Winner: ${seatName(seats, pub.winner)}`));
    return parts;
  }

  function arcTable(view, seats, mod = null) {
    const rows = view.stacks.map((stack) => {
      const cells = [seatName(seats, stack.seat), view.phase !== "over" && view.active_seat === stack.seat ? "to play" : (view.conceded.includes(stack.seat) ? "conceded" : "in"), String(stack.size), stack.top || "—"];
      if (view.scores) cells.push(String(view.scores[stack.seat]));
      if (mod) cells.push(list(mod.full_stacks[stack.seat]));
      return cells;
    });
    const head = ["Player", "State", "Stack", "Top"];
    if (view.scores) head.push("Score");
    if (mod) head.push("Stack, bottom to top (face up)");
    const parts = [
      seatsTable(rows, head),
      el("p", {}, `Mode: ${view.mode}. Phase: ${words(view.phase)}. Turn ${view.turn_number}. Bag: ${view.bag_size} tokens.`),
      el("p", {}, `Drawn this turn: ${list(view.turn_tokens)}`),
    ];
    if (mod) parts.push(el("p", { class: "face-up" }, `Bag, top first: ${list(mod.bag)}`));
    if (view.robin_tell_pile_size) parts.push(el("p", {}, `Robin Tell's pile: ${view.robin_tell_pile_size} (top: ${view.robin_tell_pile_top || "—"})`));
    if (view.pending) parts.push(el("p", {}, `Waiting for ${seatName(seats, view.pending.seat)}: ${words(view.pending.kind || view.pending.type || "a decision")}.`));
    if (view.winners && view.winners.length) parts.push(el("p", { class: "result" }, `Winner: ${view.winners.map((s) => seatName(seats, s)).join(", ")}`));
    return parts;
  }

  // The public table of either game (a seat's, a spectator's or a moderator's view).
  function table(kind, view, seats) {
    if (!view) return [el("p", {}, "Not started yet.")];
    const mod = "hands" in view || "full_stacks" in view ? view : null;  // a moderator view: face up
    return kind === "exploding_kittens" ? ekTable(view.public, seats, mod) : arcTable(view, seats, mod);
  }

  // What only this seat knows (RULES 1.9): its hand, the cards it saw, where its Kitten is now.
  function mine(kind, view) {
    if (kind !== "exploding_kittens") return [el("p", {}, "A Risk Cat hides nothing from you that it shows others: your stack is on the table.")];
    const parts = [el("ul", { class: "hand", "aria-label": "Your hand" }, view.hand.map((card) => el("li", { class: "card" }, card)))];
    if (view.seen_future.length) parts.push(el("p", {}, `You know the top of the draw pile: ${view.seen_future.join(", ")} (top first).`));
    if (view.placed_kitten != null) parts.push(el("p", {}, `The Kitten you put back is ${view.placed_kitten === 0 ? "on top" : `${view.placed_kitten} from the top`} of the draw pile.`));
    return parts;
  }

  return { table, mine, list };
})();
