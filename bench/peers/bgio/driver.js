// The load: K concurrent games, each seat a boardgame.io client on its own socket.io connection.
//
// Usage: node driver.js <server url> <K games> <seconds> <warm-up seconds> <seed>
// A game is created and every seat joined through the Lobby API before any seat connects (a
// seat that connects while another is still joining can have its credentials wiped). The seat
// whose turn it is (as its own filtered view says) picks a random move and sends it; the latency
// is from the send to the update that answers it on that seat's client. A finished game is
// replaced by a new one. Prints "START" and "STOP" around the measured window (the parent reads
// the CPU of every party there), then "RESULT <json>".
"use strict";

const { Client } = require("boardgame.io/client");
const { SocketIO } = require("boardgame.io/multiplayer");
const { ExplodingKittens, ACTIONS } = require("./game");

const [server, games, seconds, warmup, seed] = process.argv.slice(2);
const K = Number(games);
const STALL_MS = 15000;

function random(seedValue) {
  let a = seedValue >>> 0; // mulberry32
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const stats = { recording: false, moves: 0, latencies: [], lobby: 0, finished: 0, errors: [], started: 0 };
let stopped = false;

async function lobby(path, body) {
  const response = await fetch(`${server}/games/${ExplodingKittens.name}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  if (stats.recording) stats.lobby += 1;
  return response.json();
}

// The move of the seat to play, from what that seat sees: [name, ...args].
function choose(state, rng) {
  const { G } = state;
  if (G.pending) return ["reinsert", Math.floor(rng() * (G.pileSize + 1))];
  const actions = G.hand.filter((card) => ACTIONS.includes(card) && !(card === "future" && G.future));
  if (actions.length && rng() < 0.4) return [actions[Math.floor(rng() * actions.length)]];
  return ["draw"];
}

// Plays one game to its end (or to the end of the run); resolves when it is over.
async function playOne(rng, first) {
  const players = 2 + Math.floor(rng() * 4);
  const { matchID } = await lobby("/create", { numPlayers: players });
  const credentials = [];
  for (let seat = 0; seat < players; seat += 1) {
    credentials.push((await lobby(`/${matchID}/join`, { playerID: String(seat), playerName: `bot-${seat}` })).playerCredentials);
  }
  return new Promise((resolve) => {
    const clients = [];
    let sentAt = null; // the one move in flight in this game (closed loop, like playlog's driver)
    let progress = Date.now();
    let counted = !first;
    let over = false;
    const finish = (error) => {
      if (over) return;
      over = true;
      clearInterval(watchdog);
      for (const client of clients) client.stop();
      if (error) stats.errors.push(error);
      resolve();
    };
    const watchdog = setInterval(() => {
      if (stopped) finish();
      else if (Date.now() - progress > STALL_MS) finish(`match ${matchID}: no update for ${STALL_MS} ms`);
    }, 500);
    // The seat to move acts on its own latest state. Any seat's update calls this for the seat
    // it names, since the next seat's update can arrive before the answer to the mover's move.
    const actedAt = [];
    const consider = (seat) => {
      const state = clients[seat].getState();
      if (!state || over || sentAt !== null || state.ctx.gameover) return;
      if (state.ctx.currentPlayer !== String(seat) || state._stateID <= actedAt[seat]) return;
      actedAt[seat] = state._stateID;
      const [move, ...args] = choose(state, rng);
      sentAt = { seat, stateID: state._stateID, at: performance.now() };
      clients[seat].moves[move](...args);
    };
    for (let seat = 0; seat < players; seat += 1) {
      actedAt.push(-1);
      const client = Client({
        game: ExplodingKittens,
        numPlayers: players,
        multiplayer: SocketIO({ server }),
        matchID,
        playerID: String(seat),
        credentials: credentials[seat],
        debug: false,
      });
      client.subscribe((state) => {
        if (!state || stopped || over) return;
        if (!counted) {
          counted = true;
          stats.started += 1;
        }
        // The answer is the mover's update; the last move of a game is answered by whichever
        // seat sees the end first, since the game is then closed.
        const answered = sentAt !== null && state._stateID > sentAt.stateID;
        if (answered && (sentAt.seat === seat || state.ctx.gameover)) {
          if (stats.recording) {
            stats.moves += 1;
            stats.latencies.push(performance.now() - sentAt.at);
          }
          sentAt = null;
          progress = Date.now();
        }
        if (state.ctx.gameover) {
          if (stats.recording) stats.finished += 1;
          finish();
          return;
        }
        if (sentAt === null) consider(Number(state.ctx.currentPlayer));
      });
      clients.push(client);
    }
    for (const client of clients) client.start();
  });
}

async function loop(rng) {
  let first = true;
  while (!stopped) {
    try {
      await playOne(rng, first);
    } catch (error) {
      stats.errors.push(String(error));
      if (first) stats.started += 1;
    }
    first = false;
  }
}

async function main() {
  const rng = random(Number(seed));
  const loops = [];
  for (let n = 0; n < K; n += 1) loops.push(loop(random(Math.floor(rng() * 2 ** 32))));
  const setupDeadline = Date.now() + 120000;
  while (stats.started < K && Date.now() < setupDeadline) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, Number(warmup) * 1000));
  stats.errors = [];
  console.log("START");
  const started = performance.now();
  stats.recording = true;
  await new Promise((r) => setTimeout(r, Number(seconds) * 1000));
  stats.recording = false;
  const elapsed = (performance.now() - started) / 1000;
  console.log("STOP");
  stopped = true;
  await Promise.race([Promise.all(loops), new Promise((r) => setTimeout(r, 5000))]);
  const result = {
    elapsed,
    moves: stats.moves,
    latencies_ms: stats.latencies,
    lobby: stats.lobby,
    finished: stats.finished,
    errors: stats.errors.slice(0, 20),
    error_count: stats.errors.length,
  };
  // A pipe's write is asynchronous in Node: exit only once the whole line is out (past 64 KiB,
  // process.exit() would cut it).
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`, () => process.exit(0));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
