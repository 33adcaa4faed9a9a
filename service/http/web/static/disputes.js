// The moderators' dispute queue, oldest first. Filters and the page's cursor live in the URL's
// query (never the token); without a moderator token in this tab the page shows no dispute.
"use strict";

(() => {
  const { api, el, showProblem, words, disputeStatus, when } = PL;
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

  function row(d) {
    const title = `${words(d.category || "other")} dispute`;
    return el("li", { class: "game dispute", "data-dispute-id": d.dispute_id, "data-status": d.status },
      el("a", { href: `/moderate/disputes/${d.dispute_id}` }, title),
      d.kind ? el("span", { class: "kind" }, kindTitle(d.kind)) : null,
      el("span", { class: "status" }, disputeStatus(d.status), d.claimed_by ? ` by ${d.claimed_by}` : ""),
      d.verdict ? el("span", {}, `${d.verdict}${d.action && d.action !== "none" ? ` (${d.action})` : ""}`) : null,
      el("span", {}, `raised ${when(d.raised_at)}`, d.seat != null ? ` by seat ${d.seat}` : " (a review)"),
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
    shown = fresh;
    $("count").textContent = page.items.length ? `${page.items.length} dispute${page.items.length === 1 ? "" : "s"} on this page, oldest first.` : "No dispute matches.";
    $("queue-list").replaceChildren(...page.items.map(row));
    if (params.get("cursor")) pageLink($("first-page"), null);
    if (page.next) pageLink($("next-page"), page.next); else $("next-page").hidden = true;
  }

  PL.moderatorGate(form, problem, async (value) => {
    token = value;
    await load();
    $("queue").hidden = false;
    timer ??= setInterval(() => { if (!document.hidden) load().catch((error) => showProblem(problem, error)); }, REFRESH);
  }, () => { $("queue").hidden = true; });
})();
