// A simplified Exploding Kittens for boardgame.io 0.50: the peer's game in bench/peers/boardgameio.py.
//
// Hidden information goes through `playerView`: a seat sees its own hand, the others' hand
// sizes, the draw pile's size and, after See the Future, the top three cards. Cards: Exploding
// Kitten, Defuse, Skip, Attack, See the Future, Shuffle and plain cats. Drawing a kitten without a
// Defuse eliminates the seat; with one, the seat must put the kitten back anywhere in the pile
// (`reinsert`) before its turn ends. The last seat standing wins.
//
// Every move is `client: false`: the pile is secret and shuffled by the server's seeded random
// plugin, so a client waits for the server's update instead of guessing (no optimistic update),
// which also makes the driver's latency the server's round trip.
"use strict";

const { INVALID_MOVE } = require("boardgame.io/core");

const ACTIONS = { skip: 4, attack: 4, future: 5, shuffle: 4, cat: 16 };
const DEFUSES = 6;
const HAND = 7;

function setup({ ctx, random }) {
  const players = ctx.numPlayers;
  let pile = [];
  for (const [card, count] of Object.entries(ACTIONS)) {
    for (let n = 0; n < count; n += 1) pile.push(card);
  }
  pile = random.Shuffle(pile);
  const hands = [];
  for (let seat = 0; seat < players; seat += 1) {
    hands.push(["defuse", ...pile.splice(0, HAND)]);
  }
  for (let n = 0; n < Math.min(2, DEFUSES - players); n += 1) pile.push("defuse");
  for (let n = 0; n < players - 1; n += 1) pile.push("kitten");
  return {
    pile: random.Shuffle(pile), // the top is the end of the array
    hands,
    discard: [],
    alive: hands.map(() => true),
    turns: 1, // turns the current seat still has to take (2 after an Attack)
    nextSeat: 0,
    pending: false, // the current seat drew a kitten, defused it and must reinsert it
    future: {}, // seat -> the top three cards it saw, until the pile changes
    winner: null,
  };
}

function nextAlive(G, seat) {
  for (let step = 1; step <= G.alive.length; step += 1) {
    const candidate = (seat + step) % G.alive.length;
    if (G.alive[candidate]) return candidate;
  }
  return seat;
}

// The turn ends: the same seat again while it owes turns, else the next seat still in.
function finishTurn(G, seat, events) {
  if (G.turns > 1) {
    G.turns -= 1;
    G.nextSeat = seat;
  } else {
    G.turns = 1;
    G.nextSeat = nextAlive(G, seat);
  }
  events.endTurn();
}

function playCard(G, seat, card) {
  const hand = G.hands[seat];
  const at = hand.indexOf(card);
  if (at < 0) return false;
  hand.splice(at, 1);
  G.discard.push(card);
  return true;
}

function actionMove(card, effect) {
  return {
    client: false,
    move: ({ G, ctx, events, random }) => {
      const seat = Number(ctx.currentPlayer);
      if (G.pending || !playCard(G, seat, card)) return INVALID_MOVE;
      effect(G, seat, events, random);
    },
  };
}

const moves = {
  draw: {
    client: false,
    move: ({ G, ctx, events }) => {
      const seat = Number(ctx.currentPlayer);
      if (G.pending) return INVALID_MOVE;
      const card = G.pile.pop();
      G.future = {};
      if (card !== "kitten") {
        G.hands[seat].push(card);
        finishTurn(G, seat, events);
      } else if (playCard(G, seat, "defuse")) {
        G.pending = true;
      } else {
        G.alive[seat] = false;
        G.discard.push(card, ...G.hands[seat]);
        G.hands[seat] = [];
        G.turns = 1;
        finishTurn(G, seat, events);
      }
    },
  },
  // Put the defused kitten back `depth` cards from the top (0: on top).
  reinsert: {
    client: false,
    move: ({ G, ctx, events }, depth) => {
      const seat = Number(ctx.currentPlayer);
      if (!G.pending || !Number.isInteger(depth) || depth < 0 || depth > G.pile.length) {
        return INVALID_MOVE;
      }
      G.pile.splice(G.pile.length - depth, 0, "kitten");
      G.pending = false;
      G.future = {};
      finishTurn(G, seat, events);
    },
  },
  skip: actionMove("skip", (G, seat, events) => finishTurn(G, seat, events)),
  attack: actionMove("attack", (G, seat, events) => {
    G.nextSeat = nextAlive(G, seat);
    G.turns = 2;
    events.endTurn();
  }),
  future: actionMove("future", (G, seat) => {
    G.future[seat] = G.pile.slice(-3).reverse();
  }),
  shuffle: actionMove("shuffle", (G, seat, events, random) => {
    G.pile = random.Shuffle(G.pile);
    G.future = {};
  }),
};

const ExplodingKittens = {
  name: "exploding-kittens",
  minPlayers: 2,
  maxPlayers: 5,
  setup,
  moves,
  turn: {
    order: {
      first: () => 0,
      next: ({ G }) => G.nextSeat,
    },
  },
  endIf: ({ G }) => {
    const left = G.alive.flatMap((alive, seat) => (alive ? [seat] : []));
    return left.length === 1 ? { winner: String(left[0]) } : undefined;
  },
  playerView: ({ G, playerID }) => {
    const seat = playerID === null || playerID === undefined ? null : Number(playerID);
    return {
      pileSize: G.pile.length,
      hand: seat === null ? [] : G.hands[seat],
      handSizes: G.hands.map((hand) => hand.length),
      discard: G.discard,
      alive: G.alive,
      turns: G.turns,
      pending: G.pending,
      future: seat === null ? null : (G.future[seat] ?? null),
    };
  },
};

module.exports = { ExplodingKittens, ACTIONS: Object.keys(ACTIONS).filter((c) => c !== "cat") };
