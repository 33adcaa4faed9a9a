// The moderators' dispute queue, oldest first. Filters and the page's cursor live in the URL's
// query (never the token); without a moderator token in this tab the page shows no dispute.
"use strict";

(() => {
  const { api, el, showProblem, words, disputeStatus, when, age } = PL;
  const $ = (id) => document.getElementById(id);
  const form = $("token-form");
  const problem = $("problem");
  const filters = $("filters");
  const params = new URLSearchParams(location.search);
  const PAGE = 20;

  for (const name of ["status", "kind", "category"]) {
    if (params.get(name)) filters.elements[name].value = params.get(name);
  }
  const kindTitle = (kind) => {
    const option = [...$("filter-kind").options].find((o) => o.value === kind);
    return option ? option.textContent : kind;
  };

  let token = null;

  // An open dispute can be claimed from the queue, and the work goes on on its page (the queue
  // itself is a read model, a moment behind the log).
  async function claim(d) {
    showProblem(problem, null);
    try {
      await api(`/moderation/disputes/${d.dispute_id}/claim`, { method: "POST", token, headers: { "Idempotency-Key": crypto.randomUUID() } });
      location.assign(`/moderate/disputes/${d.dispute_id}`);
    } catch (error) { showProblem(problem, error); }
  }

  // What the queue's rows do not carry, read per game (neither read is a face-up one): the
  // players' names and each dispute's reason. Names are fixed once a game runs and a reason never
  // changes, so a game is read again only for a dispute it has not shown yet.
  const games = new Map();  // game id -> { seats, reasons: Map(dispute id -> reason) }
  async function gameFacts(gameId, disputeIds) {
    const known = games.get(gameId);
    if (known && disputeIds.every((id) => known.reasons.has(id))) return;
    try {
      const [game, list] = await Promise.all([api(`/games/${gameId}`, { token }), api(`/games/${gameId}/disputes`, { token })]);
      games.set(gameId, { seats: game.seats, reasons: new Map(list.items.map((d) => [d.dispute_id, d.reason])) });
    } catch (error) {
      if (!known) games.set(gameId, { seats: null, reasons: new Map() });  // the row says less
    }
  }
  const SNIPPET = 90;
  const snippet = (text) => (text.length > SNIPPET ? `${text.slice(0, SNIPPET - 1)}…` : text);

  function row(d) {
    const title = `${words(d.category || "other")} dispute`;
    const facts = games.get(d.game_id) || { seats: null, reasons: new Map() };
    const players = facts.seats ? facts.seats.map((n, s) => PL.seatName(facts.seats, s)).join(" vs ") : `game ${d.game_id.slice(0, 8)}`;
    const reason = facts.reasons.get(d.dispute_id);
    return el("li", { class: "game dispute", "data-dispute-id": d.dispute_id, "data-status": d.status },
      el("a", { href: `/moderate/disputes/${d.dispute_id}` }, title),
      el("span", { class: "kind" }, d.kind ? kindTitle(d.kind) : "a game", ": ", el("a", { href: `/moderate/${d.game_id}` }, players)),
      el("span", { class: "status" }, disputeStatus(d.status), d.claimed_by ? ` by ${d.claimed_by}` : ""),
      d.verdict ? el("span", {}, `${d.verdict}${d.action && d.action !== "none" ? ` (${d.action})` : ""}`) : null,
      el("span", {}, "raised ", el("time", { datetime: d.raised_at, title: when(d.raised_at) }, age(d.raised_at)),
        d.seat != null ? ` by ${facts.seats ? PL.seatName(facts.seats, d.seat) : `seat ${d.seat}`}` : " (a review)"),
      reason ? el("q", { class: "typed reason" }, snippet(reason)) : null,
      d.status === "open" ? el("button", { type: "button", "aria-label": `Claim the ${title} raised ${when(d.raised_at)}`, onclick: () => claim(d) }, "Claim") : null);
  }

  // A game whose log lacks acknowledged moves takes no command until a moderator clears it.
  async function clearIncident(i, note) {
    showProblem(problem, null);
    try {
      await api(`/moderation/incidents/${i.game_id}/clear`, { method: "POST", token, body: { note } });
      await loadIncidents();
    } catch (error) { showProblem(problem, error); }
  }

  function incidentRow(i) {
    const note = el("input", { type: "text", name: "note", required: true, maxlength: "1000", "aria-label": `What you found in game ${i.game_id}` });
    return el("li", { class: "game incident", "data-game-id": i.game_id },
      el("a", { href: `/moderate/${i.game_id}` }, `Game ${i.game_id.slice(0, 8)}`),
      el("span", { class: "status" }, words(i.reason)),
      el("span", {}, `seqs ${i.log_seq + 1} to ${i.acknowledged_seq} missing`),
      el("span", {}, `raised ${when(i.raised_at)}`),
      el("form", { class: "inline", onsubmit: (e) => { e.preventDefault(); clearIncident(i, note.value); } },
        note, el("button", { type: "submit" }, "Clear")));
  }

  let shownIncidents = null;
  async function loadIncidents() {
    const { items } = await api("/moderation/incidents", { token });
    const fresh = JSON.stringify(items);
    if (fresh === shownIncidents) return;  // unchanged: leave a note being typed alone
    shownIncidents = fresh;
    $("incident-list").replaceChildren(...items.map(incidentRow));
    $("incidents").hidden = items.length === 0;
  }

  function pageLink(node, cursor) {
    const query = new URLSearchParams(params);
    if (cursor) query.set("cursor", cursor); else query.delete("cursor");
    node.href = `/moderate/disputes?${query}`;
    node.hidden = false;
  }

  // The queue is a read model a moment behind the log: it refreshes itself, so a dispute raised
  // while the page is open (or just before it was) shows up without a reload.
  const REFRESH = 5000;
  let shown = null;
  let timer = null;
  async function load() {
    await loadIncidents();
    const query = new URLSearchParams({ limit: String(PAGE) });
    for (const name of ["status", "kind", "category", "cursor"]) if (params.get(name)) query.set(name, params.get(name));
    const page = await api(`/moderation/disputes?${query}`, { token });
    const fresh = JSON.stringify(page);
    if (fresh === shown) return;  // unchanged: leave the rows (and a button under the pointer) alone
    const byGame = new Map();
    for (const d of page.items) byGame.set(d.game_id, [...(byGame.get(d.game_id) || []), d.dispute_id]);
    await Promise.all([...byGame].map(([gameId, ids]) => gameFacts(gameId, ids)));
    shown = fresh;
    $("count").textContent = page.items.length ? `${page.items.length} dispute${page.items.length === 1 ? "" : "s"} on this page, oldest first.` : "No dispute matches.";
    $("queue-list").replaceChildren(...page.items.map(row));
    if (params.get("cursor")) pageLink($("first-page"), null);
    // `next` is the API's URL of the next page: this page's own link carries its cursor.
    if (page.next) pageLink($("next-page"), new URL(page.next, location.href).searchParams.get("cursor"));
    else $("next-page").hidden = true;
  }

  PL.moderatorGate(form, problem, async (value) => {
    token = value;
    await load();
    $("queue").hidden = false;
    timer ??= setInterval(() => { if (!document.hidden) load().catch((error) => showProblem(problem, error)); }, REFRESH);
  }, () => { $("queue").hidden = true; });
})();
