// A player's replay. A tab that holds a seat of the game replays it as that seat's move log shows
// it: the same numbers (the seat's own, RULES 3) and the same words. Otherwise, or when asked
// (?face-up), face up once a public game is over (the audit's own rule).
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
    const view = await api(`${base}/view`, { token });
    perspective.textContent = `As ${seatName(view.seats, seat)} saw it: other players' hidden cards stay hidden.`;
    const count = view.version;  // the seat's numbers run 1..version (its own numbering, RULES 3)
    const eventAt = Replayer.paged(async (after, limit) => (await api(`${base}/events?after=${after}&limit=${limit}`, { token }))
      .map((e) => ({ seq: e.seq, type: e.type, recorded_at: e.recorded_at, actor: null, data: e.data })));
    // The move log's words, said event by event in order as the play page said them (a Nope
    // names the card it cancels, from the events before it).
    const words = [];
    let saying = Promise.resolve();
    const said = (event, index) => (saying = saying.then(async () => {
      for (let i = words.length; i <= index; i++) words.push(PL.describeMove(view.kind, await eventAt(i), view.seats, seat));
      return words[index];
    }));
    await Replayer.start({
      gameId,
      seats: view.seats,
      kind: view.kind,
      count,
      indexOf: (seq) => (seq >= 1 && seq <= count ? seq - 1 : -1),
      eventAt,
      said,
      heading: (event) => `Move ${event.seq} of ${count}`,
      byline: (event, when) => `At ${when}`,
      changesAt: null,
      proofs: null,
      transcript: () => api(`${base}/transcript`, { token, headers: { Accept: "text/plain" } }),
      stateAt: async (seq, index) => (index === count - 1
        ? Render.table(view.kind, view.view, view.seats, view).concat(Render.mine(view.kind, view.view))
        : [el("p", { class: "muted" }, "The seat's table is shown at the last event; step to it, or read each event above.")]),
    });
  }

  // A seat's tab also gets its disputes here: raise one about the event on screen, follow it.
  async function disputes(seat, faceUp) {
    const token = tokens.get(PL.seatKey(gameId, seat));
    PL.whoLooked(gameId, token, faceUp);
    let seats = null;
    const widget = SeatDisputes.mount({
      gameId, seat, token, seats: () => seats,
      // Face up, the viewer numbers events as the log does, which may differ from the seat's own numbers.
      currentSeq: faceUp ? null : Replayer.seqShown,
    });
    try {
      seats = (await api(`/games/${gameId}/seats/${seat}/view`, { token })).seats;
      widget.refresh();
    } catch (error) { showProblem(problem, error); }
    // No stream on this page: look again now and then for a moderator's question or verdict.
    setInterval(() => { if (!document.hidden) widget.refresh(); }, 10_000);
  }

  (async () => {
    const seat = heldSeat();
    if (seat !== null && !new URLSearchParams(location.search).has("face-up")) {
      try {
        await asSeat(seat);
        disputes(seat, false);
        document.getElementById("face-up-link").hidden = false;
      } catch (error) { showProblem(problem, error); }
      return;
    }
    try {
      await Replayer.fromAudit(gameId, null, { forPlayers: true });
      perspective.textContent = "Face up: this public game is over and its spectator delay has passed.";
      if (seat !== null) disputes(seat, true);
    } catch (error) { showProblem(problem, error); }
  })();
})();
