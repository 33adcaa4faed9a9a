// A Risk Cat in the browser: its table, its commands in words, its deadline and its options.
// Registered with the pages (service/web/static/common.js).
"use strict";

PL.registerGame("a_risk_cat", {
  players: { min: 3, max: 8 },
  concede: "Concede",

  // The public table (a seat's, a spectator's, or a moderator's view with every stack face up).
  table(view, seats) {
    const { el, seatName, words } = PL;
    const { list, seatsTable } = Render;
    const mod = "full_stacks" in view ? view : null;
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
    return parts;
  },

  mine: null,  // nothing is hidden from a seat that the others see: its stack is on the table

  activeSeat: (view) => view.active_seat,

  label(cmd, who) {
    switch (cmd.type) {
      case "Concede": return "Concede and leave the game";
      case "DrawToken": return "Draw a token";
      case "StopAndStack": return `Stop and stack: ${cmd.order.join(", ")} (bottom to top)`;
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

  countdown: (view) => ({ deadline: view.deadline, what: "Time to decide" }),

  // The create form's options of this game (pages/a_risk_cat/options.html).
  options: (form) => ({ mode: form.mode.value }),
});
