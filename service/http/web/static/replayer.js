// The replay viewer shared by /moderate and /replay: a slider and step buttons over the events,
// keyboard shortcuts, the state after each event, what it changed, the proofs, the transcript.
"use strict";

const Replayer = (() => {
  const { api, el, showProblem, words } = PL;
  const $ = (id) => document.getElementById(id);

  function stringify(value) {
    return typeof value === "string" ? value : JSON.stringify(value);
  }

  let current = null;  // the viewer on this page: { go(seq), seq() }

  // source: { count: how many events, eventAt(index) -> Promise<{seq, type, recorded_at, actor, data}>,
  //           indexOf(seq) -> index (-1: none), seats, kind, stateAt(seq, index) -> Promise<nodes>,
  //           changesAt(index) -> Promise<[{path, before, after}]> | null, proofs: audit | null,
  //           transcript: () -> Promise<string>, openAt: seq to open at (default: the last),
  //           marks: seqs to flag (a dispute's),
  //           said(event, index) -> Promise<words | null> (default: the game's words, null: none),
  //           heading(event, index) -> the line that numbers the event (default: the log's seq and type),
  //           byline(event) -> who and when, in words }
  function start(source) {
    const slider = $("seq");
    const count = source.count;
    const marks = new Set(source.marks || []);
    const opening = source.openAt != null ? source.indexOf(source.openAt) : -1;
    let index = opening >= 0 ? opening : count - 1;
    let shownEvent = null;
    let shown = 0;
    slider.min = 1;
    slider.max = count;
    $("replayer").hidden = false;

    async function show(i) {
      index = Math.max(0, Math.min(count - 1, i));
      slider.value = index + 1;
      const ticket = ++shown;
      let event;
      let changes;
      try {
        [event, changes] = await Promise.all([source.eventAt(index), source.changesAt ? source.changesAt(index) : null]);
      } catch (error) { showProblem($("problem"), error); return; }
      if (ticket !== shown) return;  // a later step is on its way
      let said;
      try { said = await (source.said ? source.said(event, index) : PL.describeMove(source.kind, event, source.seats)); } catch (error) { showProblem($("problem"), error); return; }
      if (ticket !== shown) return;
      shownEvent = event;
      const heading = source.heading ? source.heading(event, index) : `Event ${index + 1} of ${count} (seq ${event.seq}): ${words(event.type)}`;
      $("at").textContent = `${heading}${marks.has(event.seq) ? " · disputed" : ""}`;
      slider.setAttribute("aria-valuetext", `event ${index + 1} of ${count}`);
      const when = PL.when(event.recorded_at);
      $("event").replaceChildren(
        el("p", { class: said === null ? "muted" : null }, said ?? "Bookkeeping the table already shows: not in the move log."),
        el("p", { class: "muted" }, source.byline ? source.byline(event, when) : `By ${PL.actorText(event.actor, source.seats)} · at ${when}`),
      );
      $("changes-part").hidden = changes === null;
      $("changes").replaceChildren(...(changes || []).map((c) => el("li", {}, el("code", {}, c.path), `: ${stringify(c.before)} → ${stringify(c.after)}`)));
      try {
        const nodes = await source.stateAt(event.seq, index);
        if (ticket === shown) $("state").replaceChildren(...nodes);
      } catch (error) { showProblem($("problem"), error); }
    }

    slider.addEventListener("input", () => show(Number(slider.value) - 1));
    $("first").addEventListener("click", () => show(0));
    $("prev").addEventListener("click", () => show(index - 1));
    $("next").addEventListener("click", () => show(index + 1));
    $("last").addEventListener("click", () => show(count - 1));
    document.addEventListener("keydown", (e) => {
      if (e.target === slider || e.target.closest("input, select, textarea") || e.altKey || e.ctrlKey || e.metaKey) return;
      const moves = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: count - 1 };
      if (e.key in moves) { e.preventDefault(); show(moves[e.key]); }
    });

    if (source.proofs) {
      const p = source.proofs;
      $("proofs").hidden = false;
      $("chain").textContent = p.chain.ok
        ? `Hash chain verified: ${p.chain.events} events, last hash ${p.chain.last_hash.slice(0, 16)}…`
        : `Hash chain BROKEN at seq ${p.chain.first_bad_seq}: ${p.chain.reason}`;
      $("shuffles").replaceChildren(...p.shuffles.map((s) => el("li", {}, `Shuffle at seq ${s.seq} (${words(s.type)}): commitment ${s.commitment.slice(0, 16)}… ${s.valid ? "matches its revealed order" : "does NOT match"}`)));
    }
    if (source.transcript) {
      const link = $("transcript");
      source.transcript().then((text) => {
        link.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
        link.download = `${source.gameId}.txt`;
        link.hidden = false;
      }).catch(() => {});
    }
    current = {
      go: (seq) => show(source.indexOf(seq) >= 0 ? source.indexOf(seq) : index),
      seq: () => (shownEvent ? shownEvent.seq : null),
    };
    return show(index);
  }

  // Steps the page's viewer to ``seq``; the seq on screen (null before the viewer starts).
  const go = (seq) => current && current.go(seq);
  const seqShown = () => (current ? current.seq() : null);

  // Items by index, read a page at a time when first needed (``read(after, limit)``): a long
  // game costs what the viewer shows, not the whole log up front. A failed page is read again.
  const PAGE = 100;
  function paged(read) {
    const pages = new Map();
    return (index) => {
      const k = Math.floor(index / PAGE);
      if (!pages.has(k)) {
        const page = read(k * PAGE, PAGE);
        pages.set(k, page);
        page.catch(() => pages.delete(k));
      }
      return pages.get(k).then((items) => items[index - k * PAGE]);
    };
  }

  // The full, face-up replay from the audit endpoints (a moderator token, or none for a public
  // game that is over): every seq's complete state, the log and its changes read in pages.
  // ``why`` ({dispute} or {reason, note}) goes with every read: a moderator's reads are
  // recorded, and a running game's need it.
  // ``forPlayers``: a public replay (no moderator): each event in the game's words, numbered
  // without its type, and no state's raw changes.
  async function fromAudit(gameId, token, { openAt = null, marks = [], why = {}, forPlayers = false } = {}) {
    const base = `/games/${gameId}/audit`;
    const query = new URLSearchParams(Object.entries(why).filter(([, v]) => v));
    const q = (path, more = {}) => {
      const params = new URLSearchParams([...query, ...Object.entries(more)]).toString();
      return params ? `${base}${path}?${params}` : `${base}${path}`;
    };
    const [proofs, final] = await Promise.all([api(q("/"), { token }), api(q("/state"), { token })]);
    const seats = final.state.seats;
    const count = final.seq;  // the log's seqs run 1..count: event index i is seq i + 1
    const cache = new Map();
    return start({
      gameId,
      seats,
      kind: final.state.kind,
      // A moderator reads the log's seq, and beside it each seat's own number (what its page showed).
      heading: forPlayers ? (event, index) => `Event ${index + 1} of ${count}` : (event, index) => {
        const numbers = event.seatNumbers.map((n, s) => `${PL.seatName(seats, s)} ${n ?? "—"}`).join(", ");
        return `Event ${index + 1} of ${count} (seq ${event.seq}): ${words(event.type)}${numbers ? ` · seats' numbers: ${numbers}` : ""}`;
      },
      byline: forPlayers ? (event, when) => `At ${when}` : null,
      openAt,
      marks,
      count,
      indexOf: (seq) => (seq >= 1 && seq <= count ? seq - 1 : -1),
      eventAt: paged(async (after, limit) => (await api(q("/log", { after, limit }), { token }))
        .map((e) => ({ seq: e.seq, type: e.type, recorded_at: e.recorded_at, actor: e.metadata && e.metadata.actor, data: e.data, seatNumbers: e.seat_numbers || [] }))),
      changesAt: forPlayers ? null : (() => {
        const at = paged((after, limit) => api(q("/diffs", { after, limit }), { token }));
        return async (index) => (await at(index)).changes;
      })(),
      proofs,
      transcript: () => api(q("/transcript"), { token, headers: { Accept: "text/plain" } }),
      stateAt: async (seq) => {
        if (!cache.has(seq)) cache.set(seq, api(q("/state", { at: seq }), { token }));
        const at = (await cache.get(seq)).state;
        return [el("p", {}, `Status: ${at.status}`), ...Render.table(at.kind, at.game, at.seats, PL.auditOutcome(at))];
      },
    });
  }

  return { start, fromAudit, paged, go, seqShown };
})();
