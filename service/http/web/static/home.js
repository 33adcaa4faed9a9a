// The home page: create a game and take its first seat, or join one; tokens stay in this tab.
"use strict";

(() => {
  const { api, tokens, seatKey, showProblem } = PL;
  const notice = document.getElementById("notice");
  const create = document.getElementById("create-form");
  const kind = document.getElementById("create-kind");

  function showKindOptions() {
    for (const fieldset of create.querySelectorAll("fieldset[data-kind]")) fieldset.hidden = fieldset.dataset.kind !== kind.value;
    const players = create.elements.players;
    ({ min: players.min, max: players.max } = PL.game(kind.value).players);
    if (Number(players.value) < Number(players.min)) players.value = players.min;
    if (Number(players.value) > Number(players.max)) players.value = players.max;
  }
  kind.addEventListener("change", showKindOptions);
  showKindOptions();

  // Joining, in a player's words: what went wrong and what to do instead.
  const JOIN_WORDS = {
    not_found: "No game has this id: check the id or the invite link.",
    game_already_started: "This game has already started and takes no more players: watch it from the list below, or create a game.",
    invalid_game_id: "A game id looks like 0f8fad5b-d9cb-469f-a165-70867728950e: check the id or the invite link.",
  };
  const refused = (error) => showProblem(notice, error, JOIN_WORDS);
  // A name is checked here first, so that a create never leaves a game nobody could join.
  function nameProblem(name) {
    return name.trim() ? null : new Error("Your name cannot be empty or only spaces.");
  }

  // An invite link (/?join=<game id>) fills the join form: only a name is left to type.
  const invited = new URLSearchParams(location.search).get("join");
  if (invited) {
    const form = document.getElementById("join-form");
    form.elements.game_id.value = invited;
    document.getElementById("join-title").scrollIntoView();
    form.elements.name.focus();
  }

  async function join(gameId, name) {
    // With a player token in this tab the seat is the player's: it comes back on /me.
    const seat = await api(`/games/${gameId}/seats`, { method: "POST", body: { name }, token: tokens.get("player") });
    tokens.set(seatKey(seat.game_id, seat.seat), seat.token);
    location.assign(`/play/${seat.game_id}/${seat.seat}`);
  }

  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    showProblem(notice, null);
    const f = create.elements;
    const bad = nameProblem(f.name.value);
    if (bad) { showProblem(notice, bad); f.name.focus(); return; }
    const options = { players: Number(f.players.value), ...PL.game(kind.value).options(f) };
    for (const name of ["seed", "first_seat", "decision_timeout"]) if (f[name].value !== "") options[name] = Number(f[name].value);
    try {
      const game = await api("/games", {
        method: "POST",
        body: { kind: kind.value, options, public: f.public.checked, spectator_delay: Number(f.spectator_delay.value || 0) },
      });
      tokens.set(`host:${game.game_id}`, game.host_token);
      await join(game.game_id, f.name.value);
    } catch (error) { refused(error); }
  });

  document.getElementById("join-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    showProblem(notice, null);
    const f = event.target.elements;
    const bad = nameProblem(f.name.value);
    if (bad) { showProblem(notice, bad); f.name.focus(); return; }
    try { await join(f.game_id.value.trim(), f.name.value); } catch (error) { refused(error); }
  });

  for (const form of document.querySelectorAll("form.join-listed")) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      showProblem(notice, null);
      const bad = nameProblem(form.elements.name.value);
      if (bad) { showProblem(notice, bad); form.elements.name.focus(); return; }
      try { await join(form.dataset.gameId, form.elements.name.value); } catch (error) { refused(error); }
    });
  }
})();
