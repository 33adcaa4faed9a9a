// Shared by every page: the JSON API, tokens kept per tab, safe DOM building, SSE over fetch.
// Everything a player typed is put in the page as text (textContent), never as HTML.
"use strict";

const PL = (() => {
  class Problem extends Error {
    constructor(status, body) {
      super((body && (body.detail || body.title)) || `HTTP ${status}`);
      this.status = status;
      this.code = (body && body.code) || String(status);
      this.errors = (body && Array.isArray(body.errors)) ? body.errors : [];
    }
  }

  // The server could not be reached (or answered that it cannot serve now): said in words.
  const UNREACHABLE = "The server cannot be reached: the connection is lost.";
  const unreachable = (status) => status === 502 || status === 503 || status === 504;

  async function api(path, { method = "GET", token = null, body = undefined, headers = {} } = {}) {
    const h = { Accept: "application/json", ...headers };
    if (token) h.Authorization = `Bearer ${token}`;
    if (body !== undefined) h["Content-Type"] = "application/json";
    let response;
    try {
      response = await fetch(path, {
        method, headers: h, body: body === undefined ? undefined : JSON.stringify(body),
        cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer",
      });
    } catch (error) {
      connection.lost();
      throw new Problem(0, { detail: UNREACHABLE, code: "unreachable" });
    }
    const type = response.headers.get("content-type") || "";
    let data = null;
    try { data = type.includes("json") ? await response.json() : await response.text(); } catch (error) { /* cut off */ }
    if (unreachable(response.status)) {
      connection.lost();
      throw new Problem(response.status, { detail: UNREACHABLE, code: (data && data.code) || "unreachable" });
    }
    connection.back();
    if (!response.ok) throw new Problem(response.status, typeof data === "object" ? data : null);
    return data;
  }

  // Waits between attempts to reach the server: doubling from half a second up to a cap, with
  // jitter (so pages cut off together do not come back in one burst); attempts never stop.
  const RETRY_CAP_MS = 8000;
  const backoff = (failures) => Math.min(RETRY_CAP_MS, 500 * 2 ** Math.min(failures, 10)) * (0.5 + Math.random() / 2);
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // The connection as every page shows it: a "Reconnecting…" banner while the server cannot be
  // reached, and when it can again, the pages' ``whenBack`` callbacks (each re-reads its view).
  // Each page also asks /readyz now and then meanwhile (a page may have no stream, or only its
  // requests may have failed).
  const connection = (() => {
    let down = false;
    let probing = false;
    const callbacks = [];
    const lostCallbacks = [];
    const banner = () => document.getElementById("connection");
    async function probe() {
      if (probing) return;
      probing = true;
      for (let failures = 0; down; failures += 1) {
        await sleep(backoff(failures));
        if (!down) break;
        try {
          if ((await fetch("/readyz", { cache: "no-store", credentials: "omit" })).ok) back();
        } catch (error) { /* still cut off */ }
      }
      probing = false;
    }
    function lost() {
      if (down) return;
      down = true;
      document.body.dataset.connection = "lost";
      const node = banner();
      if (node) node.replaceChildren(el("span", { class: "banner" }, "Reconnecting… The connection to the server is lost; this page will catch up by itself when it is back."));
      for (const callback of lostCallbacks) callback();
      probe();
    }
    function back() {
      if (!down) return;
      down = false;
      document.body.dataset.connection = "ok";
      const node = banner();
      if (node) node.replaceChildren();
      // A problem that only said the server could not be reached is stale once it can.
      for (const stale of document.querySelectorAll(".problem[data-code=unreachable]")) showProblem(stale, null);
      for (const callback of callbacks) callback();
    }
    return {
      lost, back,
      isDown: () => down,
      whenBack: (callback) => callbacks.push(callback),
      whenLost: (callback) => lostCallbacks.push(callback),
    };
  })();

  // Tokens live in sessionStorage: per browser tab, gone when the tab closes, never in a URL.
  const tokens = {
    get: (key) => sessionStorage.getItem(`playlog:${key}`),
    set: (key, value) => sessionStorage.setItem(`playlog:${key}`, value),
    drop: (key) => sessionStorage.removeItem(`playlog:${key}`),
  };
  const seatKey = (gameId, seat) => `seat:${gameId}:${seat}`;

  // A link may carry a token in its fragment (#token=...), which browsers never send to a server:
  // it is moved to this tab's storage and removed from the address bar at once.
  function adoptFragmentToken(key) {
    const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (!match) return;
    tokens.set(key, decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "class") node.className = value;
      else if (name === "text") node.textContent = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // A move log shows its newest entry: it follows the new entries unless the reader scrolled
  // up to read older ones.
  function appendToFeed(feed, item) {
    const following = feed.scrollHeight - feed.scrollTop - feed.clientHeight < 48;
    feed.append(item);
    if (following) feed.scrollTop = feed.scrollHeight;
  }

  // A refusal in a player's words: a form's field the server could not take is named with what
  // it accepts (never the server's pattern), a lobby refusal says what to do instead; any other
  // refusal shows the server's message and its code.
  const FIELD_WORDS = {
    name: "a name has 1 to 40 characters, not only spaces and no control characters",
    spectator_delay: "the spectator delay is a number of seconds within the allowed range",
    options: "the game's options are not all within their allowed values",
    kind: "this kind of game is not known",
    players: "the number of players is not allowed for this game",
  };
  const LOBBY_WORDS = {
    invalid_name: "Not accepted: a name has 1 to 40 characters, not only spaces and no control characters.",
    game_full: "This game is full: every seat is taken.",
    seats_not_filled: "Some seats are still free: the game starts once every seat is taken.",
    rate_limited: "Too many tries in a short time: wait a moment and try again.",
    invalid_options: "Not accepted: the game's options are not all within their allowed values; check them and try again.",
    invalid_spectator_delay: "Not accepted: the spectator delay is a number of seconds within the allowed range.",
    unknown_game_kind: "This kind of game is not known here: choose one from the list.",
    game_under_incident: "This game is stopped while a moderator looks into a problem with its log: try again later.",
  };
  function problemText(error, own = {}) {
    if (!(error instanceof Problem)) return String(error.message || error);
    if (own[error.code]) return own[error.code];
    if (LOBBY_WORDS[error.code]) return LOBBY_WORDS[error.code];
    if (error.code === "invalid_body" || error.code === "invalid_request" || /regex|Expected `/.test(error.message)) {
      // The field: an error's key, or the "at `$.name`" msgspec puts in its message.
      const found = [error.message, ...error.errors.map((e) => `${e.message || ""} ${e.key ? `at \`$.${e.key}\`` : ""}`)]
        .flatMap((text) => [...String(text).matchAll(/at `\$\.([A-Za-z_][\w.]*)`/g)].map((m) => m[1].replace(/^.*\./, "")));
      const keys = [...new Set(found)].filter((k) => k !== "body");
      const said = keys.map((k) => FIELD_WORDS[k] || `check ${words(k)}`);
      return said.length ? `Not accepted: ${said.join("; ")}.` : "Not accepted: check the form's values and try again.";
    }
    return `${error.message} (${error.code})`;
  }

  // ``own``: a page's own words for some codes (code -> text).
  function showProblem(node, error, own = {}) {
    if (!node) return;
    delete node.dataset.code;
    if (!error) { node.hidden = true; node.textContent = ""; return; }
    if (error instanceof Problem) node.dataset.code = error.code;
    node.textContent = problemText(error, own);
    node.hidden = false;
  }

  // Each stream event asks for a refresh, and answers can come back out of order: run ``load``
  // one at a time, once more if asked meanwhile, so an older answer never shows over a newer one.
  function oneAtATime(load) {
    let running = null;
    return async function run() {
      if (running) { running.again = true; return; }
      running = { again: false };
      try {
        do { running.again = false; await load(); } while (running.again);
      } finally { running = null; }
    };
  }

  // Server-sent events read with fetch, so the seat token goes in the Authorization header
  // (EventSource cannot send one, and a token in a URL ends up in logs and histories).
  function followStream(path, token, lastId, onEvent, { onEnd = () => {}, signal } = {}) {
    let last = lastId;
    let stopped = false;
    signal && signal.addEventListener("abort", () => { stopped = true; });
    async function once() {
      const headers = { Accept: "text/event-stream" };
      if (token) headers.Authorization = `Bearer ${token}`;
      if (last !== null && last !== undefined) headers["Last-Event-ID"] = String(last);
      const response = await fetch(path, { headers, cache: "no-store", credentials: "omit", signal });
      if (unreachable(response.status)) throw new Problem(response.status, null);
      if (!response.ok) {
        let body = null;
        try { body = await response.json(); } catch (e) { /* not json */ }
        throw new Problem(response.status, body);
      }
      connection.back();
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let id = null; let data = "";
          for (const line of block.split("\n")) {
            if (line.startsWith("id:")) id = line.slice(3).trim();
            else if (line.startsWith("data:")) data += (data ? "\n" : "") + line.slice(5).replace(/^ /, "");
          }
          if (id === null) continue; // a seat stream's receipt (no id): not an event
          last = Number(id);
          if (data) onEvent(JSON.parse(data), last);
        }
      }
    }
    // Any failure but a refusal (4xx: the token or the game is gone) is retried, for good.
    (async () => {
      let failures = 0;
      while (!stopped) {
        try { await once(); failures = 0; } catch (error) {
          if (stopped) return;
          if (error instanceof Problem && error.status >= 400 && error.status < 500) { onEnd(error); return; }
          connection.lost();
          failures += 1;
        }
        if (!stopped) await sleep(failures ? backoff(failures - 1) : 500);
      }
    })();
  }

  const LOBBY = {
    "lobby.created": "game created", "lobby.joined": "took a seat", "lobby.left": "left", "lobby.started": "game started",
    "lobby.timed_out": "ran out of time", "lobby.back": "back at the table", "lobby.closed": "lobby closed",
  };
  const DISPUTE = {
    "dispute.raised": "raised a dispute", "dispute.claimed": "a moderator took up a dispute",
    "dispute.released": "a moderator put a dispute back in the queue", "dispute.noted": "a moderator noted a dispute",
    "dispute.asked": "was asked a question by a moderator", "dispute.answered": "answered a moderator's question",
    "dispute.resolved": "a moderator ruled on a dispute",
  };
  const words = (type) => LOBBY[type] || DISPUTE[type] || type.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();
  const seatName = (seats, seat) => (seats && seats[seat] != null ? `${seats[seat]} (seat ${seat})` : `seat ${seat}`);

  // One event in words: who, what, and the cards or tokens it names (hidden ones as "a card").
  function describeEvent(event, seats) {
    const data = event.data || {};
    if (event.type === "dispute.resolved") return `${words(event.type)}: ${verdictText(data, seats)}`;
    if (String(event.type).startsWith("dispute.")) {
      const who = ["dispute.raised", "dispute.asked", "dispute.answered"].includes(event.type) && typeof data.seat === "number";
      if (!who && event.type !== "dispute.raised" && event.type !== "dispute.asked" && event.type !== "dispute.answered") return words(event.type);
      return `${who ? seatName(seats, data.seat) : "a player"} ${words(event.type)}`;
    }
    if (event.type === "lobby.joined" && typeof data.name === "string") return `${data.name} took seat ${data.seat}`;
    // The seeds the shuffles came from, in words: what they let anyone check.
    if (event.type === "lobby.seed_revealed") return `${seatName(seats, data.seat)}'s seed for the shuffles is revealed`;
    if (event.type === "lobby.seed_disclosed") return "The server's seed is disclosed: anyone can now check every shuffle of this game";
    if (event.type === "lobby.erased") return "A player's name was erased at their request";
    if (event.type === "lobby.left" && typeof data.seat === "number") return `${seatName(seats, data.seat)} left the lobby`;
    const clocked = clockEvent(event, seats);
    if (clocked) return clocked;
    const who = data.seat ?? data.actor ?? data.by;
    const parts = [];
    if (typeof who === "number") parts.push(seatName(seats, who));
    parts.push(words(event.type || data.type || "event"));
    if ("name" in data && typeof data.name === "string") parts.push(`“${data.name}”`);
    const detail = [];
    for (const key of ["card", "cards", "named", "token", "tokens", "order", "position", "target", "from_seat", "to_seat", "with_seat", "winner", "winners"]) {
      if (!(key in data) || data[key] === null || data[key] === undefined) {
        if (key === "card" && "card" in data) detail.push("a card");
        continue;
      }
      let value = data[key];
      if (["target", "from_seat", "to_seat", "with_seat", "winner"].includes(key)) value = seatName(seats, value);
      else if (key === "winners" && Array.isArray(value)) value = value.map((s) => seatName(seats, s)).join(", ");
      else if (Array.isArray(value)) value = value.join(", ");
      detail.push(`${words(key)}: ${value}`);
    }
    return detail.length ? `${parts.join(" ")} — ${detail.join("; ")}` : parts.join(" ");
  }

  // The clock's events (domain/table/clock.py) in words.
  function clockEvent(event, seats) {
    const data = event.data || {};
    const who = typeof data.seat === "number" ? seatName(seats, data.seat) : "a player";
    if (event.type === "lobby.timed_out") {
      return data.removed
        ? `${who} ran out of time ${data.in_a_row} times in a row and is removed from the game: the others play on`
        : `${who} ran out of time${data.in_a_row > 1 ? ` (${data.in_a_row} times in a row)` : ""}: the server plays their move`;
    }
    if (event.type === "lobby.back") return `${who} is back: their timeouts in a row start over`;
    if (event.type === "lobby.closed") return "The lobby closed: the game was not started in time";
    return null;
  }

  // A length of time in words: "1 minute", "90 seconds", "1 day".
  function duration(seconds) {
    const unit = [[86400, "day"], [3600, "hour"], [60, "minute"]].find(([size]) => seconds >= size && seconds % size === 0);
    const [count, name] = unit ? [seconds / unit[0], unit[1]] : [seconds, "second"];
    return `${count} ${name}${count === 1 ? "" : "s"}`;
  }

  // The table's clock (a seat view's ``clock``, absent when it has none) in a player's words.
  function clockText(clock) {
    if (!clock || !clock.decision_timeout) return "No clock: the game waits for every player, however long they take.";
    const parts = [`Clock: ${duration(clock.decision_timeout)} a move. When a player's time runs out, the server plays the rules' default move for them.`];
    if (clock.timeouts_to_remove) parts.push(`A player whose time runs out ${clock.timeouts_to_remove} times in a row is removed, and the others play on.`);
    if (clock.lobby_closes_at) {
      const at = new Date(clock.lobby_closes_at * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
      parts.push(`This lobby closes at ${at} unless the game has started.`);
    }
    return parts.join(" ");
  }

  // A game's nearest deadline (its page says which), counted down in the page's #window: the bar
  // empties as time runs out; a screen reader hears it at the start, then at 10 and 5 s. ``lag``:
  // how far behind the players the page shows the game (a spectator's delay), so the clock reads
  // as it stood at the moment shown.
  function countdown() {
    let timer = null;
    let counted = null;
    const $ = (id) => document.getElementById(id);
    return (kind, status, view, lag = 0) => {
      const node = $("window");
      clearInterval(timer);
      const { deadline, what } = view && game(kind).countdown ? game(kind).countdown(view) : {};
      if (!deadline || status !== "running") { node.hidden = true; counted = null; return; }
      const now = () => Date.now() / 1000 - lag;
      if (!counted || counted.deadline !== deadline) counted = { deadline, length: Math.max(1, deadline - now()), said: null };
      const tick = () => {
        const left = Math.max(0, deadline - now());
        $("window-what").textContent = `${what}: ${left.toFixed(0)} s left.`;
        $("window-bar").style.width = `${Math.min(100, (100 * left) / counted.length)}%`;
        const step = counted.said == null ? Math.round(left) : [10, 5].find((s) => left <= s && counted.said > s);
        if (step != null) { counted.said = step; $("window-said").textContent = `${what}: ${step} seconds left.`; }
      };
      tick();
      node.hidden = false;
      timer = setInterval(tick, 500);
    };
  }

  // An event as the game's page says it (``me``: the seat that reads it, said "you"), else in
  // the shared words above; ``null``: bookkeeping the table already shows, said nowhere.
  function describeMove(kind, event, seats, me = null) {
    const page = pages[kind];
    const who = (s) => (s === me ? "you" : (seats && seats[s]) ?? `seat ${s}`);
    const said = page && page.describe ? page.describe(event, who) : undefined;
    return said === undefined ? describeEvent(event, seats) : said;
  }

  // Disputes, as the seat pages and the moderator pages both show them (texts as text only).
  // A time in seconds since the epoch, or an ISO string (the queue's).
  const when = (t) => (t ? new Date(typeof t === "number" ? t * 1000 : t).toISOString().replace("T", " ").replace(/\..*/, " UTC") : "");
  // How long ago, in words ("just now", "5 min ago", "3 h ago", "2 days ago").
  function age(t) {
    const seconds = Date.now() / 1000 - (typeof t === "number" ? t : Date.parse(t) / 1000);
    if (seconds < 60) return "just now";
    if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
    if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
    const days = Math.floor(seconds / 86400);
    return `${days} day${days === 1 ? "" : "s"} ago`;
  }
  const seatList = (seats, list) => (list || []).map((s) => seatName(seats, s)).join(", ") || "nobody";
  const DISPUTE_STATUS = { open: "waiting for a moderator", claimed: "under review", resolved: "resolved" };
  const disputeStatus = (status) => DISPUTE_STATUS[status] || words(status || "");

  function verdictText(v, seats) {
    if (!v) return "";
    let ruling;
    if (v.verdict === "dismissed") ruling = "Dismissed";
    else if (v.action === "void") ruling = "Upheld: the game counts for nobody";
    else if (v.action === "award") ruling = `Upheld: the win goes to ${seatList(seats, v.seats)}`;
    else if (v.action === "penalize") ruling = `Upheld: a penalty for ${seatList(seats, v.seats)}`;
    else ruling = "Upheld, with no change to the game";
    const by = v.moderator ? ` (${v.moderator}, ${when(v.at)})` : "";
    return `${ruling}${by}${v.explanation ? `. ${v.explanation}` : ""}`;
  }

  // Who made an event happen (the log's ``actor``), in words: "seat:2" is never shown raw.
  function actorText(actor, seats) {
    const seat = /^seat:(\d+)$/.exec(actor || "");
    if (seat) return seatName(seats, Number(seat[1]));
    const moderator = /^moderator:(.+)$/.exec(actor || "");
    if (moderator) return `moderator ${moderator[1]}`;
    return { host: "the game's host", lobby: "a player in the lobby", server: "the server (a deadline passed)" }[actor] || actor || "—";
  }

  const ACTS = { raised: "raised the dispute", claimed: "claimed it", released: "released it", noted: "noted", asked: "asked", answered: "answered", resolved: "ruled" };
  // One history entry in words: "[time] who did what: text".
  function historyText(h, seats) {
    const type = String(h.type || "").replace(/^dispute\./, "");
    const target = typeof h.seat === "number" ? seatName(seats, h.seat) : null;
    const seatBy = /^seat:(\d+)$/.exec(h.by || "");  // a seat acted: "seat:N"
    const who = seatBy ? seatName(seats, Number(seatBy[1])) : h.by || "someone";
    const whom = type === "asked" && target ? ` ${target}` : "";
    return `${when(h.at)} · ${who} ${ACTS[type] || words(type)}${whom}${h.text ? `: ${h.text}` : ""}`;
  }

  // Who won as every reader should count it: a moderator's ruling (ruled_outcome) over the
  // original, which is named only as "(originally …)". ``game``: a seat's view, a spectator's
  // snapshot or a game's summary ({seats, winners or outcome, ruled_outcome}).
  function outcomeText(game) {
    const names = (winners) => (winners || []).map((s) => seatName(game.seats, s)).join(", ") || "none";
    const ruled = game.ruled_outcome;
    if (!ruled) return `Winner: ${names(game.winners || (game.outcome && game.outcome.winners))}.`;
    const original = game.outcome ? game.outcome.winners : game.winners;
    const winner = ruled.winners.length ? names(ruled.winners) : "nobody (the game was voided)";
    return `Winner as ruled by a moderator: ${winner} (originally: ${names(original)}).`;
  }
  const isOver = (game) => Boolean(game && (game.ruled_outcome || game.winners || game.outcome));
  // The outcome part of an audit's state (its ``ruled_winners`` once a ruling changed it).
  const auditOutcome = (state) => ({
    seats: state.seats, winners: state.winners,
    ruled_outcome: state.ruled_winners != null ? { winners: state.ruled_winners } : null,
  });

  // A copy button for the link in a read-only field; ``said`` tells in words whether it copied.
  function copyButton(field, button, said) {
    button.addEventListener("click", async () => {
      field.select();
      let copied = false;
      try { await navigator.clipboard.writeText(field.value); copied = true; } catch (error) {
        try { copied = document.execCommand("copy"); } catch (ignored) { /* no clipboard here */ }
      }
      said.textContent = copied ? "Copied." : "Select the link and copy it (this browser refused).";
    });
  }

  // Each game's page (domain/<game>/page/page.js, served as /static/games/<kind>.js) registers how its
  // views, commands and options look; these pages name no game. Titles come from the server.
  const pages = {};
  const registerGame = (kind, page) => { pages[kind] = page; };
  const game = (kind) => pages[kind] || { table: () => [], mine: null, label: () => null, groupTitles: {}, submitLabels: {} };
  const gameTitle = (kind) => JSON.parse(document.body.dataset.kinds || "{}")[kind] || kind;


  // A moderator page: the moderator token, entered once per tab (or handed over in the URL's
  // fragment), opens it; ``show(token)`` renders the page and ``hide()`` clears it again when the
  // token is refused, which also forgets the token. Without a token the page shows nothing.
  function moderatorGate(form, problem, show, hide) {
    adoptFragmentToken("moderator");
    async function open(token) {
      try {
        await show(token);
        form.hidden = true;
      } catch (error) {
        hide();
        if (error.status === 401 || error.status === 403) tokens.drop("moderator");
        showProblem(problem, error);
        form.hidden = false;
      }
    }
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const token = form.elements.token.value.trim();
      form.elements.token.value = "";
      tokens.set("moderator", token);
      showProblem(problem, null);
      open(token);
    });
    const stored = tokens.get("moderator");
    if (stored) open(stored); else form.hidden = false;
  }

  // "Who looked at this game": the moderators' face-up reads a seat may list (GET .../access),
  // each range numbered as this seat saw the game. Shown once there is something to show, or the
  // game is over (then "nobody" is news too); hidden when the token may not list them.
  const READS = {
    auditLog: "the full log", auditState: "the state at an event", auditDiffs: "every change", auditTranscript: "the transcript",
    auditGame: "the shuffle proofs", verifyChain: "the hash chain", exportGame: "an export", getDispute: "a dispute's events",
  };
  async function whoLooked(gameId, token, finished) {
    const section = document.getElementById("who-looked");
    if (!section || !token) return;
    let items;
    try {
      // Every page, by each page's `next` (the list is in pages, docs/api.md "Pages").
      let page = await api(`/games/${gameId}/access?limit=200`, { token });
      items = page.items;
      while (page.next) { page = await api(page.next, { token }); items = items.concat(page.items); }
    } catch { section.hidden = true; return; }
    const why = (r) => (r.reason === "dispute" ? "for a dispute" : r.reason === "after_end" ? "after the end" : words(r.reason));
    document.getElementById("who-looked-list").replaceChildren(...(items.length ? items.map((r) => el("li", {},
      `${when(r.at)}: ${r.moderator} read ${READS[r.operation] || words(r.operation)}`,
      ` (events ${r.seq_from}–${r.seq_to}), ${why(r)}`, r.note ? el("q", { class: "typed" }, r.note) : "")) : [el("li", { class: "muted" }, "Nobody.")]));
    section.hidden = !items.length && !finished;
  }

  return {
    api, Problem, tokens, appendToFeed, seatKey, adoptFragmentToken, el, showProblem, oneAtATime, followStream, describeEvent, describeMove, words, seatName,
    when, age, actorText, disputeStatus, verdictText, historyText, outcomeText, isOver, auditOutcome, copyButton, connection,
    registerGame, game, gameTitle, moderatorGate, whoLooked, clockText, countdown,
  };
})();
