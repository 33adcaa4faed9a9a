// A player's page: its games (GET /players/me/games), each seat it holds with a way back to it.
// The player token stays in this tab (or comes in the URL's fragment, #token=...).
"use strict";

(() => {
  const { api, el, tokens, seatKey, showProblem, when } = PL;
  const $ = (id) => document.getElementById(id);
  const problem = $("problem");
  const gate = $("player-form");
  const create = $("new-player-form");
  const STATUS = { open: "waiting for players", running: "being played", finished: "over" };
  PL.adoptFragmentToken("player");

  // A new seat token for a seat this player holds, kept in this tab, then the seat's page.
  async function resume(gameId, seat) {
    showProblem(problem, null);
    try {
      const got = await api(`/players/me/games/${gameId}/seats/${seat}/token`, { method: "POST", token: tokens.get("player") });
      tokens.set(seatKey(gameId, seat), got.token);
      location.assign(`/play/${gameId}/${seat}`);
    } catch (error) { showProblem(problem, error); }
  }

  function row(game) {
    const over = game.status === "finished";
    const outcome = game.outcome ? `, you ${game.outcome}` : "";
    return el("li", { class: "game", "data-game-id": game.game_id },
      el("span", { class: "kind" }, PL.gameTitle(game.kind)),
      el("span", {}, `${STATUS[game.status] || game.status}${outcome} · created ${when(game.created_at)}`),
      el("span", { class: "links" },
        game.seats.map((seat) => el("button", { type: "button", onclick: () => resume(game.game_id, seat) },
          `${over ? "Open" : "Back to"} your seat (seat ${seat})`)),
        over ? el("a", { href: `/replay/${game.game_id}` }, "Replay") : null));
  }

  // The player's games in pages, newest first (docs/api.md, "Pages"): "Show more" reads the
  // next by the page's `next`, appended below.
  async function more(token, url) {
    const page = await api(url, { token });
    $("my-games-list").append(...page.games.map(row));
    const button = $("my-games-more");
    button.hidden = !page.next;
    button.onclick = page.next ? () => more(token, page.next).catch((error) => showProblem(problem, error)) : null;
    return page;
  }

  async function show(token) {
    $("my-games-list").replaceChildren();
    const first = await more(token, "/players/me/games?limit=20");
    $("my-games-none").hidden = first.games.length > 0;
    $("my-games").hidden = false;
    $("erase").hidden = false;
    gate.hidden = true;
    create.hidden = true;
  }

  async function open(token) {
    try { await show(token); } catch (error) {
      if (error.status === 401 || error.status === 403) tokens.drop("player");
      showProblem(problem, error);
      gate.hidden = false;
      create.hidden = false;
    }
  }

  gate.addEventListener("submit", (event) => {
    event.preventDefault();
    const token = gate.elements.token.value.trim();
    gate.elements.token.value = "";
    tokens.set("player", token);
    showProblem(problem, null);
    open(token);
  });
  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    showProblem(problem, null);
    try {
      const player = await api("/players", { method: "POST", body: { name: create.elements.name.value } });
      tokens.set("player", player.token);
      $("player-token-value").value = player.token;
      $("player-token").hidden = false;
      await open(player.token);
    } catch (error) { showProblem(problem, error); }
  });
  PL.copyButton($("player-token-value"), $("player-token-copy"), $("player-token-said"));
  $("sign-out").addEventListener("click", () => {
    tokens.drop("player");
    $("my-games").hidden = true;
    $("erase").hidden = true;
    $("player-token").hidden = true;
    gate.hidden = false;
    create.hidden = false;
  });
  // Erasure (docs/erasure.md): the player's name and words, in every game; the token is revoked.
  $("erase-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    showProblem(problem, null);
    try {
      const erased = await api("/players/me?erase=true", { method: "DELETE", token: tokens.get("player") });
      tokens.drop("player");
      const games = erased.games.length === 1 ? "1 game" : `${erased.games.length} games`;
      $("erase-form").hidden = true;
      $("my-games").hidden = true;
      $("erase-done").textContent = `Done: you are shown as ${erased.pseudonym} in ${games}.`;
      $("erase-done").hidden = false;
    } catch (error) { showProblem(problem, error); }
  });
  PL.connection.whenBack(() => { const token = tokens.get("player"); if (token) open(token); });

  const stored = tokens.get("player");
  if (stored) open(stored); else { gate.hidden = false; create.hidden = false; }
})();
