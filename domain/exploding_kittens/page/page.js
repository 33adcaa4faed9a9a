// Exploding Kittens in the browser: its table, what a seat alone knows, its commands in words,
// its deadlines and its options. Registered with the pages (service/http/web/static/common.js).
"use strict";

(() => {
// The cards the player picked for a combo or a targeted card, kept while the table redraws.
let picked = [];
// A Defuse the player clicked to give for a Favor: asked about before it is given.
let givingDefuse = false;
const sameCards = (a, b) => a.length === b.length && [...a].sort().every((c, i) => c === [...b].sort()[i]);

// The hand: each card a button. A card that needs nothing more is played on a click; a card
// that needs a target (Favor) or partners (a combo) is picked first, then its target is clicked.
function hand(view, legal, { send, redraw, who, name, el }) {
  const of = (type) => legal.filter((cmd) => cmd.type === type);
  const out = [];
  const defuse = of("Defuse");
  if (defuse.length) {
    const bottom = Math.max(...defuse.map((cmd) => cmd.position));
    const where = (pos) => (pos === 0 ? "On top: the next player draws it" : pos === bottom ? "At the bottom of the draw pile" : `${pos} ${pos === 1 ? "card" : "cards"} from the top`);
    const select = el("select", { id: "defuse-where", required: true },
      el("option", { value: "" }, "Choose where…"),
      defuse.slice().sort((a, b) => b.position - a.position).map((cmd) => el("option", { value: cmd.position }, where(cmd.position))));
    out.push(el("form", { class: "command kitten", "data-type": "Defuse", onsubmit: (e) => { e.preventDefault(); if (select.value !== "") send({ type: "Defuse", position: Number(select.value) }); } },
      el("p", { class: "alarm" }, "You drew an Exploding Kitten! Your Defuse saves you: put the Kitten back into the draw pile, where you like."),
      el("label", { for: "defuse-where" }, "Where the Kitten goes"), " ", select, " ",
      el("button", { type: "submit", "data-type": "Defuse" }, "Put it back")));
  }
  const draw = of("DrawCard");
  const plays = of("PlayCard");
  const combos = of("PlayCombo");
  const gives = of("GiveCard");
  const nopes = of("Nope");
  const pass = of("PassReaction");
  const pub = view.public;
  if (!gives.some((cmd) => cmd.card === "Defuse")) givingDefuse = false;
  // What the game asks of this seat now, said beside the hand.
  if (pub.window && (nopes.length || pass.length)) {
    const w = pub.window;
    out.push(el("div", { class: "command", "data-type": "PassReaction" },
      el("p", { class: "prompt" }, `${name(w.actor)} played ${w.cards.join(" + ")}${w.target != null ? ` on ${name(w.target)}` : ""}: ${nopes.length ? "Nope it, or let it happen" : "let it happen"}.`),
      pass.length ? el("button", { type: "button", "data-type": "PassReaction", onclick: () => send(pass[0]) }, "Let it happen") : null));
  }
  if (gives.length) {
    const receiver = pub.pending && pub.pending.receiver != null ? name(pub.pending.receiver) : "the player who asked";
    if (givingDefuse) {
      out.push(el("div", { class: "command confirm", "data-type": "confirm-give" },
        el("p", { class: "prompt" }, `Give ${receiver} your Defuse? It is what saves you from an Exploding Kitten.`),
        el("button", { type: "button", "data-type": "confirm-give:yes", onclick: () => { givingDefuse = false; send(gives.find((cmd) => cmd.card === "Defuse")); } }, "Yes, give the Defuse"),
        " ",
        el("button", { type: "button", class: "quiet", "data-type": "confirm-give:no", onclick: () => { givingDefuse = false; redraw(); } }, "No, choose another card")));
    } else out.push(el("p", { class: "prompt" }, `Give ${receiver} a card — choose one.`));
  }
  if (!view.hand.length && !draw.length) out.push(el("p", { class: "muted" }, "Your hand is empty."));
  picked = picked.filter((i) => i < view.hand.length);
  const pickedCards = picked.map((i) => view.hand[i]);
  const pickable = (card) => combos.some((cmd) => cmd.cards.includes(card)) || plays.some((cmd) => cmd.card === card && cmd.target != null);
  if (!pickable(pickedCards[0])) picked = [];

  function click(i) {
    const card = view.hand[i];
    const give = gives.find((cmd) => cmd.card === card);
    if (give && card === "Defuse") { givingDefuse = true; return redraw(); }
    if (give) return send(give);
    if (card === "Nope" && nopes.length && !picked.length) return send(nopes[0]);
    const plain = plays.find((cmd) => cmd.card === card && cmd.target == null);
    if (plain && !picked.length) return send(plain);
    if (!pickable(card)) return undefined;
    picked = picked.includes(i) ? picked.filter((j) => j !== i) : [...picked, i];
    return redraw();
  }
  const title = (card) => {
    if (gives.some((cmd) => cmd.card === card)) return `Give ${card}`;
    if (card === "Nope" && nopes.length) return "Nope!";
    if (plays.some((cmd) => cmd.card === card)) return `Play ${card}`;
    if (pickable(card)) return `Pick ${card} for a combo`;
    return null;
  };
  const cards = view.hand.map((card, i) => {
    const action = title(card);
    const isPicked = picked.includes(i);
    return el("li", {}, el("button", {
      type: "button", class: `card${isPicked ? " picked" : ""}${action ? "" : " idle"}${card === "Exploding Kitten" ? " kitten" : ""}`,
      "data-type": `card:${card}:${i}`, "data-card": card, "aria-pressed": pickable(card) ? String(isPicked) : null,
      "aria-disabled": action ? null : "true", title: action || "Nothing to do with it now",
      onclick: () => click(i),
    }, card));
  });
  const row = el("ul", { class: "hand", "aria-label": "Your hand: click a card to play it" }, cards);
  if (draw.length) row.prepend(el("li", {}, el("button", { type: "button", class: "card pile", "data-type": "DrawCard", onclick: () => send(draw[0]) }, `Draw a card (ends your turn)`)));
  out.push(row);
  // The targets of what is picked: a targeted card alone, or cards that make a combo.
  const aimed = [
    ...(picked.length === 1 ? plays.filter((cmd) => cmd.card === pickedCards[0] && cmd.target != null) : []),
    ...combos.filter((cmd) => sameCards(cmd.cards, pickedCards)),
  ];
  if (picked.length) {
    const targets = [...new Set(aimed.map((cmd) => cmd.target))];
    const namedChoices = [...new Set(aimed.map((cmd) => cmd.named).filter((n) => n != null))];
    const named = namedChoices.length ? el("select", { id: "combo-named" }, namedChoices.map((n) => el("option", { value: n }, n))) : null;
    const fire = (target) => {
      const cmd = aimed.find((c) => c.target === target && (named ? c.named === named.value : true));
      if (cmd) { picked = []; send(cmd); }
    };
    out.push(el("div", { class: "command aim", "data-type": "aim" },
      el("p", {}, aimed.length ? `${pickedCards.join(" + ")}: now choose the player.` : `Picked: ${pickedCards.join(" + ")}. Pick the matching cards for a combo.`),
      named ? [el("label", { for: "combo-named" }, "Name the card you ask for"), " ", named] : null,
      targets.map((t) => (t == null
        ? el("button", { type: "button", "data-type": "aim:none", onclick: () => fire(t) }, `Play ${pickedCards.join(" + ")}`)
        : el("button", { type: "button", "data-type": `aim:${t}`, onclick: () => fire(t) }, `On ${who(t)}`))),
      el("button", { type: "button", class: "quiet", "data-type": "aim:cancel", onclick: () => { picked = []; redraw(); } }, "Put them back")));
  }
  return out;
}

// The newest move in a player's words; bookkeeping the table already shows says nothing.
let lastAction = null;  // the card or combo a Nope would cancel, by whom
function describe(event, who) {
  const said = sentence(event, who, (s) => (who(s) === "you" ? "your" : `${who(s)}'s`));
  return said && said.startsWith("you") ? `Y${said.slice(1)}` : said;  // a name is as its player typed it
}
function sentence(event, who, whose) {
  const d = event.data || {};
  switch (event.type) {
    case "DeckDealt": return `The cards are dealt: 8 each. ${who(d.first_seat) === "you" ? "You start" : `${who(d.first_seat)} starts`}.`;
    case "CardPlayed":
      lastAction = `${whose(d.seat)} ${d.card}`;
      if (d.card === "Attack") return `${who(d.seat)} played Attack${d.target != null ? ` on ${who(d.target)}` : ""}: the next player takes 2 turns or more`;
      if (d.card === "Favor") return `${who(d.seat)} asked ${who(d.target)} for a Favor`;
      if (d.card === "Skip") return `${who(d.seat)} played Skip: a turn without drawing`;
      return `${who(d.seat)} played ${d.card}`;
    case "ComboPlayed":
      lastAction = `${whose(d.seat)} ${d.cards.join(" + ")}`;
      return `${who(d.seat)} played ${d.cards.join(" + ")}${d.target != null ? ` against ${who(d.target)}` : ""}${d.named ? `, asking for ${d.named}` : ""}`;
    case "NopePlayed": return `${whose(d.seat)} Nope ${d.chain_length % 2 ? "cancelled" : "brought back"} ${lastAction || "the last card"}`;
    case "ReactionPassed": return `${who(d.seat)} let it happen`;
    case "ReactionsResolved": return d.noped ? `${lastAction || "the card"} did nothing: Noped` : null;
    case "OwedTurnStarted":
      if (d.turns_owed > 1) return `${who(d.seat)} ${d.under_attack ? `${who(d.seat) === "you" ? "are" : "is"} attacked: ` : ""}${d.turns_owed} turns to take`;
      return who(d.seat) === "you" ? "your turn" : `${who(d.seat)} to play`;
    case "CardDrawn": return `${who(d.seat)} drew ${d.card ? `a ${d.card}` : "a card"}${d.by_server ? " (out of time)" : ""}`;
    case "KittenDrawn": return `${who(d.seat)} drew an Exploding Kitten!`;
    case "KittenDefused": return `${who(d.seat)} defused it and put the Kitten back${d.position != null ? (d.position === 0 ? " on top" : ` ${d.position} from the top`) : " somewhere in the draw pile"}`;
    case "PlayerExploded": return `${who(d.seat)} exploded!`;
    case "FavorAsked": return `${who(d.giver)} must give ${who(d.receiver)} a card`;
    case "FavorGiven": return `${who(d.giver)} gave ${who(d.receiver)} ${d.card ? `a ${d.card}` : "a card"}`;
    case "CardStolen": return `${who(d.thief)} took ${d.card ? `a ${d.card}` : "a card"} from ${who(d.victim)}`;
    case "NamedCardRequested": return d.given ? `${who(d.target)} had to hand over ${d.named}` : `${who(d.target)} ${who(d.target) === "you" ? "have" : "has"} no ${d.named}`;
    case "DiscardPickAsked": return `${who(d.seat)} picks a card from the discard pile`;
    case "CardTakenFromDiscard": return `${who(d.seat)} took ${d.card} from the discard pile`;
    case "FutureSeen": return d.cards && d.cards.length
      ? `${who(d.seat)} saw the future: ${d.cards.join(", ")} (top first)`
      : `${who(d.seat)} looked at the top cards of the draw pile (up to three)`;
    case "DeckShuffled": return `${who(d.seat)} shuffled the draw pile`;
    case "ActionHadNoEffect": return `Nothing happened: ${PL.words(d.reason || "")}`;
    case "PlayerConceded": return `${who(d.seat)} left the game`;
    case "ExplodingKittensWon": return (who(d.winner) === "you" ? "You are the last one standing: you win!" : `${who(d.winner)} is the last one standing and wins!`);
    default: return undefined;  // not this game's: the shared words say it
  }
}

PL.registerGame("exploding_kittens", {
  players: { min: 2, max: 5 },
  concede: "Concede",

  // The public table (a seat's, a spectator's, or a moderator's view with every card face up).
  table(view, seats, me = null) {
    const { el, words } = PL;
    const seatName = (names, s) => PL.seatName(names, s) + (s === me ? " — you" : "");
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
    const placer = pub.kitten_being_placed_by;
    if (placer != null) parts.push(el("p", {}, placer === me ? "You are putting an Exploding Kitten back." : `${seatName(seats, placer)} is putting an Exploding Kitten back.`));
    if (pub.pending && pub.pending.kind !== "defuse") {
      const p = pub.pending;
      const what = { favor: `give ${p.receiver != null ? PL.seatName(seats, p.receiver) : "a player"} a card (Favor)`, discard_pick: "take a card from the discard pile" }[p.kind] || words(p.kind);
      parts.push(el("p", {}, p.seat === me ? `Your move: ${what}.` : `Waiting for ${seatName(seats, p.seat)} to ${what}.`));
    }
    return parts;
  },

  // What only this seat knows (RULES 1.9): its hand, the cards it saw, where its Kitten is now.
  mine(view, handPlayable) {
    const { el } = PL;
    const parts = handPlayable ? [] : [el("ul", { class: "hand", "aria-label": "Your hand" }, view.hand.map((card) => el("li", { class: "card" }, card)))];
    if (view.seen_future.length) parts.push(el("p", {}, `You know the top of the draw pile: ${view.seen_future.join(", ")} (top first).`));
    if (view.placed_kitten != null) parts.push(el("p", {}, `The Kitten you put back is ${view.placed_kitten === 0 ? "on top" : `${view.placed_kitten} from the top`} of the draw pile.`));
    if (!parts.length) parts.push(el("p", { class: "muted" }, "You have not seen any card of the draw pile."));
    return parts;
  },

  hand: (view, legal, ctx) => hand(view, legal, ctx),
  reactions: ["Nope", "PassReaction"],
  handles: ["DrawCard", "PlayCard", "PlayCombo", "Nope", "PassReaction", "GiveCard", "Defuse"],
  describe: (event, who) => describe(event, who),

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
      case "Concede": return "Concede and leave the game";
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

  // The create form's options of this game (options.html, beside this file).
  options: (form) => ({ edition: form.edition.value, reaction_window: Number(form.reaction_window.value) }),
});
})();
