// A player's replay: face up once a public game is over (the audit's own rule), else the seat's
// own perspective with the seat token this tab holds.
"use strict";

(() => {
  const { api, el, tokens, showProblem, seatName } = PL;
  const gameId = document.getElementById("main").dataset.gameId;
  const problem = document.getElementById("problem");
  const perspective = document.getElementById("perspective");

  function heldSeat() {
    for (let i = 0; i < sessionStorage.length; i++) {
      const match = /^playlog:seat:([^:]+):(\d+)$/.exec(sessionStorage.key(i));
      if (match && match[1] === gameId) return Number(match[2]);
    }
    return null;
  }

  async function asSeat(seat) {
    const token = tokens.get(PL.seatKey(gameId, seat));
    const base = `/games/${gameId}/seats/${seat}`;
    const [events, view] = await Promise.all([api(`${base}/events?after=0`, { token }), api(`${base}/view`, { token })]);
    perspective.textContent = `As ${seatName(view.seats, seat)} saw it: other players' hidden cards stay hidden.`;
    await Replayer.start({
      gameId,
      seats: view.seats,
      events: events.map((e) => ({ seq: e.seq, type: e.type, recorded_at: e.recorded_at, actor: null, data: e.data })),
      changes: null,
      proofs: null,
      transcript: () => api(`${base}/transcript`, { token, headers: { Accept: "text/plain" } }),
      stateAt: async (seq, index) => (index === events.length - 1
        ? Render.table(view.kind, view.view, view.seats).concat(Render.mine(view.kind, view.view))
        : [el("p", { class: "muted" }, "The seat's table is shown at the last event; step to it, or read each event above.")]),
    });
  }

  (async () => {
    try {
      await Replayer.fromAudit(gameId, null);
      perspective.textContent = "Face up: this public game is over and its spectator delay has passed.";
    } catch (error) {
      const seat = heldSeat();
      if (seat === null) { showProblem(problem, error); return; }
      try { await asSeat(seat); } catch (seatError) { showProblem(problem, seatError); }
    }
  })();
})();
