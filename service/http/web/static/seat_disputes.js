// A seat's side of disputes, on the play page and on the seat's replay: raise one, follow its
// progress, answer a moderator's question. It shows only what GET /games/{id}/disputes gives this
// seat's token: of another seat's dispute, that it exists and its verdict.
"use strict";

const SeatDisputes = (() => {
  const { api, el, showProblem, words, disputeStatus, verdictText, historyText, when } = PL;
  const $ = (id) => document.getElementById(id);

  // options: { gameId, seat, token, seats: () => names | null, currentSeq: () => seq | null,
  //            asked: (texts of the questions waiting for this seat's answer) => void }
  function mount(options) {
    const { gameId, seat, token } = options;
    const base = `/games/${gameId}/disputes`;
    const problem = $("dispute-problem");
    const announce = (text) => { $("dispute-status").textContent = text; };
    const form = $("raise-form");
    $("disputes").hidden = false;
    // Questions to this seat as its stream told them (the list shows a question's text only
    // within the seat's own dispute): dispute id -> { asked: [event data], answered: count }.
    const heard = new Map();

    async function post(path, body) {
      showProblem(problem, null);
      return api(path, { method: "POST", token, body, headers: { "Idempotency-Key": crypto.randomUUID() } });
    }

    // Questions to this seat that it has not answered yet.
    function unanswered(d) {
      if (d.status === "resolved") return 0;
      if (!d.history) {
        const h = heard.get(d.dispute_id);
        return h ? h.asked.length - h.answered : 0;
      }
      const mine = (type) => d.history.filter((h) => String(h.type).replace(/^dispute\./, "") === type && h.seat === seat).length;
      return mine("asked") - mine("answered");
    }

    // The texts of the questions to this seat still waiting for its answer (the newest last).
    function questions(d) {
      const open = unanswered(d);
      if (open <= 0) return [];
      const asked = d.history
        ? d.history.filter((h) => String(h.type).replace(/^dispute\./, "") === "asked" && h.seat === seat)
        : (heard.get(d.dispute_id) || { asked: [] }).asked;
      return asked.slice(-open).map((q) => q.text || "");
    }

    // A dispute event from the seat's stream (play page): remember the questions put to this seat.
    function heardEvent(event) {
      const data = event.data || {};
      if (data.seat !== seat || !data.dispute_id) return;
      if (!heard.has(data.dispute_id)) heard.set(data.dispute_id, { asked: [], answered: 0 });
      const h = heard.get(data.dispute_id);
      if (event.type === "dispute.asked") h.asked.push(data);
      if (event.type === "dispute.answered") h.answered += 1;
    }

    function answerForm(d) {
      const id = `answer-${d.dispute_id}`;
      const text = el("textarea", { id, name: "text", required: true, maxlength: 1000, rows: 3 });
      return el("form", {
        class: "stack answer",
        onsubmit: async (e) => {
          e.preventDefault();
          try {
            await post(`${base}/${d.dispute_id}/replies`, { text: text.value });
            announce("Your answer was sent to the moderator.");
            refresh();
          } catch (error) { showProblem(problem, error); }
        },
      }, el("label", { for: id }, "Your answer to the moderator"), text, el("button", { type: "submit" }, "Send the answer"));
    }

    function item(d, seats) {
      const own = d.seat === seat;
      const parts = [
        el("p", { class: "dispute-head" },
          el("strong", {}, `${own ? "Your" : "A"} ${d.category ? `${words(d.category)} ` : ""}dispute`),
          ` · ${disputeStatus(d.status)}`, d.raised_at ? ` · raised ${when(d.raised_at)}` : ""),
      ];
      if (d.seqs && d.seqs.length) parts.push(el("p", {}, `Events: ${d.seqs.join(", ")}`));
      if (d.reason !== undefined && d.reason !== null) parts.push(el("p", {}, "Reason: ", el("q", { class: "typed" }, d.reason)));
      if (d.history && d.history.length) {
        parts.push(el("ol", { class: "history", "aria-label": "What happened to this dispute" }, d.history.map((h) => el("li", {}, historyText(h, seats)))));
      } else if (heard.has(d.dispute_id)) {
        parts.push(el("ol", { class: "history", "aria-label": "Questions to you" }, heard.get(d.dispute_id).asked.map((q) => el("li", {}, historyText({ type: "asked", by: q.moderator, seat, text: q.text, at: q.at }, seats)))));
      }
      if (d.verdict) parts.push(el("p", { class: "verdict" }, verdictText(d.verdict, seats)));
      if (unanswered(d) > 0) parts.push(el("p", { class: "question" }, "A moderator asked you a question (above)."), answerForm(d));
      return el("li", { class: "dispute", "data-dispute-id": d.dispute_id, "data-status": d.status }, parts);
    }

    let last = null;
    const refresh = PL.oneAtATime(async () => {
      try {
        const items = (await api(base, { token })).items;
        const seats = options.seats();
        const shown = JSON.stringify([items, seats, [...heard]]);
        if (shown === last) return;  // unchanged: leave the list (and what is being typed) alone
        last = shown;
        const typing = new Map([...document.querySelectorAll("#dispute-list textarea")].map((t) => [t.id, t.value]));
        if (options.asked) options.asked(items.flatMap(questions));
        $("dispute-list").replaceChildren(...(items.length ? items.map((d) => item(d, seats)) : [el("li", { class: "muted" }, "No dispute about this game.")]));
        for (const [id, value] of typing) if ($(id)) $(id).value = value;
      } catch (error) { showProblem(problem, error); }
    });

    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const f = form.elements;
      const seqs = f.seqs.value.split(/[\s,]+/).filter(Boolean).map(Number);
      try {
        await post(base, { seqs, category: f.category.value, reason: f.reason.value });
        form.reset();
        $("raise").open = false;
        announce("Your dispute was raised: a moderator will look at it.");
        refresh();
      } catch (error) { showProblem(problem, error); }
    });

    // The replay page offers the event on screen (its number, as this seat's pages number it).
    const pick = $("dispute-current");
    if (pick && options.currentSeq) {
      pick.hidden = false;
      pick.addEventListener("click", () => {
        const seq = options.currentSeq();
        if (seq === null) return;
        const have = form.elements.seqs.value.split(/[\s,]+/).filter(Boolean);
        if (!have.includes(String(seq))) form.elements.seqs.value = [...have, seq].join(", ");
        $("raise").open = true;
        form.elements.seqs.focus();
      });
    }

    refresh();
    return { refresh, heardEvent };
  }

  return { mount };
})();
