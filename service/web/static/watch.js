// The watch page: the public table as of spectator_delay ago, advanced by the delayed stream.
"use strict";

(() => {
  const { api, el, showProblem, seatName } = PL;
  const gameId = document.getElementById("main").dataset.gameId;
  const $ = (id) => document.getElementById(id);
  let snapshot = null;

  function render(snap) {
    snapshot = snap;
    $("game-title").textContent = `· ${PL.gameTitle(snap.kind)} · ${snap.seats.map((n, s) => seatName(snap.seats, s)).join(" vs ")}`;
    $("delay").textContent = snap.spectator_delay > 0 ? `live − ${snap.spectator_delay} s` : "live";
    $("table-view").replaceChildren(...Render.table(snap.kind, snap.view, snap.seats, snap));
    const over = snap.status === "finished";
    $("result").hidden = !over;
    if (over) $("result").textContent = `Game over. ${PL.outcomeText(snap)}`;
  }

  // Spectators read of a dispute that it is under review, then its verdict (after the delay).
  function disputes(items, seats) {
    $("disputes-note").hidden = !items.length;
    $("disputes-note").replaceChildren(...items.map((d) => el("li", { class: "dispute" },
      d.verdict ? `A dispute was ruled: ${PL.verdictText(d.verdict, seats)}` : "A dispute about this game is under review.")));
  }

  const refresh = PL.oneAtATime(async () => {
    try {
      const snap = await api(`/games/${gameId}/spectate`);
      render(snap);
      disputes((await api(`/games/${gameId}/disputes`)).items, snap.seats);
      showProblem($("problem"), null);
    } catch (error) {
      if (error.code !== "unreachable") showProblem($("problem"), error);  // the banner says it
    }
  });
  PL.connection.whenBack(refresh);

  (async () => {
    await refresh();
    if (!snapshot) return;
    // The public stream holds each event back until recorded_at + spectator_delay. Its events are
    // named by type, which EventSource can only follow one name at a time: read it with fetch.
    PL.followStream(`/games/${gameId}/spectate/stream`, null, 0, (event) => {
      const said = PL.describeMove(snapshot.kind, event, snapshot.seats);
      if (said !== null) PL.appendToFeed($("feed"), el("li", { "data-seq": event.seq }, said));
      refresh();
    }, { onEnd: (error) => error && showProblem($("problem"), error) });
  })();
})();
