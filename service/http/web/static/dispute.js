// A dispute, for a moderator: its facts and history, the replay opened at the disputed events,
// and the work on it (claim, release, note, ask a seat, rule, review). Without a moderator token
// in this tab it shows nothing of the dispute or its game. Refusals show the server's message.
"use strict";

(() => {
  const { api, el, showProblem, seatName, words, when, disputeStatus, verdictText, historyText, describeEvent } = PL;
  const $ = (id) => document.getElementById(id);
  const main = $("main");
  const disputeId = main.dataset.disputeId;
  const kinds = JSON.parse(main.dataset.kinds || "{}");
  const form = $("token-form");
  const problem = $("problem");
  const base = `/moderation/disputes/${disputeId}`;
  let token = null;
  let replaying = false;


  function dl(node, pairs) {
    node.replaceChildren(...pairs.filter(([, value]) => value !== null && value !== undefined && value !== "")
      .flatMap(([term, value]) => [el("dt", {}, term), el("dd", {}, value)]));
  }

  // A state as the audit's state-at gives it (the full face-up table at that seq).
  function stateNodes(snapshot) {
    const state = snapshot && snapshot.state ? snapshot.state : snapshot;
    if (!state) return [el("p", { class: "muted" }, "—")];
    return [el("p", {}, `Status: ${state.status}`), ...Render.table(state.kind, state.game, state.seats, PL.auditOutcome(state))];
  }

  // The log's seqs, and how the raising seat numbered the same events (its own numbering hides
  // events it may not know of, RULES 3): both, so the seat's "event 12" can be found here.
  function disputedNumbers(d, seats) {
    const own = d.seat_seqs || [];
    return (d.seqs || []).map((seq, i) => (own[i] != null
      ? `log seq ${seq} (${seatName(seats, d.seat)}'s event ${own[i]})`
      : `log seq ${seq}`)).join(", ");
  }

  function render(detail) {
    const { dispute: d, game } = detail;
    const seats = game.seats.map((s) => s.name);
    const resolved = d.status === "resolved";
    $("dispute-title").textContent = `· ${words(d.category || "other")} · ${disputeStatus(d.status)}`;
    dl($("facts"), [
      ["Category", d.category],
      ["Status", `${disputeStatus(d.status)}${d.claimed_by ? ` (claimed by ${d.claimed_by})` : ""}`],
      ["Raised by", d.seat != null ? seatName(seats, d.seat) : "a moderator (a review)"],
      ["Raised at", when(d.raised_at)],
      ["Reason", d.reason != null ? el("q", { class: "typed" }, d.reason) : null],
      ["Disputed events", disputedNumbers(d, seats)],
      ["Review of", d.review_of ? el("a", { href: `/moderate/disputes/${d.review_of}` }, "the earlier dispute") : null],
      ["Verdict", d.verdict ? verdictText(d.verdict, seats) : null],
    ]);
    $("seq-links").replaceChildren(...(d.seqs || []).map((seq) => el("button", {
      type: "button", "data-seq": seq, onclick: () => { Replayer.go(seq); $("step-title").scrollIntoView(); },
    }, `Replay at seq ${seq}`)));
    const chain = detail.chain;
    dl($("game-facts"), [
      ["Game", el("a", { href: `/moderate/${game.game_id}` }, `${kinds[game.kind] || game.kind || "game"} ${game.game_id}`)],
      ["Seats", game.seats.map((s) => `${seatName(seats, s.seat)}${s.penalties ? ` (penalties: ${s.penalties})` : ""}`).join(", ")],
      ["Status", game.status],
      ["Outcome", game.outcome || game.ruled_outcome ? PL.outcomeText({ ...game, seats }) : null],
      ["Chain", chain ? (chain.ok ? `verified (${chain.events} events)` : `BROKEN at seq ${chain.first_bad_seq}: ${chain.reason}`) : null],
    ]);
    $("history").replaceChildren(...(d.history || []).map((h) => el("li", { value: h.seq }, historyText(h, seats))));
    const opened = new Set([...$("disputed").querySelectorAll("details[open]")].map((node) => node.dataset.seq));
    $("disputed").replaceChildren(...(detail.disputed || []).map((x) => el("details", { class: "disputed", "data-seq": x.seq, open: opened.has(String(x.seq)) },
      el("summary", {}, `Seq ${x.seq}: ${describeEvent({ type: x.type, data: x.event }, seats)}`),
      el("h3", {}, "Before"), ...stateNodes(x.state_before),
      el("h3", {}, "After"), ...stateNodes(x.state_after))));

    $("claim").hidden = d.status !== "open";
    $("release").hidden = d.status !== "claimed";
    $("ask-form").hidden = resolved;
    $("resolve-form").hidden = resolved;
    $("review-form").hidden = !resolved;
    const ask = $("ask-form").elements.seat;
    if (ask.options.length !== seats.length) ask.replaceChildren(...seats.map((name, s) => el("option", { value: s }, seatName(seats, s))));
    const legend = $("resolve-seats").querySelector("legend");
    if ($("resolve-seats").querySelectorAll("input").length !== seats.length) {
      $("resolve-seats").replaceChildren(legend, ...seats.map((name, s) => el("label", { class: "check" },
        el("input", { type: "checkbox", name: "seats", value: s }), ` ${seatName(seats, s)}`)));
    }
  }

  // The disputed states are face up: read once (recorded against this dispute), then the page
  // looks again without them (states=false, no record) and keeps the first ones.
  let shown = null;
  let disputed = null;
  async function load() {
    const detail = await api(disputed ? `${base}?states=false` : base, { token });
    if (disputed) detail.disputed = disputed; else disputed = detail.disputed;
    const text = JSON.stringify(detail);
    if (text === shown) return;  // unchanged: keep the page (and the keyboard's focus) as it is
    shown = text;
    render(detail);
    const { dispute, game } = detail;
    if (!replaying) {
      replaying = true;
      const seqs = dispute.seqs || [];
      Replayer.fromAudit(game.game_id, token, { openAt: seqs.length ? Math.min(...seqs) : null, marks: seqs, why: { dispute: disputeId } })
        .catch((error) => { replaying = false; showProblem(problem, error); });
    }
  }

  // Every action: POST, then the dispute as it stands now; a refusal shows the server's message.
  async function act(path, body, done) {
    showProblem($("action-problem"), null);
    try {
      const result = await api(`${base}/${path}`, { method: "POST", token, body, headers: { "Idempotency-Key": crypto.randomUUID() } });
      $("action-status").textContent = done;
      await load();
      return result;
    } catch (error) {
      showProblem($("action-problem"), error);
      return null;
    }
  }

  $("claim").addEventListener("click", () => act("claim", undefined, "You claimed the dispute."));
  $("release").addEventListener("click", () => act("release", undefined, "You released the dispute."));
  $("note-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = e.target;
    if (await act("notes", { text: f.elements.text.value }, "Note added.")) f.reset();
  });
  $("ask-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = e.target;
    if (await act("questions", { seat: Number(f.elements.seat.value), text: f.elements.text.value }, "Question sent to the seat.")) f.elements.text.value = "";
  });
  const resolve = $("resolve-form");
  resolve.addEventListener("change", () => {
    resolve.elements.action.disabled = resolve.elements.verdict.value !== "upheld";
  });
  resolve.addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = resolve.elements;
    const upheld = f.verdict.value === "upheld";
    const body = { verdict: f.verdict.value, explanation: f.explanation.value };
    if (upheld) {
      body.action = f.action.value;
      body.seats = [...resolve.querySelectorAll("input[name=seats]:checked")].map((box) => Number(box.value));
    }
    if (await act("resolve", body, "Ruled.")) resolve.reset();
  });
  $("review-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const review = await act("reviews", { reason: e.target.elements.reason.value }, "Review opened.");
    if (review && review.dispute_id) location.assign(`/moderate/disputes/${review.dispute_id}`);
  });

  PL.moderatorGate(form, problem, async (value) => {
    token = value;
    await load();
    $("dispute").hidden = false;
    // A seat's answer or another moderator's work shows up without a reload.
    setInterval(() => { if (!document.hidden) load().catch((error) => showProblem(problem, error)); }, 5000);
  }, () => { $("dispute").hidden = true; });
})();
