// The watch page: the public table as of spectator_delay ago. It follows the game's published
// head (cacheable for a second) and reads the full chunks it names (immutable, from any cache),
// checking each against the spectators' hash chain (docs/chunks.md): an altered chunk is refused
// with a warning and the page stops following. Without WebCrypto (a page not served over HTTPS or
// from localhost) it reads the delayed stream instead.
"use strict";

(() => {
  const { api, el, showProblem, seatName } = PL;
  const gameId = document.getElementById("main").dataset.gameId;
  const $ = (id) => document.getElementById(id);
  const POLL_MS = 1000;
  let snapshot = null;
  // The clock as it stood at the moment shown (common.js): the spectator delay behind the players.
  const countdown = PL.countdown();

  // The delay in words: what it is and why there is one.
  function delayText(delay) {
    if (!(delay > 0)) return "You are watching live: each move shows here as it is played.";
    const s = Math.round(delay);
    return `You are watching ${s} s behind the players: each move shows here ${s} seconds after it is played, so that nobody at the table can learn from this page what the others do.`;
  }

  // Before the first move reaches this page (the game may have started up to the delay ago):
  // the seats around the table, and when the game will show.
  function seatsBeforeTheStart(snap) {
    const taken = snap.seats.filter((n) => n != null).length;
    const delay = Math.round(snap.spectator_delay);
    const seats = `${taken} of ${snap.seats.length} seats taken`;
    const said = delay > 0
      ? `Waiting for the start (as the table stood ${delay} s ago): ${seats}. The game shows here ${delay} s after the players start it.`
      : `Waiting for the start: ${seats}. The game shows here as soon as the players start it.`;
    return [
      el("p", {}, said),
      Render.seatsTable(snap.seats.map((name, s) => [`Seat ${s}`, name == null ? "free" : name]), ["Seat", "Player"]),
    ];
  }

  function render(snap) {
    snapshot = snap;
    $("game-title").textContent = `· ${PL.gameTitle(snap.kind)} · ${snap.seats.map((n, s) => seatName(snap.seats, s)).join(" vs ")}`;
    $("delay").textContent = delayText(snap.spectator_delay);
    $("table-view").replaceChildren(...(snap.view ? Render.table(snap.kind, snap.view, snap.seats, snap) : seatsBeforeTheStart(snap)));
    const over = snap.status === "finished";
    $("result").hidden = !over;
    $("replay-link").hidden = !over;
    if (over) $("result").textContent = `Game over. ${PL.outcomeText(snap)}`;
    countdown(snap.kind, snap.status, snap.view, snap.spectator_delay || 0);
  }

  // Spectators read of a dispute that it is under review, then its verdict (after the delay).
  function disputes(items, seats) {
    $("disputes-note").hidden = !items.length;
    $("disputes-note").replaceChildren(...items.map((d) => el("li", { class: "dispute" },
      d.verdict ? `A dispute was ruled: ${PL.verdictText(d.verdict, seats)}` : "A dispute about this game is under review.")));
  }

  function show(event) {
    const said = PL.describeMove(snapshot.kind, event, snapshot.seats);
    // Numbered as spectators number the game (RULES 3: each viewer has its own numbers).
    if (said !== null) PL.appendToFeed($("feed"), el("li", { "data-seq": event.seq, value: event.seq }, said));
  }

  // -- the chain: hashAfter[n] is the hash after the spectators' event n (0: the game's genesis)
  const utf8 = new TextEncoder();
  const hex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
  const unhex = (text) => new Uint8Array(text.match(/../g).map((h) => parseInt(h, 16)));
  async function sha256(...parts) {
    const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) { joined.set(p, at); at += p.length; }
    return hex(await crypto.subtle.digest("SHA-256", joined));
  }
  // Compact JSON (as served) read as its own text: where the value at text[at] ends, and the
  // members of an object, each as [name, the key's text, the value's text].
  function skip(text, at) {
    const c = text[at];
    if (c === '"') {
      at += 1;
      while (text[at] !== '"') at += text[at] === "\\" ? 2 : 1;
      return at + 1;
    }
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      at += 1;
      while (text[at] !== close) {
        at = skip(text, at);
        if (text[at] === ":") at = skip(text, at + 1);
        if (text[at] === ",") at += 1;
      }
      return at + 1;
    }
    while (at < text.length && !",}]".includes(text[at])) at += 1;
    return at;
  }
  function members(text) {
    const out = [];
    for (let at = 1; text[at] !== "}";) {
      const keyEnd = skip(text, at), valueEnd = skip(text, keyEnd + 1);
      out.push([JSON.parse(text.slice(at, keyEnd)), text.slice(at, keyEnd), text.slice(keyEnd + 1, valueEnd)]);
      at = text[valueEnd] === "," ? valueEnd + 1 : valueEnd;
    }
    return out;
  }
  const object = (items) => `{${items.map(([, key, value]) => `${key}:${value}`).join(",")}}`;

  // What a link's hash covers of an event's text (docs/chunks.md): the text, or for an event
  // whose data carries opened words (its `sealed` member), the text with each opened field of the
  // data back to its seal and `sealed` dropped, every other byte as served: the chain then holds
  // across an erasure, which changes the words shown but not the seals.
  function hashedText(text) {
    if (!text.includes('"sealed":')) return text;
    const data = JSON.parse(text).data;
    const seals = data !== null && typeof data === "object" && !Array.isArray(data) ? data.sealed : undefined;
    if (seals === undefined) return text;
    if (seals === null || typeof seals !== "object" || Array.isArray(seals)) return text;
    return object(members(text).map(([name, key, value]) => name !== "data" ? [name, key, value] : [name, key, object(
      members(value).filter(([field]) => field !== "sealed")
        .map(([field, k, v]) => [field, k, Object.hasOwn(seals, field) ? JSON.stringify(seals[field]) : v]))]));
  }
  const hashAfter = [];
  let shown = 0;  // the spectators' events on the page
  let refused = false;

  class Altered extends Error {}

  // Events ``start``.. of a chunk or the tail: each must chain from what came before, as listed.
  async function take(start, prev, events, hashes) {
    if (hashAfter[start - 1] !== prev || events.length !== hashes.length) throw new Altered();
    let hash = prev;
    for (let i = 0; i < events.length; i++) {
      const number = start + i;
      hash = await sha256(unhex(hash), utf8.encode(hashedText(events[i])));
      const event = JSON.parse(events[i]);
      if (hash !== hashes[i] || event.seq !== number) throw new Altered();
      if (hashAfter[number] !== undefined && hashAfter[number] !== hash) throw new Altered();
      hashAfter[number] = hash;
      if (number > shown) { shown = number; show(event); }
    }
    return hash;
  }

  function refuse() {
    refused = true;
    $("problem").textContent = "What was received does not match the game's published chain (a cache may have altered it): this page stopped following the game.";
    $("problem").hidden = false;
  }

  const follow = PL.oneAtATime(async () => {
    if (refused) return;
    try {
      const head = await api(`/games/${gameId}/spectate/head`);
      if (hashAfter[0] === undefined) hashAfter[0] = await sha256(utf8.encode(`playlog/spectator/v1 ${gameId}`));
      render({ ...head.summary, spectator_delay: head.spectator_delay });  // the seats' names first
      const size = head.chunk_events;
      const tail = head.tail;  // from the last full chunk's first event: chunks before it are read
      if ((tail.start - 1) % size || tail.start - 1 > head.chunks * size) throw new Altered();
      for (let k = Math.floor(shown / size); k * size < tail.start - 1; k++) {
        const start = k * size + 1;
        let chunk;
        try {
          chunk = await api(`/games/${gameId}/spectate/chunks/${start}-${start + size - 1}`);
        } catch (error) {
          if (error.status === 404) return;  // a cache's copy from before its release: next poll
          throw error;
        }
        if (chunk.start !== start || chunk.end !== start + size - 1) throw new Altered();
        await take(start, chunk.prev, chunk.events, chunk.hashes);
      }
      if (await take(tail.start, tail.prev, tail.events, tail.hashes) !== head.head) throw new Altered();
      disputes((await api(`/games/${gameId}/disputes`)).items, snapshot.seats);
      showProblem($("problem"), null);
    } catch (error) {
      if (error instanceof Altered) refuse();
      else if (error.code !== "unreachable") showProblem($("problem"), error);  // the banner says it
    }
  });

  // -- without WebCrypto: the snapshot, advanced by the delayed stream
  const refresh = PL.oneAtATime(async () => {
    try {
      const snap = await api(`/games/${gameId}/spectate`);
      render(snap);
      disputes((await api(`/games/${gameId}/disputes`)).items, snap.seats);
      showProblem($("problem"), null);
    } catch (error) {
      if (error.code !== "unreachable") showProblem($("problem"), error);
    }
  });

  if (window.crypto && crypto.subtle) {
    PL.connection.whenBack(follow);
    (async function poll() {
      await follow();
      if (!refused) setTimeout(poll, POLL_MS);
    })();
    return;
  }
  PL.connection.whenBack(refresh);
  (async () => {
    await refresh();
    if (!snapshot) return;
    // The public stream's events are named by type, which EventSource can only follow one name
    // at a time: read it with fetch.
    PL.followStream(`/games/${gameId}/spectate/stream`, null, 0, (event) => {
      show(event);
      refresh();
    }, { onEnd: (error) => error && showProblem($("problem"), error) });
  })();
})();
