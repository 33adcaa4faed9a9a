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
  // The seat's highest version this page was given (a view, a command's answer, a streamed
  // event's number), sent back as min_version: whichever instance answers a read, it shows at
  // least that much (read your writes, docs/api.md).
  let seen = 0;
  let busy = false;
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
  PL.receipts.offer(gameId, seat, token);

  // Focus stays on the control the player was on when the controls are built again (after
  // each action and each event), else on their heading, whose next Tab reaches the new first
  // control: never lost to the page's body.
  let focusKey = null;
  let focusParked = false;  // the focus left a control that was disabled or removed
  const keyOf = (node) => {
    const command = node.closest("[data-type]");
    return command ? `${command.dataset.type.replace(/:\d+$/, "")}|${node.tagName}` : null;
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
    if (locked) for (const node of $("commands").querySelectorAll("button, select")) node.disabled = true;
  }

  // An event in the game's words, with this seat as "you" (the shared words for the rest).
  function describe(event) {
    return current ? PL.describeMove(current.kind, event, current.seats, seat) : describeEvent(event, null);
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
      if (result.receipt) PL.receipts.keep(gameId, seat, result.receipt);
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

  // The game's own controls (its hand of cards), then a control for each other legal command.
  function controls(view) {
    const page = PL.game(view.kind);
    const legal = (view.view && view.view.legal_commands) || [];
    const out = [];
    const taken = new Set(page.hand ? page.handles : []);
    if (page.hand && view.view) out.push(...page.hand(view.view, legal, { send, redraw: () => render(current), who: (s) => seatName(view.seats, s), name: (s) => view.seats[s] ?? `seat ${s}`, el }));
    const groups = new Map();
    for (const cmd of legal) {
      if (taken.has(cmd.type) || cmd.type === page.concede) continue;
      if (!groups.has(cmd.type)) groups.set(cmd.type, []);
      groups.get(cmd.type).push(cmd);
    }
    const helped = new Set();
    for (const [type, cmds] of groups) {
      // A power's or a choice's short help, where the game's page has one (once, if choices share it).
      const text = page.help && page.help[type];
      const help = text && !helped.has(text) ? el("p", { class: "power-help" }, text) : null;
      if (text) helped.add(text);
      if (cmds.length === 1 && !page.groupTitles[type]) {
        out.push(el("div", { class: "command", "data-type": type },
          el("button", { type: "button", "data-type": type, onclick: () => send(cmds[0]) }, label(page, cmds[0], view.seats)), help));
        continue;
      }
      const id = `choice-${type}`;
      const select = el("select", { id, name: type }, cmds.map((cmd, i) => el("option", { value: i }, label(page, cmd, view.seats))));
      out.push(el("form", { class: "command", "data-type": type, onsubmit: (e) => { e.preventDefault(); send(cmds[Number(select.value)]); } },
        el("label", { for: id }, page.groupTitles[type] || words(type)), " ", select, " ",
        el("button", { type: "submit", "data-type": type }, page.submitLabels[type] || "Go"), help));
    }
    if (!legal.some((cmd) => cmd.type !== page.concede)) out.push(el("p", { class: "muted" }, view.status === "finished" ? "The game is over." : "Nothing to do: waiting for the other players."));
    return out;
  }

  // Conceding, away from the moves, asks for a confirmation: a stray click never ends a game.
  function leave(view) {
    const page = PL.game(view.kind);
    const cmd = ((view.view && view.view.legal_commands) || []).find((c) => c.type === page.concede);
    $("leave").hidden = !cmd;
    if (!cmd) { $("leave-controls").replaceChildren(); return; }
    if ($("leave-controls").childElementCount) return;  // an asked confirmation stays asked
    const ask = el("button", { type: "button", class: "danger-button" }, "Concede and leave…");
    const confirm = el("div", { class: "command danger", hidden: true },
      el("p", {}, "Really leave? You lose this game."),
      el("button", { type: "button", onclick: () => send(cmd) }, "Yes, concede and leave"),
      el("button", { type: "button", class: "quiet", onclick: () => { confirm.hidden = true; ask.hidden = false; ask.focus(); } }, "No, stay"));
    ask.addEventListener("click", () => { ask.hidden = true; confirm.hidden = false; confirm.querySelector("button").focus(); });
    $("leave-controls").replaceChildren(ask, confirm);
  }

  // Whose turn, in the page and in the tab's title; a sound on the player's turn if asked for.
  const sound = $("sound");
  sound.checked = localStorage.getItem("playlog:sound") === "on";
  sound.addEventListener("change", () => localStorage.setItem("playlog:sound", sound.checked ? "on" : "off"));
  let wasMyTurn = false;
  function chime() {
    try {
      const audio = new AudioContext();
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = 660;
      gain.gain.setValueAtTime(0.15, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
      tone.connect(gain).connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 0.4);
    } catch { /* no audio here: the banner and title still say it */ }
  }
  function turn(view) {
    const page = PL.game(view.kind);
    const legal = (view.view && view.view.legal_commands) || [];
    const active = view.view ? page.activeSeat(view.view) : null;
    // A reaction any player may make (a Nope) is not a turn: the countdown says it.
    const mine = view.status === "running" && legal.some((cmd) => cmd.type !== page.concede && !(page.reactions || []).includes(cmd.type));
    const banner = $("status");
    banner.classList.toggle("yours", mine);
    if (view.status === "finished") banner.textContent = `Game over. ${PL.outcomeText(view)}`;
    else if (mine) banner.textContent = active === seat ? "● Your turn" : "● Your move: the game waits for you";
    else if (view.status === "running" && active != null) banner.textContent = `Waiting for ${view.seats[active] ?? `seat ${active}`}`;
    else banner.textContent = "";
    document.title = `${mine ? "● Your turn — " : ""}playlog`;
    if (mine && !wasMyTurn && sound.checked) chime();
    wasMyTurn = mine;
  }

  // The game's nearest deadline, counted down (common.js).
  const countdown = PL.countdown();

  function render(view) {
    current = view;
    seen = Math.max(seen, view.version);
    const page = PL.game(view.kind);
    $("game-title").textContent = `· ${PL.gameTitle(view.kind)} · ${view.status}`;
    const open = view.status === "open";
    document.querySelector(".play").dataset.status = view.status;  // a finished game docks nothing
    $("lobby").hidden = !open;
    $("table").hidden = open;
    $("controls").hidden = open;
    $("mine").hidden = open || !page.mine;
    $("replay-link").hidden = view.status !== "finished";
    if (open) {
      $("lobby-seats").replaceChildren(...view.seats.map((name, s) => el("li", {}, name == null ? `seat ${s}: free` : seatName(view.seats, s))));
      // Anyone at the table may start once every seat is taken: a host who left strands nobody.
      const full = !view.seats.some((n) => n == null);
      $("start").hidden = !full;
      $("lobby-waiting").textContent = full
        ? "Every seat is taken: anyone at the table can start the game."
        : "The game can start once every seat is taken; then anyone at the table can start it.";
      $("lobby-clock").textContent = PL.clockText(view.clock);
      return;
    }
    if (view.seats[seat] != null) $("who").textContent = `${view.seats[seat]} · seat ${seat}`;
    $("table-view").replaceChildren(...Render.table(view.kind, view.view, view.seats, view, seat));
    if (page.mine) $("mine-view").replaceChildren(...Render.mine(view.kind, view.view, true));
    const hadFocus = focusInControls() || (focusParked && document.activeElement === $("controls-title"));
    $("commands").replaceChildren(...controls(view));
    leave(view);
    lockControls();
    if (hadFocus) keepFocus();
    countdown(view.kind, view.status, view.view);
    turn(view);
  }

  // Who looked: once at the start (a dispute of this seat's may have been read), then at the end.
  let looked = null;
  const refresh = PL.oneAtATime(async () => {
    try {
      const view = await api(`${base}/view?min_version=${seen}`, { token });
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
      await api(`/games/${gameId}/start`, { method: "POST", token: tokens.get(`host:${gameId}`) || token });
      tokens.drop(`host:${gameId}`);
      refresh();
    } catch (error) {
      if (error.code === "game_already_started") refresh();  // another player started it first
      else showProblem(problem, error);
    }
  });

  // On a phone the hand is docked at the bottom: the page keeps room for it below its end, and
  // the move log opens over the page as a drawer (the newest move stays in words in the dock).
  new ResizeObserver(() => document.documentElement.style.setProperty("--dock", `${$("controls").offsetHeight}px`)).observe($("controls"));
  const log = $("log");
  function drawer(open) {
    log.classList.toggle("open", open);
    $("log-open").setAttribute("aria-expanded", String(open));
    if (open) $("feed").focus(); else $("log-open").focus();
  }
  $("log-open").addEventListener("click", () => drawer(!log.classList.contains("open")));
  $("log-close").addEventListener("click", () => drawer(false));
  log.addEventListener("keydown", (e) => { if (e.key === "Escape" && log.classList.contains("open")) drawer(false); });

  // A moderator's question to this seat is said in the banner, whatever the page shows.
  function asked(questions) {
    $("asked").hidden = !questions.length;
    $("asked-text").textContent = questions.length ? `A moderator asks you: “${questions[questions.length - 1]}”` : "";
  }

  (async () => {
    await refresh();
    if (!current) return;
    const feed = $("feed");
    const disputes = SeatDisputes.mount({ gameId, seat, token, seats: () => current && current.seats, asked });
    PL.connection.whenBack(() => disputes.refresh());
    followStream(`${base}/stream?min_version=${seen}`, token, 0, (event) => {
      seen = Math.max(seen, event.seq);
      // Numbered by its seq: the number a dispute names it by.
      const said = describe(event);
      if (said !== null) {
        PL.appendToFeed(feed, el("li", { "data-seq": event.seq, value: event.seq }, said));
        $("latest").textContent = `${event.seq}. ${said}`;
      }
      if (String(event.type).startsWith("dispute.")) { disputes.heardEvent(event); disputes.refresh(); PL.whoLooked(gameId, token, looked); }
      refresh();
    }, { onEnd: (error) => error && showProblem(problem, error) });
  })();
})();
