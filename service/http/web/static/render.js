// Rendering of game views, shared by the play, watch and replay pages (text only, never HTML).
"use strict";

const Render = (() => {
  const { el } = PL;
  const list = (items) => (items && items.length ? items.join(", ") : "none");

  function seatsTable(rows, headings) {
    return el("table", { class: "seats-table" },
      el("thead", {}, el("tr", {}, headings.map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c, i) => (i === 0 ? el("th", { scope: "row" }, c) : el("td", {}, c)))))));
  }

  // The public table of a game (a seat's, a spectator's or a moderator's view), by its page,
  // and once it is over, who won: ``game`` holds the outcome (PL.outcomeText), so a ruling shows
  // the same way on every page; ``me`` is the seat whose page it is (marked at the table). The games' pages never print a winner themselves.
  function table(kind, view, seats, game = null, me = null) {
    if (!view) return [el("p", {}, "Not started yet.")];
    const parts = PL.game(kind).table(view, seats, me);
    if (PL.isOver(game)) parts.push(el("p", { class: "result" }, PL.outcomeText({ ...game, seats })));
    return parts;
  }

  // What only this seat knows, for a game that hides something from it (else nothing);
  // ``handPlayable``: the page shows the game's hand as controls (page.hand) elsewhere.
  function mine(kind, view, handPlayable = false) {
    const page = PL.game(kind);
    return page.mine ? page.mine(view, handPlayable) : [];
  }

  return { table, mine, list, seatsTable };
})();
