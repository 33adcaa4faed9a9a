// The play page: a seat's view kept live from its stream, every legal command as a control.
"use strict";

(() => {
  const { api, el, tokens, seatKey, showProblem, followStream, describeEvent, seatName, words } = PL;
  const main = document.getElementById("main");
  const gameId = main.dataset.gameId;
  const seat = Number(main.dataset.seat);
  const key = seatKey(gameId, seat);
  PL.adoptFragmentToken(key);
  const token = tokens.get(key);
  const $ = (id) => document.getElementById(id);
  const problem = $("problem");
  let current = null;
  let busy = false;
  let windowTimer = null;
  let connectionProblem = false;  // the problem shown is the lost connection's, cleared when back

  if (!token) {
    problem.replaceChildren("This tab holds no token for this seat (a tab forgets its seats when it closes). ",
      "To get it back, open your seat's private rejoin link, or as a player, ", el("a", { href: "/me" }, "your games"),
      ". To play a new game, join from the ", el("a", { href: "/" }, "home page"), ".");
    problem.hidden = false;
    return;
  }
  const base = `/games/${gameId}/seats/${seat}`;

  // The seat's private way back: this page's address with the token in its fragment.
  const rejoin = $("rejoin-link");
  rejoin.value = `${location.origin}/play/${gameId}/${seat}#token=${encodeURIComponent(token)}`;
  PL.copyButton(rejoin, $("rejoin-copy"), $("rejoin-said"));
  $("rejoin").hidden = false;
  const invite = $("invite-link");
  invite.value = `${location.origin}/?join=${gameId}`;
  PL.copyButton(invite, $("invite-copy"), $("invite-said"));

  // Focus stays on the control the player was on when the controls are built again (after
  // each action and each event), else on their heading, whose next Tab reaches the new first
  // control: never lost to the page's body.
  let focusKey = null;
  let focusParked = false;  // the focus left a control that was disabled or removed
  const keyOf = (node) => {
    const command = node.closest("[data-type]");
    return command ? `${command.dataset.type}|${node.tagName}` : null;
  };
  $("commands").addEventListener("focusin", (event) => { focusKey = keyOf(event.target); focusParked = false; });
  const focusInControls = () => $("commands").contains(document.activeElement);
  function park() {
    focusParked = true;
    $("controls-title").focus({ preventScroll: true });
  }
  function keepFocus() {
    const same = [...$("commands").querySelectorAll("button, select")].find((node) => keyOf(node) === focusKey && !node.disabled);
    if (same) same.focus({ preventScroll: true }); else park();
  }
  // While the connection is lost the controls wait (disabled): a move would not get through.
  function lockControls() {
    const locked = PL.connection.isDown();
    if (locked && focusInControls()) park();
    for (const node of $("commands").querySelectorAll("button, select")) node.disabled = locked;
  }

  function label(page, cmd, seats) {
    return page.label(cmd, (s) => seatName(seats, s)) || words(cmd.type);
  }

  async function send(cmd) {
    if (busy) return;
    busy = true;
    main.dataset.busy = "1";  // tests wait for it to clear
    showProblem(problem, null);
    try {
      const result = await api(`${base}/commands?view=true`, { method: "POST", token, body: cmd, headers: { "Idempotency-Key": crypto.randomUUID() } });
      if (result.view) render(result.view);
    } catch (error) {
      if (error.code === "unreachable" || PL.connection.isDown()) {
        connectionProblem = true;
        showProblem(problem, new Error("Your move may not have reached the server: the connection to it is lost. The controls wait until it is back; the page then shows the game as it stands, so you can see whether your move is in it."));
      } else showProblem(problem, error);
    } finally {
      busy = false;
      main.dataset.busy = "0";
    }
  }

  function controls(view) {
    const page = PL.game(view.kind);
    const legal = (view.view && view.view.legal_commands) || [];
    const groups = new Map();
    for (const cmd of legal) {
      if (!groups.has(cmd.type)) groups.set(cmd.type, []);
      groups.get(cmd.type).push(cmd);
    }
    const order = [...groups.keys()].sort((a, b) => (a === page.concede) - (b === page.concede));
    const out = [];
    for (const type of order) {
      const cmds = groups.get(type);
      const danger = type === page.concede;
      if (cmds.length === 1 && !page.groupTitles[type]) {
        // Conceding asks for a second click, so a stray key press never ends a game.
        const onclick = danger
          ? (e) => { if (e.target.dataset.armed) send(cmds[0]); else { e.target.dataset.armed = "1"; e.target.textContent = "Really concede? Click again"; } }
          : () => send(cmds[0]);
        out.push(el("div", { class: `command${danger ? " danger" : ""}`, "data-type": type },
          el("button", { type: "button", "data-type": type, onclick }, label(page, cmds[0], view.seats))));
        continue;
      }
      const id = `choice-${type}`;
      const select = el("select", { id, name: type }, cmds.map((cmd, i) => el("option", { value: i }, label(page, cmd, view.seats))));
      out.push(el("form", { class: "command", "data-type": type, onsubmit: (e) => { e.preventDefault(); send(cmds[Number(select.value)]); } },
        el("label", { for: id }, page.groupTitles[type] || words(type)), " ", select, " ",
        el("button", { type: "submit", "data-type": type }, page.submitLabels[type] || "Go")));
    }
    if (!out.length) out.push(el("p", { class: "muted" }, view.status === "finished" ? "The game is over." : "Nothing to do: waiting for the other players."));
    return out;
  }

  // The game's nearest deadline (its page says which), counted down.
  function countdown(view) {
    const node = $("window");
    clearInterval(windowTimer);
    const { deadline, what } = PL.game(view.kind).countdown(view.view);
    if (!deadline || view.status !== "running") { node.hidden = true; return; }
    const tick = () => {
      const left = Math.max(0, deadline - Date.now() / 1000);
      node.textContent = `${what}: ${left.toFixed(0)} s left.`;
    };
    tick();
    node.hidden = false;
    windowTimer = setInterval(tick, 500);
  }

  function render(view) {
    current = view;
    const page = PL.game(view.kind);
    $("game-title").textContent = `· ${PL.gameTitle(view.kind)} · ${view.status}`;
    const open = view.status === "open";
    $("lobby").hidden = !open;
    $("table").hidden = open;
    $("controls").hidden = open;
    $("mine").hidden = open || !page.mine;
    $("replay-link").hidden = view.status !== "finished";
    if (open) {
      $("lobby-seats").replaceChildren(...view.seats.map((name, s) => el("li", {}, name == null ? `seat ${s}: free` : seatName(view.seats, s))));
      $("start").hidden = !tokens.get(`host:${gameId}`) || view.seats.some((n) => n == null);
      return;
    }
    $("table-view").replaceChildren(...Render.table(view.kind, view.view, view.seats, view));
    if (page.mine) $("mine-view").replaceChildren(...Render.mine(view.kind, view.view));
    const hadFocus = focusInControls() || (focusParked && document.activeElement === $("controls-title"));
    $("commands").replaceChildren(...controls(view));
    lockControls();
    if (hadFocus) keepFocus();
    countdown(view);
    $("status").textContent = view.status === "finished" ? `Game over. ${PL.outcomeText(view)}` : (view.view && page.activeSeat(view.view) === seat ? "Your turn." : "");
  }

  // Who looked: once at the start (a dispute of this seat's may have been read), then at the end.
  let looked = null;
  const refresh = PL.oneAtATime(async () => {
    try {
      const view = await api(`${base}/view`, { token });
      render(view);
      const finished = view.status === "finished";
      if (looked !== finished) { looked = finished; PL.whoLooked(gameId, token, finished); }
      if (connectionProblem && !PL.connection.isDown()) {
        connectionProblem = false;
        showProblem(problem, new Error("The connection is back. Your last move may not have reached the server: the game above is as it stands now; play the move again if it is not there."));
      }
    } catch (error) {
      if (error.code !== "unreachable") showProblem(problem, error);  // the banner says it
    }
  });
  PL.connection.whenLost(lockControls);
  PL.connection.whenBack(refresh);

  $("start").addEventListener("click", async () => {
    try {
      await api(`/games/${gameId}/start`, { method: "POST", token: tokens.get(`host:${gameId}`) });
      tokens.drop(`host:${gameId}`);
      refresh();
    } catch (error) { showProblem(problem, error); }
  });

  (async () => {
    await refresh();
    if (!current) return;
    const feed = $("feed");
    const disputes = SeatDisputes.mount({ gameId, seat, token, seats: () => current && current.seats });
    PL.connection.whenBack(() => disputes.refresh());
    followStream(`${base}/stream`, token, 0, (event) => {
      // Numbered by its seq: the number a dispute names it by.
      PL.appendToFeed(feed, el("li", { "data-seq": event.seq, value: event.seq }, describeEvent(event, current ? current.seats : null)));
      if (String(event.type).startsWith("dispute.")) { disputes.heardEvent(event); disputes.refresh(); PL.whoLooked(gameId, token, looked); }
      refresh();
    }, { onEnd: (error) => error && showProblem(problem, error) });
  })();
})();
