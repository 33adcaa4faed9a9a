// The home page: the public games (kept fresh), create a game and take its first seat, or join
// one; tokens stay in this tab.
"use strict";

(() => {
  const { api, el, tokens, seatKey, showProblem, when, age } = PL;
  const $ = (id) => document.getElementById(id);
  const notice = $("notice");
  const create = $("create-form");
  const kind = $("create-kind");
  const joinForm = $("join-form");

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
    game_already_started: "This game has already started and takes no more players: watch it from the list above, or create a game.",
    invalid_game_id: "A game id looks like 0f8fad5b-d9cb-469f-a165-70867728950e: check the id or the invite link.",
  };
  const refused = (error) => showProblem(notice, error, JOIN_WORDS);

  // A name is checked here by the server's own rule (its pattern and length, given by the page),
  // so that a create never leaves a game its host could not join.
  const namePattern = new RegExp(create.dataset.namePattern);
  const nameLength = Number(create.dataset.nameLength);
  function nameProblem(name) {
    const trimmed = name.trim();
    if (!trimmed) return new Error("Your name cannot be empty or only spaces.");
    if (trimmed.length > nameLength) return new Error(`Your name is too long: at most ${nameLength} characters.`);
    if (!namePattern.test(trimmed)) return new Error("Your name cannot hold a control character (such as a tab or a line break).");
    return null;
  }
  function checkName(field) {
    const bad = nameProblem(field.value);
    if (bad) { showProblem(notice, bad); field.focus(); }
    return !bad;
  }

  // An invite link (/?join=<game id>) fills the join form: only a name is left to type.
  function inviteTo(gameId) {
    joinForm.elements.game_id.value = gameId;
    $("join-title").scrollIntoView();
    joinForm.elements.name.focus();
  }
  const invited = new URLSearchParams(location.search).get("join");
  if (invited) inviteTo(invited);

  async function join(gameId, name, key = crypto.randomUUID()) {
    // With a player token in this tab the seat is the player's: it comes back on /me.
    const seat = await api(`/games/${gameId}/seats`, {
      method: "POST", body: { name }, token: tokens.get("player"), headers: { "Idempotency-Key": key },
    });
    tokens.set(seatKey(seat.game_id, seat.seat), seat.token);
    location.assign(`/play/${seat.game_id}/${seat.seat}`);
  }

  // Create and join are one step: the same form sent again (after a join that could not get
  // through) sends the same keys, so it finds the game it created rather than making another.
  let attempt = null;  // { sent, createKey, joinKey }
  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    showProblem(notice, null);
    const f = create.elements;
    if (!checkName(f.name)) return;
    const options = { players: Number(f.players.value), ...PL.game(kind.value).options(f) };
    for (const name of ["seed", "first_seat"]) if (f[name].value !== "") options[name] = Number(f[name].value);
    // The clock (docs/api.md, "Clocks"): left out, a public game gets its default; "off": none.
    if (f.clock.value !== "") options.decision_timeout = f.clock.value === "off" ? null : Number(f.clock.value);
    const body = { kind: kind.value, options, public: f.public.checked, spectator_delay: Number(f.spectator_delay.value || 0) };
    const sent = JSON.stringify([body, f.name.value]);
    if (!attempt || attempt.sent !== sent) attempt = { sent, createKey: crypto.randomUUID(), joinKey: crypto.randomUUID() };
    try {
      const game = await api("/games", { method: "POST", body, headers: { "Idempotency-Key": attempt.createKey } });
      tokens.set(`host:${game.game_id}`, game.host_token);
      await join(game.game_id, f.name.value, attempt.joinKey);
    } catch (error) { refused(error); }
  });

  joinForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    showProblem(notice, null);
    const f = joinForm.elements;
    if (!checkName(f.name)) return;
    try { await join(f.game_id.value.trim(), f.name.value); } catch (error) { refused(error); }
  });

  // -- the public games: open ones first, each group newest first; refreshed every few seconds
  const GROUPS = [
    ["open", "Open: waiting for players"],
    ["running", "Running (as spectators see them, after each game's delay)"],
    ["finished", "Finished"],
  ];
  const REFRESH_MS = 10_000;
  const names = (g) => g.seats.map((name) => (name == null ? el("span", { class: "free" }, "free seat") : el("span", { class: "name" }, name)));
  // When: how long ago, and for a finished game its date too.
  const dated = (what, t, date = false) => el("span", { class: "when" }, `${what} `,
    el("time", { datetime: new Date(t * 1000).toISOString(), title: when(t) }, date ? `${when(t)} (${age(t)})` : age(t)));

  // "Join Exploding Kittens with dora": each open game's button says which game it joins.
  function joinLabel(g, title) {
    const seated = g.seats.filter((n) => n != null);
    return seated.length ? `Join ${title} with ${seated.join(", ")}` : `Join this ${title} game`;
  }

  function row(g) {
    const title = PL.gameTitle(g.kind);
    const parts = [el("span", { class: "kind" }, title), el("span", { class: "seats" }, ...names(g).flatMap((n, i) => (i ? [", ", n] : [n])))];
    if (g.status === "open") {
      // Every seat taken: the game starts (or has, within its spectator delay); nothing to join.
      const full = g.seats.every((n) => n != null);
      parts.push(dated("created", g.created_at), full ? el("span", { class: "muted" }, "every seat taken") : el("span", { class: "links" },
        el("button", { type: "button", "data-game-id": g.game_id, "data-action": "join", onclick: () => inviteTo(g.game_id) },
          joinLabel(g, title))));
    } else {
      // A finished game that never started: its lobby closed, nobody having started it in time.
      const closed = g.status === "finished" && g.started_at == null;
      if (g.status === "finished") parts.push(dated("finished", g.finished_at ?? g.created_at, true), el("span", { class: "winners" }, closed ? "Closed: not started in time." : PL.outcomeText(g)));
      else parts.push(dated("started", g.started_at ?? g.created_at));
      parts.push(el("span", { class: "links" },
        el("a", { href: `/watch/${g.game_id}` }, "Watch"),
        g.status === "finished" ? el("a", { href: `/replay/${g.game_id}` }, "Replay") : null));
    }
    return el("li", { class: "game", "data-game-id": g.game_id }, ...parts);
  }

  // Each group is read as its own list, newest first, in pages (docs/api.md, "Pages"): its first
  // page on every refresh, and as many more as its "Show more" asked for, each by the page's `next`.
  const PAGE = 20;
  const more = Object.fromEntries(GROUPS.map(([status]) => [status, 0]));
  async function group(status) {
    let page = await api(`/games?status=${status}&limit=${PAGE}`);
    const games = [...page.games];
    for (let n = 0; n < more[status] && page.next; n++) {
      page = await api(page.next);
      games.push(...page.games);
    }
    return { games, next: page.next };
  }

  let shown = null;
  async function listGames() {
    let groups;
    try { groups = await Promise.all(GROUPS.map(([status]) => group(status))); } catch (error) {
      if (error.code !== "unreachable") $("games-updated").textContent = "The list of public games could not be read; it is tried again shortly.";
      return;
    }
    const fresh = JSON.stringify(groups);
    $("games-updated").textContent = `As of ${new Date().toLocaleTimeString()}; refreshed every ${REFRESH_MS / 1000} s.`;
    if (fresh === shown) return;  // unchanged: leave the rows (and the focus) alone
    shown = fresh;
    const focused = document.activeElement && document.activeElement.closest("#games [data-game-id], #games [data-more]");
    const parts = [];
    GROUPS.forEach(([status, heading], i) => {
      const { games, next } = groups[i];
      parts.push(el("h3", {}, heading), games.length
        ? el("ul", { class: "games", "data-status": status }, games.map(row))
        : el("p", { class: "muted" }, "None."));
      if (next) {
        parts.push(el("button", { type: "button", "data-more": status, onclick: () => { more[status] += 1; listGames(); } },
          `Show more ${status} games`));
      }
    });
    $("games").replaceChildren(...parts);
    // A rebuilt list keeps the keyboard where it was (the same game's row, else the heading); on
    // "Show more", the button again, or once its group is all read, the group's last game.
    if (focused && focused.dataset.more) {
      const status = focused.dataset.more;
      const last = [...$("games").querySelectorAll(`[data-status="${status}"] li`)].pop();
      ($("games").querySelector(`[data-more="${status}"]`) || last?.querySelector("button, a") || $("games-title")).focus();
    } else if (focused) {
      const again = $("games").querySelector(`[data-game-id="${focused.dataset.gameId}"] button, [data-game-id="${focused.dataset.gameId}"] a`);
      (again || $("games-title")).focus();
    }
  }
  listGames();
  setInterval(() => { if (!document.hidden) listGames(); }, REFRESH_MS);
  PL.connection.whenBack(listGames);
})();
