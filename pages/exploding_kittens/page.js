// Exploding Kittens in the browser: its table, what a seat alone knows, its commands in words,
// its deadlines and its options. Registered with the pages (service/web/static/common.js).
"use strict";

PL.registerGame("exploding_kittens", {
  players: { min: 2, max: 5 },
  concede: "Leave",

  // The public table (a seat's, a spectator's, or a moderator's view with every card face up).
  table(view, seats) {
    const { el, seatName, words } = PL;
    const { list, seatsTable } = Render;
    const pub = view.public;
    const mod = "hands" in view ? view : null;
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
    return parts;
  },

  // What only this seat knows (RULES 1.9): its hand, the cards it saw, where its Kitten is now.
  mine(view) {
    const { el } = PL;
    const parts = [el("ul", { class: "hand", "aria-label": "Your hand" }, view.hand.map((card) => el("li", { class: "card" }, card)))];
    if (view.seen_future.length) parts.push(el("p", {}, `You know the top of the draw pile: ${view.seen_future.join(", ")} (top first).`));
    if (view.placed_kitten != null) parts.push(el("p", {}, `The Kitten you put back is ${view.placed_kitten === 0 ? "on top" : `${view.placed_kitten} from the top`} of the draw pile.`));
    return parts;
  },

  activeSeat: (view) => view.public.active_seat,

  label(cmd, who) {
    switch (cmd.type) {
      case "DrawCard": return "Draw a card";
      case "PlayCard": return `Play ${cmd.card}${cmd.target != null ? ` on ${who(cmd.target)}` : ""}`;
      case "PlayCombo": return `Combo ${cmd.cards.join(" + ")}${cmd.target != null ? ` on ${who(cmd.target)}` : ""}${cmd.named ? `, naming ${cmd.named}` : ""}`;
      case "Nope": return "Nope!";
      case "PassReaction": return "Let it happen";
      case "Defuse": return cmd.position === 0 ? "on top" : `${cmd.position} from the top`;
      case "GiveCard": return `Give ${cmd.card}`;
      case "TakeFromDiscard": return `Take ${cmd.card}`;
      case "Leave": return "Concede and leave the game";
      default: return null;
    }
  },
  groupTitles: {
    PlayCard: "Play a card", PlayCombo: "Play a combo", Defuse: "Put the Exploding Kitten back",
    GiveCard: "Give a card (Favor)", TakeFromDiscard: "Take a card from the discard pile",
  },
  submitLabels: { Defuse: "Put it back" },

  // The open Nope window, else the pending decision's or the turn's deadline.
  countdown(view) {
    const pub = view.public;
    if (pub.window) return { deadline: pub.window.deadline, what: "A Nope window is open" };
    return { deadline: (pub.pending && pub.pending.deadline) || pub.turn_deadline, what: "Time to decide" };
  },

  // The create form's options of this game (pages/exploding_kittens/options.html).
  options: (form) => ({ edition: form.edition.value, reaction_window: Number(form.reaction_window.value) }),
});
